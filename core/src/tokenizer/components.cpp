// Normalizers, pre-tokenizers, decoders and post-processors of tokenizer.json. Anything not implemented
// here is rejected with a TokenizerError naming it.
#include "internal.h"

#include <utf8proc.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <map>

namespace ascviz::tok {

namespace {

std::string typeOf(const Json& j, const char* component)
{
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
        throw TokenizerError(std::string("malformed ") + component + ": " + j.dump().substr(0, 200));
    return j["type"].get<std::string>();
}

template <class T>
T getOr(const Json& j, const char* key, T fallback)
{
    if (!j.contains(key) || j[key].is_null())
        return fallback;
    try {
        return j[key].get<T>();
    } catch (const nlohmann::json::exception&) {
        throw TokenizerError(std::string("bad value for '") + key + "': " + j[key].dump());
    }
}

char32_t singleChar(const std::string& s, const char* what)
{
    std::size_t len = 0;
    if (s.empty())
        throw TokenizerError(std::string(what) + " must be one character");
    const char32_t c = decodeUtf8(s, 0, &len);
    if (len != s.size())
        throw TokenizerError(std::string(what) + " must be one character, got '" + s + "'");
    return c;
}

std::vector<char32_t> chars(std::string_view s)
{
    std::vector<char32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t l = 0;
        out.push_back(decodeUtf8(s, i, &l));
        i += l;
    }
    return out;
}

// ------------------------------------------------------------------------------------- normalizers
class SequenceNormalizer final : public Normalizer {
public:
    std::vector<std::unique_ptr<Normalizer>> items;
    void normalize(NormStr& s) const override
    {
        for (const auto& n : items)
            n->normalize(s);
    }
};

// NFC/NFD/NFKC/NFKD with the alignment changes Hugging Face computes (its vendored
// unicode_normalization_alignments): every code point is decomposed on its own, the first code point of its
// decomposition with change 0 and the others +1; each run that starts at a starter is stably sorted by
// combining class (the changes move with their code points); recomposition then gives a composite the
// change k + c - 1 of its two parts. The alignments that result are positional, not the code points' true
// origin (a composed character followed by a reordered mark takes the next original position) — what
// HF reports, and so what offsets must match.
class UnicodeNormalizer final : public Normalizer {
public:
    UnicodeNormalizer(bool compat, bool compose) : m_compat(compat), m_compose(compose) {}
    void normalize(NormStr& s) const override
    {
        bool ascii = true;
        for (char c : s.norm)
            ascii = ascii && static_cast<unsigned char>(c) < 0x80;
        if (ascii || s.norm.empty())
            return; // every form is the identity on ASCII
        std::vector<Mark> stream = decomposed(s.norm);
        std::vector<Change> dest;
        dest.reserve(stream.size());
        if (m_compose) {
            recompose(stream, dest);
        } else {
            for (const auto& m : stream)
                dest.push_back({m.c, m.change});
        }
        s.transform(dest, 0);
    }

private:
    struct Mark {
        int ccc;
        char32_t c;
        int change;
    };

    static int ccc(char32_t c) { return utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class; }

    std::vector<Mark> decomposed(const std::string& text) const
    {
        const auto options = static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | (m_compat ? UTF8PROC_COMPAT : 0));
        std::vector<Mark> out;
        std::size_t runStart = 0;
        auto sortRun = [&] {
            std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(runStart), out.end(),
                             [](const Mark& a, const Mark& b) { return a.ccc < b.ccc; });
            runStart = out.size();
        };
        utf8proc_int32_t buf[32];
        for (std::size_t i = 0; i < text.size();) {
            std::size_t l = 0;
            const char32_t c = decodeUtf8(text, i, &l);
            i += l;
            int boundclass = UTF8PROC_BOUNDCLASS_START;
            const auto n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buf, 32, options, &boundclass);
            if (n < 0 || n > 32)
                throw InputError(std::string("Unicode normalization failed: ") + utf8proc_errmsg(n < 0 ? n : UTF8PROC_ERROR_NOMEM));
            for (utf8proc_ssize_t k = 0; k < n; ++k) {
                const auto d = static_cast<char32_t>(buf[k]);
                const int cl = ccc(d);
                if (cl == 0)
                    sortRun();
                out.push_back({cl, d, k == 0 ? 0 : 1});
            }
        }
        sortRun();
        return out;
    }

    // The primary composite of a starter and a following character, or 0.
    static char32_t composePair(char32_t a, char32_t b)
    {
        utf8proc_int32_t pair[2] = {static_cast<utf8proc_int32_t>(a), static_cast<utf8proc_int32_t>(b)};
        const auto n = utf8proc_normalize_utf32(pair, 2, UTF8PROC_COMPOSE);
        return n == 1 ? static_cast<char32_t>(pair[0]) : 0;
    }

    // The canonical composition algorithm over the change stream (as HF's Recompositions iterator).
    static void recompose(const std::vector<Mark>& in, std::vector<Change>& out)
    {
        std::optional<Change> composee;
        std::optional<int> lastCcc;
        std::vector<Change> blocked;
        auto flushBlocked = [&] {
            out.insert(out.end(), blocked.begin(), blocked.end());
            blocked.clear();
        };
        for (const auto& m : in) {
            if (!composee) {
                if (m.ccc != 0) {
                    out.push_back({m.c, m.change});
                    continue;
                }
                composee = Change{m.c, m.change};
                continue;
            }
            if (!lastCcc || *lastCcc < m.ccc) {
                if (const char32_t r = composePair(composee->c, m.c)) {
                    composee = Change{r, composee->change + m.change - 1};
                    continue;
                }
            }
            if (m.ccc == 0) { // a new starter: emit the composee, then what it blocked
                out.push_back(*composee);
                flushBlocked();
                composee = Change{m.c, m.change};
                lastCcc.reset();
                continue;
            }
            blocked.push_back({m.c, m.change});
            lastCcc = m.ccc;
        }
        if (composee)
            out.push_back(*composee);
        flushBlocked();
    }

    bool m_compat, m_compose;
};

class LowercaseNormalizer final : public Normalizer {
public:
    void normalize(NormStr& s) const override
    {
        std::vector<Change> dest;
        bool changed = false;
        for (std::size_t i = 0; i < s.norm.size();) {
            std::size_t l = 0;
            const char32_t c = decodeUtf8(s.norm, i, &l);
            i += l;
            if (c == 0x130) { // İ lowercases to i + combining dot above
                dest.push_back({U'i', 0});
                dest.push_back({0x307, 1});
                changed = true;
                continue;
            }
            const auto lc = static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c)));
            changed = changed || lc != c;
            dest.push_back({lc, 0});
        }
        if (changed)
            s.transform(dest, 0);
    }
};

class PrependNormalizer final : public Normalizer {
public:
    std::string prefix;
    void normalize(NormStr& s) const override { s.prepend(prefix); }
};

class AppendNormalizer final : public Normalizer {
public:
    std::string suffix;
    void normalize(NormStr& s) const override { s.append(suffix); }
};

class ReplaceNormalizer final : public Normalizer {
public:
    Pattern pattern;
    std::string content;
    void normalize(NormStr& s) const override { s.replace(pattern, content); }
};

class StripNormalizer final : public Normalizer {
public:
    bool left = true, right = true;
    void normalize(NormStr& s) const override { s.lrstrip(left, right); }
};

// ------------------------------------------------------------------------------------- pre-tokenizers
template <class F>
void splitEach(std::vector<Split>& splits, F&& f)
{
    std::vector<Split> out;
    out.reserve(splits.size());
    for (auto& sp : splits) {
        if (sp.hasTokens) {
            out.push_back(std::move(sp));
            continue;
        }
        for (auto& ns : f(std::move(sp.ns)))
            if (!ns.empty()) {
                Split n;
                n.ns = std::move(ns);
                out.push_back(std::move(n));
            }
    }
    splits = std::move(out);
}

const char* kGpt2Regex = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class ByteLevelPreTokenizer final : public PreTokenizer {
public:
    bool addPrefixSpace = false;
    bool useRegex = true;
    Pattern regex;
    void preTokenize(std::vector<Split>& splits) const override
    {
        splitEach(splits, [&](NormStr&& ns) {
            if (addPrefixSpace && (ns.norm.empty() || ns.norm[0] != ' '))
                ns.prepend(" ");
            if (useRegex)
                return ns.split(regex, SplitBehavior::Isolated);
            std::vector<NormStr> v;
            v.push_back(std::move(ns));
            return v;
        });
        // The byte -> printable-char mapping itself is implicit: the BPE model of a byte-level tokenizer
        // works on raw bytes, whose alignments equal those of the mapped chars.
    }
    bool isByteLevel() const override { return true; }
};

class SplitPreTokenizer final : public PreTokenizer {
public:
    Pattern pattern;
    SplitBehavior behavior = SplitBehavior::Isolated;
    void preTokenize(std::vector<Split>& splits) const override
    {
        splitEach(splits, [&](NormStr&& ns) { return ns.split(pattern, behavior); });
    }
};

class DigitsPreTokenizer final : public PreTokenizer {
public:
    DigitsPreTokenizer(bool individual)
        : m_individual(individual)
    {
        m_pattern.regex = std::make_shared<Regex>(R"(\p{N})");
    }
    void preTokenize(std::vector<Split>& splits) const override
    {
        splitEach(splits, [&](NormStr&& ns) {
            return ns.split(m_pattern, m_individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
        });
    }

private:
    bool m_individual;
    Pattern m_pattern;
};

enum class PrependScheme { Always, Never, First };

PrependScheme parseScheme(const Json& j)
{
    if (j.contains("prepend_scheme") && j["prepend_scheme"].is_string()) {
        const auto s = j["prepend_scheme"].get<std::string>();
        if (s == "always")
            return PrependScheme::Always;
        if (s == "never")
            return PrependScheme::Never;
        if (s == "first")
            return PrependScheme::First;
        throw TokenizerError("Metaspace: unsupported prepend_scheme '" + s + "'");
    }
    return getOr<bool>(j, "add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
}

class MetaspacePreTokenizer final : public PreTokenizer {
public:
    std::string replacement;
    PrependScheme scheme = PrependScheme::Always;
    bool split = true;
    void preTokenize(std::vector<Split>& splits) const override
    {
        Pattern space;
        space.literal = " ";
        Pattern rep;
        rep.literal = replacement;
        splitEach(splits, [&](NormStr&& ns) {
            ns.replace(space, replacement);
            const bool startsWith = ns.norm.compare(0, replacement.size(), replacement) == 0;
            if (scheme == PrependScheme::Always && !startsWith)
                ns.prepend(replacement);
            else if (scheme == PrependScheme::First && !startsWith && ns.origStart == 0)
                ns.prepend(replacement);
            if (split)
                return ns.split(rep, SplitBehavior::MergedWithNext);
            std::vector<NormStr> v;
            v.push_back(std::move(ns));
            return v;
        });
    }
};

class SequencePreTokenizer final : public PreTokenizer {
public:
    std::vector<std::unique_ptr<PreTokenizer>> items;
    void preTokenize(std::vector<Split>& splits) const override
    {
        for (const auto& p : items)
            p->preTokenize(splits);
    }
    bool isByteLevel() const override { return !items.empty() && items.back()->isByteLevel(); }
};

// ------------------------------------------------------------------------------------- decoders
class ByteLevelDecoder final : public Decoder {
public:
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        const auto& table = ByteLevelTable::get();
        std::string bytes;
        for (const auto& t : tokens) {
            if (auto raw = table.decode(t))
                bytes += *raw;
            else
                bytes += t;
        }
        tokens.assign(1, piece ? bytes : utf8Lossy(bytes));
    }
};

class ReplaceDecoder final : public Decoder {
public:
    Pattern pattern;
    std::string content;
    void decodeChain(std::vector<std::string>& tokens, bool) const override
    {
        for (auto& t : tokens) {
            NormStr ns;
            ns.norm = t;
            ns.align.assign(t.size(), Align{});
            ns.replace(pattern, content);
            t = std::move(ns.norm);
        }
    }
};

class ByteFallbackDecoder final : public Decoder {
public:
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        std::vector<std::string> out;
        std::string pending;
        std::size_t pendingCount = 0;
        const auto flush = [&] {
            if (pendingCount == 0)
                return;
            if (piece || utf8Lossy(pending) == pending) {
                out.push_back(pending);
            } else {
                for (std::size_t i = 0; i < pendingCount; ++i)
                    out.emplace_back("\xEF\xBF\xBD");
            }
            pending.clear();
            pendingCount = 0;
        };
        for (auto& t : tokens) {
            if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' && std::isxdigit(static_cast<unsigned char>(t[3])) &&
                std::isxdigit(static_cast<unsigned char>(t[4]))) {
                pending.push_back(static_cast<char>(std::stoi(t.substr(3, 2), nullptr, 16)));
                ++pendingCount;
                continue;
            }
            flush();
            out.push_back(std::move(t));
        }
        flush();
        tokens = std::move(out);
    }
};

class FuseDecoder final : public Decoder {
public:
    void decodeChain(std::vector<std::string>& tokens, bool) const override
    {
        std::string all;
        for (const auto& t : tokens)
            all += t;
        tokens.assign(1, all);
    }
};

class StripDecoder final : public Decoder {
public:
    char32_t content = U' ';
    std::size_t start = 0, stop = 0;
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        if (piece)
            return;
        for (auto& t : tokens) {
            auto cs = chars(t);
            std::size_t startCut = 0;
            for (std::size_t i = 0; i < start && i < cs.size(); ++i) {
                if (cs[i] != content)
                    break;
                startCut = i + 1;
            }
            std::size_t stopCut = cs.size();
            for (std::size_t i = 0; i < stop && i < cs.size(); ++i) {
                const std::size_t idx = cs.size() - i - 1;
                if (cs[idx] != content || idx < startCut)
                    break;
                stopCut = idx;
            }
            std::string r;
            for (std::size_t i = startCut; i < stopCut; ++i)
                appendUtf8(r, cs[i]);
            t = std::move(r);
        }
    }
};

class MetaspaceDecoder final : public Decoder {
public:
    char32_t replacement = 0x2581;
    PrependScheme scheme = PrependScheme::Always;
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            std::string r;
            for (char32_t c : chars(tokens[i])) {
                if (c == replacement) {
                    if (i == 0 && !piece && scheme != PrependScheme::Never)
                        continue;
                    r.push_back(' ');
                } else {
                    appendUtf8(r, c);
                }
            }
            tokens[i] = std::move(r);
        }
    }
};

class SequenceDecoder final : public Decoder {
public:
    std::vector<std::unique_ptr<Decoder>> items;
    void decodeChain(std::vector<std::string>& tokens, bool piece) const override
    {
        for (const auto& d : items)
            d->decodeChain(tokens, piece);
    }
};

// ------------------------------------------------------------------------------------- post-processors
void trimByteLevelOffsets(EncodingBuf& e, bool addPrefixSpace)
{
    const char32_t g = ByteLevelTable::get().byteToChar[' '];
    for (std::size_t i = 0; i < e.ids.size(); ++i) {
        const auto cs = chars(e.tokens[i]);
        std::size_t leading = 0, trailing = 0;
        while (leading < cs.size() && (cs[leading] == g || isWhiteSpace(cs[leading])))
            ++leading;
        while (trailing < cs.size() && (cs[cs.size() - 1 - trailing] == g || isWhiteSpace(cs[cs.size() - 1 - trailing])))
            ++trailing;
        auto& off = e.offsets[i];
        if (leading > 0) {
            const bool isFirst = i == 0 || off.first == 0;
            if (isFirst && addPrefixSpace && leading == 1)
                leading = 0;
            off.first = std::min(off.first + leading, off.second);
        }
        if (trailing > 0 && off.second >= trailing)
            off.second = std::max(off.second - trailing, off.first);
    }
}

class ByteLevelProcessor final : public PostProcessor {
public:
    bool trimOffsets = false, addPrefixSpace = false;
    void process(EncodingBuf& e, bool) const override
    {
        if (trimOffsets)
            trimByteLevelOffsets(e, addPrefixSpace);
    }
};

struct SpecialSeq {
    std::vector<int32_t> ids;
    std::vector<std::string> tokens;
};

void appendSpecial(EncodingBuf& out, const SpecialSeq& s)
{
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        out.ids.push_back(s.ids[i]);
        out.tokens.push_back(s.tokens[i]);
        out.offsets.emplace_back(0, 0);
        out.special.push_back(true);
    }
}

void appendSeq(EncodingBuf& out, EncodingBuf& in)
{
    out.ids.insert(out.ids.end(), in.ids.begin(), in.ids.end());
    out.offsets.insert(out.offsets.end(), in.offsets.begin(), in.offsets.end());
    for (auto& t : in.tokens)
        out.tokens.push_back(std::move(t));
    out.special.insert(out.special.end(), in.special.begin(), in.special.end());
}

class TemplateProcessor final : public PostProcessor {
public:
    // nullopt = the sequence A; otherwise a special-token sequence
    std::vector<std::optional<SpecialSeq>> single;
    void process(EncodingBuf& e, bool addSpecialTokens) const override
    {
        if (!addSpecialTokens)
            return;
        EncodingBuf out;
        for (const auto& p : single) {
            if (p)
                appendSpecial(out, *p);
            else
                appendSeq(out, e);
        }
        e = std::move(out);
    }
    std::optional<int32_t> leadingSpecial() const override
    {
        if (!single.empty() && single.front() && !single.front()->ids.empty())
            return single.front()->ids.front();
        return std::nullopt;
    }
};

class RobertaProcessor final : public PostProcessor {
public:
    SpecialSeq cls, sep;
    bool trimOffsets = true, addPrefixSpace = true, trim = true;
    void process(EncodingBuf& e, bool addSpecialTokens) const override
    {
        if (trim && trimOffsets)
            trimByteLevelOffsets(e, addPrefixSpace);
        if (!addSpecialTokens)
            return;
        EncodingBuf out;
        appendSpecial(out, cls);
        appendSeq(out, e);
        appendSpecial(out, sep);
        e = std::move(out);
    }
    std::optional<int32_t> leadingSpecial() const override { return cls.ids.front(); }
};

class SequenceProcessor final : public PostProcessor {
public:
    std::vector<std::unique_ptr<PostProcessor>> items;
    void process(EncodingBuf& e, bool addSpecialTokens) const override
    {
        for (const auto& p : items)
            p->process(e, addSpecialTokens);
    }
    std::optional<int32_t> leadingSpecial() const override
    {
        for (const auto& p : items)
            if (auto id = p->leadingSpecial())
                return id;
        return std::nullopt;
    }
};

SpecialSeq tokenPair(const Json& j, const char* what)
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_number_integer())
        throw TokenizerError(std::string("post_processor: malformed '") + what + "'");
    return SpecialSeq{{j[1].get<int32_t>()}, {j[0].get<std::string>()}};
}

} // namespace

// ------------------------------------------------------------------------------------- factories
std::unique_ptr<Normalizer> makeNormalizer(const Json& j)
{
    const auto type = typeOf(j, "normalizer");
    if (type == "Sequence") {
        auto n = std::make_unique<SequenceNormalizer>();
        if (!j.contains("normalizers") || !j["normalizers"].is_array())
            throw TokenizerError("normalizer Sequence without 'normalizers'");
        for (const auto& c : j["normalizers"])
            n->items.push_back(makeNormalizer(c));
        return n;
    }
    if (type == "NFC")
        return std::make_unique<UnicodeNormalizer>(false, true);
    if (type == "NFD")
        return std::make_unique<UnicodeNormalizer>(false, false);
    if (type == "NFKC")
        return std::make_unique<UnicodeNormalizer>(true, true);
    if (type == "NFKD")
        return std::make_unique<UnicodeNormalizer>(true, false);
    if (type == "Lowercase")
        return std::make_unique<LowercaseNormalizer>();
    if (type == "Prepend") {
        auto n = std::make_unique<PrependNormalizer>();
        n->prefix = getOr<std::string>(j, "prepend", "");
        return n;
    }
    if (type == "Append") {
        auto n = std::make_unique<AppendNormalizer>();
        n->suffix = getOr<std::string>(j, "append", "");
        return n;
    }
    if (type == "Replace") {
        auto n = std::make_unique<ReplaceNormalizer>();
        n->pattern = Pattern::fromJson(j.value("pattern", Json()), "Replace normalizer");
        n->content = getOr<std::string>(j, "content", "");
        return n;
    }
    if (type == "Strip") {
        auto n = std::make_unique<StripNormalizer>();
        n->left = getOr<bool>(j, "strip_left", true);
        n->right = getOr<bool>(j, "strip_right", true);
        return n;
    }
    throw TokenizerError("unsupported normalizer type '" + type + "'");
}

std::unique_ptr<PreTokenizer> makePreTokenizer(const Json& j, bool& byteLevel)
{
    const auto type = typeOf(j, "pre_tokenizer");
    if (type == "Sequence") {
        auto p = std::make_unique<SequencePreTokenizer>();
        if (!j.contains("pretokenizers") || !j["pretokenizers"].is_array())
            throw TokenizerError("pre_tokenizer Sequence without 'pretokenizers'");
        for (const auto& c : j["pretokenizers"]) {
            if (!p->items.empty() && p->items.back()->isByteLevel())
                throw TokenizerError("unsupported pre_tokenizer: ByteLevel followed by another pre_tokenizer");
            bool inner = false;
            p->items.push_back(makePreTokenizer(c, inner));
        }
        byteLevel = p->isByteLevel();
        return p;
    }
    if (type == "ByteLevel") {
        auto p = std::make_unique<ByteLevelPreTokenizer>();
        p->addPrefixSpace = getOr<bool>(j, "add_prefix_space", true);
        p->useRegex = getOr<bool>(j, "use_regex", true);
        if (p->useRegex)
            p->regex.regex = std::make_shared<Regex>(kGpt2Regex);
        byteLevel = true;
        return p;
    }
    if (type == "Split") {
        auto p = std::make_unique<SplitPreTokenizer>();
        p->pattern = Pattern::fromJson(j.value("pattern", Json()), "Split pre_tokenizer");
        p->pattern.invert = getOr<bool>(j, "invert", false);
        p->behavior = parseBehavior(getOr<std::string>(j, "behavior", "Isolated"), "Split pre_tokenizer");
        return p;
    }
    if (type == "Digits")
        return std::make_unique<DigitsPreTokenizer>(getOr<bool>(j, "individual_digits", false));
    if (type == "Metaspace") {
        auto p = std::make_unique<MetaspacePreTokenizer>();
        p->replacement = getOr<std::string>(j, "replacement", "\xE2\x96\x81");
        singleChar(p->replacement, "Metaspace replacement");
        p->scheme = parseScheme(j);
        p->split = getOr<bool>(j, "split", true);
        return p;
    }
    throw TokenizerError("unsupported pre_tokenizer type '" + type + "'");
}

std::unique_ptr<Decoder> makeDecoder(const Json& j)
{
    const auto type = typeOf(j, "decoder");
    if (type == "Sequence") {
        auto d = std::make_unique<SequenceDecoder>();
        if (!j.contains("decoders") || !j["decoders"].is_array())
            throw TokenizerError("decoder Sequence without 'decoders'");
        for (const auto& c : j["decoders"])
            d->items.push_back(makeDecoder(c));
        return d;
    }
    if (type == "ByteLevel")
        return std::make_unique<ByteLevelDecoder>();
    if (type == "Replace") {
        auto d = std::make_unique<ReplaceDecoder>();
        d->pattern = Pattern::fromJson(j.value("pattern", Json()), "Replace decoder");
        d->content = getOr<std::string>(j, "content", "");
        return d;
    }
    if (type == "ByteFallback")
        return std::make_unique<ByteFallbackDecoder>();
    if (type == "Fuse")
        return std::make_unique<FuseDecoder>();
    if (type == "Strip") {
        auto d = std::make_unique<StripDecoder>();
        d->content = singleChar(getOr<std::string>(j, "content", " "), "Strip decoder content");
        d->start = getOr<std::size_t>(j, "start", 0);
        d->stop = getOr<std::size_t>(j, "stop", 0);
        return d;
    }
    if (type == "Metaspace") {
        auto d = std::make_unique<MetaspaceDecoder>();
        d->replacement = singleChar(getOr<std::string>(j, "replacement", "\xE2\x96\x81"), "Metaspace replacement");
        d->scheme = parseScheme(j);
        return d;
    }
    throw TokenizerError("unsupported decoder type '" + type + "'");
}

std::unique_ptr<PostProcessor> makePostProcessor(const Json& j)
{
    const auto type = typeOf(j, "post_processor");
    if (type == "ByteLevel") {
        auto p = std::make_unique<ByteLevelProcessor>();
        p->trimOffsets = getOr<bool>(j, "trim_offsets", true);
        p->addPrefixSpace = getOr<bool>(j, "add_prefix_space", true);
        return p;
    }
    if (type == "TemplateProcessing") {
        auto p = std::make_unique<TemplateProcessor>();
        std::map<std::string, SpecialSeq> specials;
        if (j.contains("special_tokens") && j["special_tokens"].is_object()) {
            for (const auto& [name, v] : j["special_tokens"].items()) {
                SpecialSeq s;
                s.ids = v.value("ids", std::vector<int32_t>{});
                s.tokens = v.value("tokens", std::vector<std::string>{});
                if (s.ids.size() != s.tokens.size())
                    throw TokenizerError("TemplateProcessing: special token '" + name + "' has mismatched ids/tokens");
                specials[name] = std::move(s);
            }
        }
        if (!j.contains("single") || !j["single"].is_array())
            throw TokenizerError("TemplateProcessing without 'single'");
        for (const auto& piece : j["single"]) {
            if (piece.contains("SpecialToken")) {
                const auto id = piece["SpecialToken"].value("id", std::string());
                const auto it = specials.find(id);
                if (it == specials.end())
                    throw TokenizerError("TemplateProcessing: missing special token '" + id + "'");
                p->single.emplace_back(it->second);
            } else if (piece.contains("Sequence")) {
                if (piece["Sequence"].value("id", std::string("A")) != "A")
                    throw TokenizerError("TemplateProcessing: single template refers to sequence B");
                p->single.emplace_back(std::nullopt);
            } else {
                throw TokenizerError("TemplateProcessing: unsupported piece " + piece.dump());
            }
        }
        return p;
    }
    if (type == "RobertaProcessing" || type == "BertProcessing") {
        auto p = std::make_unique<RobertaProcessor>();
        p->cls = tokenPair(j.value("cls", Json()), "cls");
        p->sep = tokenPair(j.value("sep", Json()), "sep");
        p->trim = type == "RobertaProcessing";
        p->trimOffsets = getOr<bool>(j, "trim_offsets", true);
        p->addPrefixSpace = getOr<bool>(j, "add_prefix_space", true);
        return p;
    }
    if (type == "Sequence") {
        auto p = std::make_unique<SequenceProcessor>();
        if (!j.contains("processors") || !j["processors"].is_array())
            throw TokenizerError("post_processor Sequence without 'processors'");
        for (const auto& c : j["processors"])
            p->items.push_back(makePostProcessor(c));
        return p;
    }
    throw TokenizerError("unsupported post_processor type '" + type + "'");
}

} // namespace ascviz::tok

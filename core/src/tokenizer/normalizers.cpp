// Normalizers of tokenizer.json (Sequence, NFC/NFD/NFKC/NFKD, Lowercase, Prepend, Append, Replace, Strip).
// Anything not implemented here is rejected with a TokenizerError naming it.
#include "component_json.h"

#include <utf8proc.h>

#include <algorithm>

namespace ascviz::tok {

namespace {

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

    // Decompositions that Unicode added after the tables of tokenizers' normalizer (its vendored
    // unicode-normalization-alignments): tokenizers leaves these characters unchanged under every form. The
    // list is every code point where tokenizers 0.23.2 and utf8proc (Unicode 15) differ alone.
    static bool newerDecomposition(char32_t c)
    {
        if (c < 0x32FF)
            return false;
        return c == 0x32FF || (c >= 0xA7F2 && c <= 0xA7F4) || c == 0xAB69 || (c >= 0x10781 && c <= 0x10785) ||
               (c >= 0x10787 && c <= 0x107B0) || (c >= 0x107B2 && c <= 0x107BA) || c == 0x11938 ||
               (c >= 0x1E030 && c <= 0x1E06D) || c == 0x1F16C || (c >= 0x1FBF0 && c <= 0x1FBF9);
    }

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
            utf8proc_ssize_t n = 1;
            buf[0] = static_cast<utf8proc_int32_t>(c);
            if (!newerDecomposition(c))
                n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buf, 32, options, &boundclass);
            if (n < 0 || n > 32)
                throw InputError(std::string("Unicode normalization failed: ") +
                                 utf8proc_errmsg(n < 0 ? n : UTF8PROC_ERROR_NOMEM));
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
        // utf8proc composes some pairs whose composite is excluded from composition (U+2ADD U+0338 to U+2ADC,
        // U+1D157 U+1D165 to U+1D15E): canonical composition never produces an excluded composite.
        if (n != 1 || utf8proc_get_property(pair[0])->comp_exclusion)
            return 0;
        return static_cast<char32_t>(pair[0]);
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

} // namespace ascviz::tok

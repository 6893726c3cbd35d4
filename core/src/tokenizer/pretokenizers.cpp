// Pre-tokenizers of tokenizer.json (Sequence, ByteLevel, Split, Digits, Metaspace, Punctuation, Whitespace,
// WhitespaceSplit, BertPreTokenizer, CharDelimiterSplit). Anything not implemented here is rejected with a
// TokenizerError naming it.
#include "component_json.h"

namespace ascviz::tok {

namespace {

// ------------------------------------------------------------------------------------- pre-tokenizers
template <class F> void splitEach(std::vector<Split>& splits, F&& f)
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
    DigitsPreTokenizer(bool individual) : m_individual(individual)
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

using Matches = std::vector<std::tuple<std::size_t, std::size_t, bool>>;

// One match per code point for which `pred` holds (tokenizers' split on a char predicate).
template <class P> Matches charMatches(std::string_view s, P&& pred)
{
    Matches out;
    std::size_t gap = 0;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t l = 0;
        const char32_t c = decodeUtf8(s, i, &l);
        if (pred(c)) {
            if (gap < i)
                out.emplace_back(gap, i, false);
            out.emplace_back(i, i + l, true);
            gap = i + l;
        }
        i += l;
    }
    if (gap < s.size() || s.empty())
        out.emplace_back(gap, s.size(), false);
    return out;
}

// Runs of \w and of [^\w\s] kept, white space removed: Whitespace's \w+|[^\w\s]+ (matches are kept).
Matches wordRuns(std::string_view s)
{
    Matches out;
    int prevKind = -1; // 0 space, 1 word, 2 other
    for (std::size_t i = 0; i < s.size();) {
        std::size_t l = 0;
        const char32_t c = decodeUtf8(s, i, &l);
        const int kind = isWhiteSpace(c) ? 0 : isWordChar(c) ? 1 : 2;
        if (kind != 0 && kind == prevKind)
            std::get<1>(out.back()) = i + l;
        else
            out.emplace_back(i, i + l, kind == 0);
        prevKind = kind;
        i += l;
    }
    if (s.empty())
        out.emplace_back(0, 0, false);
    return out;
}

class CharSplitPreTokenizer final : public PreTokenizer {
public:
    enum class Kind { WhitespaceSplit, Punctuation, Whitespace, Bert, Delimiter };
    Kind kind = Kind::WhitespaceSplit;
    SplitBehavior behavior = SplitBehavior::Removed;
    char32_t delimiter = 0;
    void preTokenize(std::vector<Split>& splits) const override
    {
        splitEach(splits, [&](NormStr&& ns) {
            switch (kind) {
            case Kind::WhitespaceSplit:
                return ns.split(charMatches(ns.norm, isWhiteSpace), SplitBehavior::Removed);
            case Kind::Punctuation:
                return ns.split(charMatches(ns.norm, isPunctuation), behavior);
            case Kind::Whitespace:
                return ns.split(wordRuns(ns.norm), SplitBehavior::Removed);
            case Kind::Delimiter:
                return ns.split(charMatches(ns.norm, [&](char32_t c) { return c == delimiter; }),
                                SplitBehavior::Removed);
            case Kind::Bert:
                break;
            }
            std::vector<NormStr> out;
            for (auto& w : ns.split(charMatches(ns.norm, isWhiteSpace), SplitBehavior::Removed))
                for (auto& p : w.split(charMatches(w.norm, isPunctuation), SplitBehavior::Isolated))
                    out.push_back(std::move(p));
            return out;
        });
    }
};

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

} // namespace

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
    if (type == "WhitespaceSplit" || type == "Whitespace" || type == "BertPreTokenizer" || type == "Punctuation" ||
        type == "CharDelimiterSplit") {
        using K = CharSplitPreTokenizer::Kind;
        auto p = std::make_unique<CharSplitPreTokenizer>();
        p->kind = type == "WhitespaceSplit"    ? K::WhitespaceSplit
                  : type == "Whitespace"       ? K::Whitespace
                  : type == "Punctuation"      ? K::Punctuation
                  : type == "BertPreTokenizer" ? K::Bert
                                               : K::Delimiter;
        if (p->kind == K::Punctuation)
            p->behavior = parseBehavior(getOr<std::string>(j, "behavior", "Isolated"), "Punctuation pre_tokenizer");
        if (p->kind == K::Delimiter)
            p->delimiter = singleChar(getOr<std::string>(j, "delimiter", ""), "CharDelimiterSplit delimiter");
        return p;
    }
    throw TokenizerError("unsupported pre_tokenizer type '" + type + "'");
}

} // namespace ascviz::tok

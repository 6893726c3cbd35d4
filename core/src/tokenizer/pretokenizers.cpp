// Pre-tokenizers of tokenizer.json (Sequence, ByteLevel, Split, Digits, Metaspace). Anything not
// implemented here is rejected with a TokenizerError naming it.
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
    throw TokenizerError("unsupported pre_tokenizer type '" + type + "'");
}

} // namespace ascviz::tok

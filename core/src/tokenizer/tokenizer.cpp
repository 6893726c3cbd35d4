// Tokenizer: loading tokenizer.json (+ tokenizer_config.json), added tokens, encode and decode.
#include "ascviz/tokenizer/tokenizer.h"

#include "ascviz/base/utf8.h"
#include "internal.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ascviz {

namespace {

using namespace tok;
namespace fs = std::filesystem;

struct AddedTok {
    int32_t id = 0;
    std::string content;
    // Hugging Face's id_to_token of the token (what decode reads): its content, normalized when the
    // token is matched on normalized text ("[MASK]" under Lowercase is "[mask]").
    std::string vocabString;
    bool special = false, normalized = true, lstrip = false, rstrip = false, singleWord = false;
};

// Leftmost-longest, non-overlapping matching of the added tokens (as tokenizers' Aho-Corasick trie).
class AddedMatcher {
public:
    void add(std::string pattern, std::size_t index)
    {
        if (pattern.empty())
            return;
        m_patterns.emplace_back(std::move(pattern), index);
    }
    void finish()
    {
        for (auto& v : m_byFirst)
            v.clear();
        for (std::size_t k = 0; k < m_patterns.size(); ++k)
            m_byFirst[static_cast<unsigned char>(m_patterns[k].first[0])].push_back(k);
        for (auto& v : m_byFirst)
            std::stable_sort(v.begin(), v.end(), [&](std::size_t a, std::size_t b) {
                return m_patterns[a].first.size() > m_patterns[b].first.size();
            });
    }
    bool empty() const { return m_patterns.empty(); }
    struct Match {
        std::size_t start, end, index;
    };
    std::vector<Match> find(std::string_view s) const
    {
        std::vector<Match> out;
        for (std::size_t pos = 0; pos < s.size();) {
            bool found = false;
            for (std::size_t k : m_byFirst[static_cast<unsigned char>(s[pos])]) {
                const auto& p = m_patterns[k].first;
                if (s.compare(pos, p.size(), p) == 0) {
                    out.push_back({pos, pos + p.size(), m_patterns[k].second});
                    pos += p.size();
                    found = true;
                    break;
                }
            }
            if (!found)
                ++pos;
        }
        return out;
    }

private:
    std::vector<std::pair<std::string, std::size_t>> m_patterns;
    std::array<std::vector<std::size_t>, 256> m_byFirst;
};

char32_t lastChar(std::string_view s)
{
    std::size_t b = s.size() - 1;
    while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80)
        --b;
    std::size_t l = 0;
    return decodeUtf8(s, b, &l);
}

std::string readFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw InputError("cannot read " + p.string());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::optional<std::string> tokenContent(const Json& j)
{
    if (j.is_string())
        return j.get<std::string>();
    if (j.is_object() && j.contains("content") && j["content"].is_string())
        return j["content"].get<std::string>();
    return std::nullopt;
}

class TokenizerImpl final : public Tokenizer {
public:
    // `name` names the source in errors (the file, or what the caller holds in memory).
    TokenizerImpl(const std::string& text, const std::string& name, const TokenizerOptions& options)
    {
        Json j;
        try {
            j = Json::parse(text);
        } catch (const nlohmann::json::exception& e) {
            throw TokenizerError("malformed tokenizer file " + name + ": " + e.what());
        }
        try {
            load(j);
            m_model = std::make_unique<BpeModel>(j["model"], m_byteLevel, options.cache, options.cacheCapacity);
        } catch (const TokenizerError& e) {
            throw TokenizerError(name + ": " + e.what());
        } catch (const nlohmann::json::exception& e) {
            throw TokenizerError(name + ": unexpected JSON structure: " + e.what());
        }
        finishAdded();
    }

    TokenizerImpl(const fs::path& file, const TokenizerOptions& options)
        : TokenizerImpl(readExisting(file), file.string(), options)
    {
        const auto config = file.parent_path() / "tokenizer_config.json";
        if (fs::exists(config))
            loadConfig(config);
    }

    // A normalizer that expands the text without bound (issue 54: one that replaced a character by 10,000 turned
    // 300 bytes into 75,103 tokens, past the text limit checked before it) is refused: Unicode's own expansions
    // (NFKC) stay far below 16 times.
    static constexpr std::size_t kMaxNormalizerExpansion = 16;
    static void checkExpansion(std::size_t textBytes, std::size_t normalizedBytes)
    {
        if (normalizedBytes > kMaxNormalizerExpansion * textBytes + 4096)
            throw InputError("the tokenizer's normalizer expands the text's " + std::to_string(textBytes) +
                             " bytes to more than " + std::to_string(normalizedBytes) + " (over " +
                             std::to_string(kMaxNormalizerExpansion) +
                             " times): the tokenizer.json's normalizer is refused for this text");
    }

    Encoding encode(std::string_view text, bool addSpecialTokens) const override
    {
        if (const auto bad = findInvalidUtf8(text))
            throw InputError("text is not valid UTF-8 (invalid byte sequence at byte offset " + std::to_string(*bad) +
                             ")");
        std::vector<Split> splits;
        if (!text.empty())
            splitAdded(NormStr::fromOriginal(text, 0), m_rawMatcher, splits);
        // normalize the remaining pieces, then extract the added tokens that match normalized text
        std::vector<Split> normalized;
        normalized.reserve(splits.size());
        std::size_t normalizedBytes = 0;
        for (auto& sp : splits) {
            if (sp.hasTokens) {
                normalized.push_back(std::move(sp));
                continue;
            }
            if (m_normalizer) {
                m_normalizer->normalize(sp.ns);
                normalizedBytes += sp.ns.norm.size();
                checkExpansion(text.size(), normalizedBytes);
            }
            splitAdded(std::move(sp.ns), m_normMatcher, normalized);
        }
        if (m_preTokenizer)
            m_preTokenizer->preTokenize(normalized);

        EncodingBuf buf;
        std::vector<TokenOut> toks;
        for (const auto& sp : normalized) {
            if (sp.hasTokens) {
                for (const auto& t : sp.tokens) {
                    buf.ids.push_back(t.id);
                    buf.offsets.push_back(sp.ns.originalSpan(t.start, t.end));
                    buf.tokens.push_back(sp.addedValue);
                    buf.special.push_back(m_added[m_addedIndex.at(t.id)].special);
                }
                continue;
            }
            toks.clear();
            m_model->tokenize(sp.ns.norm, toks);
            for (const auto& t : toks) {
                buf.ids.push_back(t.id);
                buf.offsets.push_back(sp.ns.originalSpan(t.start, t.end));
                buf.tokens.push_back(vocabString(t.id));
                buf.special.push_back(false);
            }
        }
        if (m_postProcessor)
            m_postProcessor->process(buf, addSpecialTokens);
        if (addSpecialTokens)
            applyConfigSpecials(buf);
        Encoding e;
        e.ids = std::move(buf.ids);
        e.offsets = std::move(buf.offsets);
        e.tokens = std::move(buf.tokens);
        e.special = std::move(buf.special);
        return e;
    }

    std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens) const override
    {
        std::vector<std::string> tokens;
        tokens.reserve(ids.size());
        for (const int32_t id : ids) {
            if (const auto it = m_addedIndex.find(id); it != m_addedIndex.end()) {
                const auto& a = m_added[it->second];
                if (skipSpecialTokens && a.special)
                    continue;
                tokens.push_back(a.vocabString);
            } else if (const auto* t = m_model->idToToken(id)) {
                tokens.push_back(*t);
            }
        }
        if (!m_decoder) {
            std::string out;
            for (std::size_t i = 0; i < tokens.size(); ++i) {
                if (i)
                    out += ' ';
                out += tokens[i];
            }
            return out;
        }
        m_decoder->decodeChain(tokens, false);
        std::string out;
        for (const auto& t : tokens)
            out += t;
        return out;
    }

    std::string idToToken(int32_t id) const override
    {
        const auto v = vocabToken(id);
        if (!v)
            return {};
        if (m_addedIndex.count(id) || !m_decoder)
            return *v;
        std::vector<std::string> tokens{*v};
        m_decoder->decodeChain(tokens, true);
        std::string out;
        for (const auto& t : tokens)
            out += t;
        return out;
    }

    std::optional<std::string> vocabToken(int32_t id) const override
    {
        if (const auto it = m_addedIndex.find(id); it != m_addedIndex.end())
            return m_added[it->second].vocabString;
        if (const auto* t = m_model->idToToken(id))
            return *t;
        return std::nullopt;
    }

    std::optional<int32_t> tokenToId(std::string_view token) const override
    {
        if (const auto it = m_addedByContent.find(token); it != m_addedByContent.end())
            return it->second;
        return m_model->tokenToId(token);
    }

    std::size_t vocabSize() const override
    {
        std::size_t n = m_model->vocabSize();
        for (const auto& a : m_added)
            if (!m_model->tokenToId(a.content))
                ++n;
        return n;
    }

    std::optional<int32_t> bosId() const override { return m_bos; }
    std::optional<int32_t> eosId() const override { return m_eos; }
    bool addsBos() const override
    {
        if (m_configAddBos)
            return *m_configAddBos && m_bos.has_value();
        return m_bos && m_postProcessor && m_postProcessor->leadingSpecial() == m_bos;
    }

private:
    static std::string readExisting(const fs::path& file)
    {
        if (!fs::exists(file))
            throw InputError("tokenizer file not found: " + file.string());
        return readFile(file);
    }

    void load(const Json& j)
    {
        if (!j.is_object() || !j.contains("model") || !j["model"].is_object())
            throw TokenizerError("no 'model' object (not a Hugging Face tokenizer.json?)");
        if (j.contains("normalizer") && !j["normalizer"].is_null())
            m_normalizer = makeNormalizer(j["normalizer"]);
        if (j.contains("pre_tokenizer") && !j["pre_tokenizer"].is_null())
            m_preTokenizer = makePreTokenizer(j["pre_tokenizer"], m_byteLevel);
        if (j.contains("decoder") && !j["decoder"].is_null())
            m_decoder = makeDecoder(j["decoder"]);
        if (j.contains("post_processor") && !j["post_processor"].is_null())
            m_postProcessor = makePostProcessor(j["post_processor"]);
        if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
            for (const auto& t : j["added_tokens"]) {
                AddedTok a;
                a.id = t.at("id").get<int32_t>();
                a.content = t.at("content").get<std::string>();
                a.special = t.value("special", false);
                a.normalized = t.value("normalized", !a.special);
                a.lstrip = t.value("lstrip", false);
                a.rstrip = t.value("rstrip", false);
                a.singleWord = t.value("single_word", false);
                if (a.content.empty())
                    continue;
                if (findInvalidUtf8(a.content))
                    throw TokenizerError("added token with invalid UTF-8 content");
                m_addedIndex[a.id] = m_added.size();
                m_addedByContent[a.content] = a.id;
                m_added.push_back(std::move(a));
            }
        }
    }

    void finishAdded()
    {
        // tokenizers: special tokens first, then the others; raw trie = normalized == false
        for (int pass = 0; pass < 2; ++pass) {
            for (std::size_t k = 0; k < m_added.size(); ++k) {
                auto& a = m_added[k];
                if (a.special != (pass == 0))
                    continue;
                a.vocabString = a.content;
                if (!a.normalized) {
                    m_rawMatcher.add(a.content, k);
                } else {
                    NormStr ns = NormStr::fromOriginal(a.content, 0);
                    if (m_normalizer)
                        m_normalizer->normalize(ns);
                    a.vocabString = ns.norm;
                    m_normMatcher.add(ns.norm, k);
                }
            }
        }
        m_rawMatcher.finish();
        m_normMatcher.finish();
    }

    void loadConfig(const fs::path& config)
    {
        Json c;
        try {
            c = Json::parse(readFile(config));
        } catch (const nlohmann::json::exception& e) {
            throw TokenizerError("malformed " + config.string() + ": " + e.what());
        }
        if (!c.is_object())
            return;
        const auto idOf = [&](const char* key) -> std::optional<int32_t> {
            if (!c.contains(key) || c[key].is_null())
                return std::nullopt;
            const auto content = tokenContent(c[key]);
            if (!content)
                throw TokenizerError(config.string() + ": '" + key + "' is neither a string nor {\"content\": ...}");
            const auto id = tokenToId(*content);
            if (!id)
                throw TokenizerError(config.string() + ": " + key + " '" + *content + "' is not in the vocabulary");
            return id;
        };
        m_bos = idOf("bos_token");
        m_eos = idOf("eos_token");
        if (c.contains("add_bos_token") && c["add_bos_token"].is_boolean())
            m_configAddBos = c["add_bos_token"].get<bool>();
        if (c.contains("add_eos_token") && c["add_eos_token"].is_boolean())
            m_configAddEos = c["add_eos_token"].get<bool>();
    }

    // transformers rebuilds the post-processor of Llama-style tokenizers from add_bos_token/add_eos_token.
    void applyConfigSpecials(EncodingBuf& b) const
    {
        const auto insertAt = [&](std::size_t pos, int32_t id) {
            b.ids.insert(b.ids.begin() + static_cast<std::ptrdiff_t>(pos), id);
            b.offsets.insert(b.offsets.begin() + static_cast<std::ptrdiff_t>(pos), {0, 0});
            b.tokens.insert(b.tokens.begin() + static_cast<std::ptrdiff_t>(pos), vocabToken(id).value_or(""));
            b.special.insert(b.special.begin() + static_cast<std::ptrdiff_t>(pos), true);
        };
        const auto eraseAt = [&](std::size_t pos) {
            b.ids.erase(b.ids.begin() + static_cast<std::ptrdiff_t>(pos));
            b.offsets.erase(b.offsets.begin() + static_cast<std::ptrdiff_t>(pos));
            b.tokens.erase(b.tokens.begin() + static_cast<std::ptrdiff_t>(pos));
            b.special.erase(b.special.begin() + static_cast<std::ptrdiff_t>(pos));
        };
        if (m_bos && m_configAddBos) {
            const bool has = !b.ids.empty() && b.special.front() && b.ids.front() == *m_bos;
            if (*m_configAddBos && !has)
                insertAt(0, *m_bos);
            else if (!*m_configAddBos && has && m_postProcessor && m_postProcessor->leadingSpecial() == m_bos)
                eraseAt(0);
        }
        if (m_eos && m_configAddEos && *m_configAddEos) {
            const bool has = !b.ids.empty() && b.special.back() && b.ids.back() == *m_eos;
            if (!has)
                insertAt(b.ids.size(), *m_eos);
        }
    }

    void splitAdded(NormStr ns, const AddedMatcher& matcher, std::vector<Split>& out) const
    {
        if (ns.empty())
            return;
        if (matcher.empty()) {
            Split s;
            s.ns = std::move(ns);
            out.push_back(std::move(s));
            return;
        }
        const std::string_view sentence = ns.norm;
        std::size_t startOffset = 0;
        std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::optional<std::size_t>>> parts;
        for (const auto& m : matcher.find(sentence)) {
            std::size_t start = m.start, stop = m.end;
            const auto& a = m_added[m.index];
            if (a.singleWord) {
                const bool startSpace = start == 0 || !isWordChar(lastChar(sentence.substr(0, start)));
                std::size_t l = 0;
                const bool stopSpace = stop == sentence.size() || !isWordChar(decodeUtf8(sentence, stop, &l));
                if (!startSpace || !stopSpace)
                    continue;
            }
            if (a.lstrip) {
                std::size_t ns0 = start;
                while (ns0 > 0) {
                    std::size_t b = ns0 - 1;
                    while (b > 0 && (static_cast<unsigned char>(sentence[b]) & 0xC0) == 0x80)
                        --b;
                    std::size_t l = 0;
                    if (!isWhiteSpace(decodeUtf8(sentence, b, &l)))
                        break;
                    ns0 = b;
                }
                start = std::max(ns0, startOffset);
            }
            if (a.rstrip) {
                while (stop < sentence.size()) {
                    std::size_t l = 0;
                    if (!isWhiteSpace(decodeUtf8(sentence, stop, &l)))
                        break;
                    stop += l;
                }
            }
            if (startOffset < start)
                parts.push_back({{startOffset, start}, std::nullopt});
            parts.push_back({{start, stop}, m.index});
            startOffset = stop;
        }
        if (startOffset != sentence.size())
            parts.push_back({{startOffset, sentence.size()}, std::nullopt});
        for (const auto& [off, index] : parts) {
            Split s;
            s.ns = ns.slice(off.first, off.second);
            if (s.ns.empty())
                continue;
            if (index) {
                s.hasTokens = true;
                s.addedValue = s.ns.norm;
                s.tokens.push_back({m_added[*index].id, 0, static_cast<uint32_t>(s.ns.norm.size())});
            }
            out.push_back(std::move(s));
        }
    }

    std::string vocabString(int32_t id) const
    {
        if (const auto* t = m_model->idToToken(id))
            return *t;
        if (const auto it = m_addedIndex.find(id); it != m_addedIndex.end())
            return m_added[it->second].vocabString;
        return {};
    }

    std::unique_ptr<Normalizer> m_normalizer;
    std::unique_ptr<PreTokenizer> m_preTokenizer;
    std::unique_ptr<Decoder> m_decoder;
    std::unique_ptr<PostProcessor> m_postProcessor;
    std::unique_ptr<BpeModel> m_model;
    bool m_byteLevel = false;
    std::vector<AddedTok> m_added;
    std::unordered_map<int32_t, std::size_t> m_addedIndex;
    StrIdMap m_addedByContent;
    AddedMatcher m_rawMatcher, m_normMatcher;
    std::optional<int32_t> m_bos, m_eos;
    std::optional<bool> m_configAddBos, m_configAddEos;
};

} // namespace

std::shared_ptr<const Tokenizer> Tokenizer::fromFile(const std::filesystem::path& tokenizerJson)
{
    return fromFile(tokenizerJson, TokenizerOptions{});
}

std::shared_ptr<const Tokenizer> Tokenizer::fromFile(const std::filesystem::path& tokenizerJson,
                                                     const TokenizerOptions& options)
{
    return std::make_shared<const TokenizerImpl>(tokenizerJson, options);
}

std::shared_ptr<const Tokenizer> Tokenizer::fromJson(const std::string& json, const std::string& name,
                                                     const TokenizerOptions& options)
{
    return std::make_shared<const TokenizerImpl>(json, name, options);
}

std::shared_ptr<const Tokenizer> Tokenizer::fromModelDir(const std::filesystem::path& dir)
{
    return fromModelDir(dir, TokenizerOptions{});
}

std::shared_ptr<const Tokenizer> Tokenizer::fromModelDir(const std::filesystem::path& dir,
                                                         const TokenizerOptions& options)
{
    if (!std::filesystem::is_directory(dir))
        throw ModelError("model folder not found: " + dir.string());
    const auto file = dir / "tokenizer.json";
    if (!std::filesystem::exists(file))
        throw ModelError("no tokenizer.json in model folder " + dir.string() +
                         " (only Hugging Face fast tokenizers are supported)");
    return fromFile(file, options);
}

std::optional<std::string> Tokenizer::vocabToken(int32_t) const
{
    return std::nullopt;
}

} // namespace ascviz

// Internal building blocks of the tokenizer.json implementation (not part of the public contract).
// The pipeline mirrors Hugging Face `tokenizers`: added-token extraction -> normalizer -> pre-tokenizer ->
// model (BPE) -> post-processor, with a NormStr (their NormalizedString) carrying, for every byte of the
// normalized text, the [start, end) byte span of the original text it came from.
#pragma once
#include "ascviz/base/error.h"
#include "ascviz/base/utf8.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ascviz::tok {

using Json = nlohmann::json;

// ---------------------------------------------------------------------------------------------- UTF-8
// Length of the UTF-8 sequence starting with `lead` (1 for continuation/invalid bytes).
inline std::size_t utf8Len(unsigned char lead)
{
    if (lead < 0x80)
        return 1;
    if ((lead & 0xE0) == 0xC0)
        return 2;
    if ((lead & 0xF0) == 0xE0)
        return 3;
    if ((lead & 0xF8) == 0xF0)
        return 4;
    return 1;
}
// Decodes the (valid) code point at byte i of s; *len receives its byte length.
char32_t decodeUtf8(std::string_view s, std::size_t i, std::size_t* len);
using ascviz::appendUtf8; // base/utf8.h
std::string utf8(char32_t c);
// Unicode White_Space (Rust's char::is_whitespace / regex \s).
bool isWhiteSpace(char32_t c);
// Rust regex \w (alphanumeric, marks, connector punctuation, join controls).
bool isWordChar(char32_t c);
// tokenizers' is_punc: ASCII punctuation or a Unicode punctuation category (Pc Pd Ps Pe Pi Pf Po).
bool isPunctuation(char32_t c);
// Rust's String::from_utf8_lossy: each maximal invalid subsequence becomes U+FFFD.
std::string utf8Lossy(std::string_view bytes);

// The GPT-2 byte <-> printable-character table used by ByteLevel components.
struct ByteLevelTable {
    std::array<char32_t, 256> byteToChar{};
    std::unordered_map<char32_t, unsigned char> charToByte;
    std::array<std::string, 256> byteToUtf8; // utf8(byteToChar[b])
    static const ByteLevelTable& get();
    // Maps a byte-level token ("Ġdef") to its raw bytes (" def"); nullopt when a char is outside the table.
    std::optional<std::string> decode(std::string_view token) const;
};

// ---------------------------------------------------------------------------------------------- regex
// PCRE2 (UTF + UCP, JIT when available). Shared between threads; match state is per call.
class Regex {
public:
    explicit Regex(const std::string& pattern);
    ~Regex();
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;
    // Non-overlapping matches left to right (as Oniguruma's find_iter used by `tokenizers`).
    void findAll(std::string_view s, std::vector<std::pair<std::size_t, std::size_t>>& out) const;
    const std::string& pattern() const { return m_pattern; }

private:
    std::string m_pattern;
    void* m_code = nullptr; // pcre2_code_8*
    bool m_jit = false;
};

// A `tokenizers` Pattern: a literal string or a regex; `invert` flips matches and gaps.
struct Pattern {
    std::string literal;
    std::shared_ptr<Regex> regex;
    bool invert = false;
    // (start, end, isMatch) covering the whole input (["(0,0) false"] for an empty input).
    std::vector<std::tuple<std::size_t, std::size_t, bool>> findMatches(std::string_view s) const;
    static Pattern fromJson(const Json& j, const char* component);
};

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
SplitBehavior parseBehavior(const std::string& s, const char* component);

// ------------------------------------------------------------------------------------- NormStr
struct Align {
    uint32_t start = 0, end = 0; // absolute byte offsets into the original text
};

// One (char, change) step of a transformation, as NormalizedString::transform: change 0 replaces the
// current char, +1 inserts a new char, -N replaces the current char and removes the N following ones.
struct Change {
    char32_t c;
    int change;
};

struct NormStr {
    std::string norm;
    std::vector<Align> align; // one per byte of norm
    std::size_t origStart = 0, origEnd = 0;

    static NormStr fromOriginal(std::string_view text, std::size_t base);
    bool empty() const { return norm.empty(); }
    // Original span of normalized bytes [s, e) (s < e).
    std::pair<std::size_t, std::size_t> originalSpan(std::size_t s, std::size_t e) const
    {
        return {align[s].start, align[e - 1].end};
    }
    void transformRange(std::size_t nStart, std::size_t nEnd, const std::vector<Change>& dest,
                        std::size_t initialOffset);
    void transform(const std::vector<Change>& dest, std::size_t initialOffset)
    {
        transformRange(0, norm.size(), dest, initialOffset);
    }
    NormStr slice(std::size_t s, std::size_t e) const;
    void prepend(std::string_view s);
    void append(std::string_view s);
    // Replaces every match of the pattern by `content` (linear, same alignments as tokenizers).
    void replace(const Pattern& p, std::string_view content);
    void lrstrip(bool left, bool right);
    std::vector<NormStr> split(const Pattern& p, SplitBehavior behavior) const;
    // The same with the (start, end, isMatch) pieces given, covering the whole string in order.
    std::vector<NormStr> split(const std::vector<std::tuple<std::size_t, std::size_t, bool>>& matches,
                               SplitBehavior behavior) const;
};

struct TokenOut {
    int32_t id;
    uint32_t start, end; // byte offsets inside the split's normalized string
};

struct Split {
    NormStr ns;
    bool hasTokens = false;
    std::vector<TokenOut> tokens; // set for added tokens
    std::string addedValue;       // the matched text of an added token
};

// ------------------------------------------------------------------------------------- components
class Normalizer {
public:
    virtual ~Normalizer() = default;
    virtual void normalize(NormStr& s) const = 0;
};
std::unique_ptr<Normalizer> makeNormalizer(const Json& j);

class PreTokenizer {
public:
    virtual ~PreTokenizer() = default;
    virtual void preTokenize(std::vector<Split>& splits) const = 0;
    virtual bool isByteLevel() const { return false; }
};
// `byteLevel` is set when the pre-tokenizer ends with ByteLevel (the model then works on raw bytes).
std::unique_ptr<PreTokenizer> makePreTokenizer(const Json& j, bool& byteLevel);

class Decoder {
public:
    virtual ~Decoder() = default;
    // `piece`: decoding one token as it appears inside a stream (no first-token stripping, no lossy UTF-8).
    virtual void decodeChain(std::vector<std::string>& tokens, bool piece) const = 0;
};
std::unique_ptr<Decoder> makeDecoder(const Json& j);

struct EncodingBuf {
    std::vector<int32_t> ids;
    std::vector<std::pair<std::size_t, std::size_t>> offsets;
    std::vector<std::string> tokens;
    std::vector<bool> special;
};

class PostProcessor {
public:
    virtual ~PostProcessor() = default;
    virtual void process(EncodingBuf& e, bool addSpecialTokens) const = 0;
    // The id prepended when addSpecialTokens is set, if any.
    virtual std::optional<int32_t> leadingSpecial() const { return std::nullopt; }
};
std::unique_ptr<PostProcessor> makePostProcessor(const Json& j);

// ------------------------------------------------------------------------------------- BPE model
struct TransparentHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using StrIdMap = std::unordered_map<std::string, int32_t, TransparentHash, std::equal_to<>>;

class BpeModel {
public:
    BpeModel(const Json& model, bool byteLevel, bool cacheEnabled, std::size_t cacheCapacity);
    ~BpeModel();
    // Appends the tokens of one pre-token (offsets relative to `word`).
    void tokenize(std::string_view word, std::vector<TokenOut>& out) const;
    std::optional<int32_t> tokenToId(std::string_view vocabToken) const;
    const std::string* idToToken(int32_t id) const;
    std::size_t vocabSize() const { return m_vocab.size(); }
    int32_t maxId() const { return static_cast<int32_t>(m_idToToken.size()) - 1; }

private:
    struct Piece {
        int32_t id;
        uint32_t len;
    };
    void mergeWord(std::string_view word, std::vector<Piece>& pieces) const;
    std::optional<int32_t> keyId(std::string_view key) const;

    bool m_byteLevel;
    StrIdMap m_vocab;                     // vocabulary strings as in tokenizer.json
    StrIdMap m_keys;                      // lookup keys (raw bytes for byte-level models)
    std::vector<std::string> m_idToToken; // id -> vocabulary string
    std::array<int32_t, 256> m_byteIds{}; // byte-level: id of each single byte (-1 if none)
    std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> m_merges; // (a,b) -> (rank, new id)
    std::optional<int32_t> m_unk;
    bool m_fuseUnk = false, m_byteFallback = false, m_ignoreMerges = false;
    std::string m_prefix, m_suffix; // continuing_subword_prefix / end_of_word_suffix (key space)
    std::array<int32_t, 256> m_fallbackIds{};

    struct Cache;
    std::unique_ptr<Cache> m_cache;
};

} // namespace ascviz::tok

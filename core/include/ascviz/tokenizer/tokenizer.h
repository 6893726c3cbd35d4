// Hugging Face tokenizer.json, reproduced exactly (ids, UTF-8 byte offsets, decode). No torch, no Qt.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ascviz {

struct Encoding {
    std::vector<int32_t> ids;
    // [start, end) UTF-8 byte offsets into the encoded text, one per id. Special tokens added by
    // add_special_tokens (e.g. BOS) have the empty span [0, 0).
    std::vector<std::pair<std::size_t, std::size_t>> offsets;
    std::vector<std::string> tokens; // vocabulary strings, as Hugging Face's `tokens`
    std::vector<bool> special;       // true for added special tokens
};

// Loading options. The cache maps pre-tokens to their BPE pieces (thread-safe, bounded); disabling it
// only costs speed (benchmarks use that), never changes results.
struct TokenizerOptions {
    bool cache = true;
    std::size_t cacheCapacity = 100000; // pre-tokens kept (pre-tokens of 256 bytes or more are never cached)
};

// Immutable after loading; encode/decode are const and safe to call from several threads.
class Tokenizer {
public:
    // Loads tokenizer.json; tokenizer_config.json next to it (if present) supplies BOS/EOS/add_bos_token.
    static std::shared_ptr<const Tokenizer> fromFile(const std::filesystem::path& tokenizerJson);
    // Loads <dir>/tokenizer.json (+ tokenizer_config.json).
    static std::shared_ptr<const Tokenizer> fromModelDir(const std::filesystem::path& dir);
    static std::shared_ptr<const Tokenizer> fromFile(const std::filesystem::path& tokenizerJson,
                                                     const TokenizerOptions& options);
    static std::shared_ptr<const Tokenizer> fromModelDir(const std::filesystem::path& dir,
                                                         const TokenizerOptions& options);
    // The text of a tokenizer.json held in memory (no tokenizer_config.json); `name` names it in errors.
    static std::shared_ptr<const Tokenizer> fromJson(const std::string& json, const std::string& name,
                                                     const TokenizerOptions& options = {});
    // Errors: InputError when the file is missing/unreadable, ModelError when a model folder has no
    // tokenizer.json, TokenizerError for malformed JSON or a component that is not implemented (named).

    virtual ~Tokenizer() = default;

    // Throws InputError for invalid UTF-8. addSpecialTokens applies the post-processor (e.g. BOS).
    virtual Encoding encode(std::string_view text, bool addSpecialTokens = false) const = 0;
    virtual std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens = false) const = 0;

    // The decoded text of a single token as it appears in the stream (may be a partial UTF-8 sequence
    // for byte-level tokens; callers that show it should use offsets into the text instead).
    virtual std::string idToToken(int32_t id) const = 0;
    // `token` is a vocabulary string as in tokenizer.json (e.g. "\u0120def", "<0x0A>", "<|endoftext|>").
    virtual std::optional<int32_t> tokenToId(std::string_view token) const = 0;
    // The vocabulary string of an id (Hugging Face's id_to_token: "\u0120def", "<0x0A>"); nullopt if unknown.
    virtual std::optional<std::string> vocabToken(int32_t id) const;
    virtual std::size_t vocabSize() const = 0;

    virtual std::optional<int32_t> bosId() const = 0;
    virtual std::optional<int32_t> eosId() const = 0;
    // Whether encode(..., true) prepends BOS (Llama family).
    virtual bool addsBos() const = 0;
};

} // namespace ascviz

// The one UTF-8 codec of core (and of ui, which converts to QString positions in ui/common/textpos only).
// Offsets in core are UTF-8 byte offsets everywhere.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ascviz {

enum class Utf8Status {
    Ok,        // a well-formed code point of `length` bytes
    Invalid,   // ill-formed: `length` is the maximal subpart (>= 1 byte) that one U+FFFD replaces
    Truncated, // a well-formed prefix cut off by the end of the input (`length` = the bytes present)
};
struct Utf8Step {
    char32_t codePoint = 0xFFFD; // U+FFFD unless status is Ok
    std::size_t length = 1;
    Utf8Status status = Utf8Status::Ok;
};

// Decodes the code point starting at byte i < s.size() (Unicode's "maximal subpart" rule: no overlongs,
// no surrogates, nothing above U+10FFFF).
Utf8Step decodeUtf8(std::string_view s, std::size_t i);
// Lossy iteration: the code point at i (U+FFFD for an ill-formed or truncated sequence) and advances i.
char32_t nextCodePoint(std::string_view s, std::size_t& i);
void appendUtf8(std::string& out, char32_t cp);
// The start of the code point containing byte b (b itself when it is not a continuation byte).
std::size_t utf8Floor(std::string_view s, std::size_t b);

// Byte offset of the first invalid UTF-8 sequence, or nullopt when `s` is valid UTF-8.
std::optional<std::size_t> findInvalidUtf8(std::string_view s);

// Throws InputError "<path> is not valid UTF-8 (first invalid byte at offset N)" (the context holds the path
// and the offset) when `data`, read from `path`, is not UTF-8 ("-" is named standard input). The one check
// of a text file's encoding: the CLI (readUtf8File) and the GUI's open-file paths give the same line.
void requireUtf8(std::string_view data, const std::filesystem::path& path);

// Reads a whole file as UTF-8 text; throws InputError naming the file (and the byte offset of the first
// invalid sequence) when it is missing, unreadable, not UTF-8 or over limits::kMaxInputFileBytes. "-" reads
// standard input.
std::string readUtf8File(const std::filesystem::path& path);
// The bytes of a whole file, no more than `maxBytes`: InputError "<what> <path> is over the limit of <maxBytes>
// bytes" for a longer one, naming the file when it is missing or unreadable. "-" reads standard input.
std::string readFileBounded(const std::filesystem::path& path, std::size_t maxBytes, const std::string& what);
// The same, reading no more than `maxBytes` (a file without end, such as /dev/zero or a pipe, does not grow a
// string without bound): InputError "<what> <path> is over the limit of <maxBytes> bytes" for a longer one.
std::string readUtf8File(const std::filesystem::path& path, std::size_t maxBytes, const std::string& what);

} // namespace ascviz

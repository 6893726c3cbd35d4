// UTF-8 helpers. Offsets in core are UTF-8 byte offsets everywhere.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ascviz {

// Byte offset of the first invalid UTF-8 sequence, or nullopt when `s` is valid UTF-8.
std::optional<std::size_t> findInvalidUtf8(std::string_view s);

// Reads a whole file as UTF-8 text; throws InputError naming the file (and the byte offset of the first
// invalid sequence) when it is missing, unreadable or not UTF-8. "-" reads standard input.
std::string readUtf8File(const std::filesystem::path& path);

} // namespace ascviz

// A model folder's identity, cheap to compute (no GBs hashed): the checksum a session file keeps of the model
// that scored it, so that reopening it with another model (or the same name with other weights) is noticed.
// Torch-free.
#pragma once
#include <filesystem>
#include <string>

namespace ascviz {

// SHA-256 (64 hex digits) over, in this order: config.json; tokenizer.json when present; every *.index.json
// (shard indexes); and for every weight file (*.safetensors, *.bin), by name: its name, its size, its
// safetensors header (length and JSON, every tensor's name, dtype, shape and offsets) when it has one, and
// the first and last 64 KiB of its data (a .bin is a zip whose last bytes list every tensor file's CRC-32).
// Reads at most a few MB whatever the model's size. Throws ModelError when config.json cannot be read.
std::string modelFingerprint(const std::filesystem::path& dir);

} // namespace ascviz

// Memory-mapped safetensors files (torch-free). The header is validated when the file is opened: a
// truncated or corrupt file is a ModelError naming the file and what is wrong, never a crash later.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ascviz::model {

// A private memory mapping of a whole file (copy on write: writes stay in this process, the file never changes);
// unmapped on destruction.
class MappedFile {
public:
    explicit MappedFile(const std::filesystem::path& path);
    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const unsigned char* data() const { return m_data; }
    std::size_t size() const { return m_size; }
    const std::filesystem::path& path() const { return m_path; }
    // Whether the mapping may be written (copy on write); false where the system refused a writable mapping.
    bool writable() const { return m_writable; }
    // Whether [p, p + n) lies inside the mapping.
    bool contains(const void* p, std::size_t n) const;
    // Drops the pages of [p, p + n) from this process's resident set (madvise MADV_DONTNEED on the read-only
    // mapping; loading only, before anything is written): the data stays valid and is read from the file (the page
    // cache) again when touched.
    void dropPages(const void* p, std::size_t n) const;
    void dropAllPages() const { dropPages(m_data, m_size); }

private:
    std::filesystem::path m_path;
    const unsigned char* m_data = nullptr;
    std::size_t m_size = 0;
    bool m_writable = false;
};

// When [p, p + n) lies inside a live MappedFile: drops the pages wholly inside it from the resident set (madvise
// MADV_DONTNEED; they are read from the file again when touched) and returns the bytes dropped; 0 for any other
// memory. Only for a range never written since it was mapped: a written (copied) page would revert to the file.
std::size_t dropFileMappedPages(const void* p, std::size_t n);

// Throws ModelError naming a mapped file that became shorter than its mapping since it was opened (truncated or
// replaced on disk): reading its lost pages would be a SIGBUS. Called before each forward pass of the model; a read
// that races past it ends the process with the file named and exit status 1 (a SIGBUS handler), never a signal.
void checkMappedFilesIntact();

struct TensorEntry {
    std::string dtype; // safetensors dtype code: F32, F16, BF16, F64, I64, ...
    std::vector<int64_t> shape;
    const void* data = nullptr; // into the mapping
    std::size_t bytes = 0;
};

// The tensors of a whole safetensors file held in memory (8-byte little-endian header length, JSON header,
// data); TensorEntry::data points into `data`. `name` names the file in errors. Throws ModelError for a
// truncated or corrupt file, whatever the bytes; every entry's bytes lie inside the data section and match
// its shape and dtype.
std::map<std::string, TensorEntry> parseSafetensors(const unsigned char* data, std::size_t size,
                                                    const std::string& name);

// A shard index (model.safetensors.index.json, pytorch_model.bin.index.json): tensor name → shard file, and
// the shard files. Throws ModelError naming `name` unless it is a JSON object with a weight_map object of
// strings, each a relative file name inside the checkpoint folder (no absolute path, no "..").
struct ShardIndex {
    std::map<std::string, std::string> weightMap;
    std::set<std::string> files;
};
ShardIndex parseShardIndex(std::string_view json, const std::string& name);

// One .safetensors file: its mapping and its tensors by name.
class SafetensorsFile {
public:
    explicit SafetensorsFile(const std::filesystem::path& path);

    const std::map<std::string, TensorEntry>& tensors() const { return m_tensors; }
    const std::filesystem::path& path() const { return m_file.path(); }
    const MappedFile& mapping() const { return m_file; }

private:
    MappedFile m_file;
    std::map<std::string, TensorEntry> m_tensors;
};

// Bytes per element of a safetensors dtype code; 0 when unknown.
std::size_t safetensorsElementSize(const std::string& dtype);

std::string shapeString(const std::vector<int64_t>& shape);

} // namespace ascviz::model

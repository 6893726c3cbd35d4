#include "formats/safetensors.h"

#include "ascviz/base/error.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ascviz::model {
namespace {

// The live mappings (start → size), so that dropFileMappedPages can tell a file mapping from any other memory.
struct Registry {
    std::mutex mutex;
    std::map<uintptr_t, std::size_t> ranges;
    struct File {
        std::filesystem::path path;
        std::size_t size; // mapped
        dev_t device;     // the file mapped; a file replaced under the same name (another inode) leaves the
        ino_t inode;      // mapping valid
    };
    std::map<uintptr_t, File> files; // by the mapping's start
};

Registry& registry()
{
    static Registry* r = new Registry; // never destroyed: mappings may outlive static destruction
    return *r;
}

// A file that shrinks while it is mapped (truncated by another process) makes any read of its lost pages a SIGBUS,
// deep inside a product (issue 54: `batch --weights checkpoint` died with SIGBUS after 15 snippets). Each call
// into the model first checks the files (checkMappedFilesIntact); a read that still hits a lost page ends the process
// with a message naming the file and exit status 1, not a signal. The handler reads a lock-free table (slots set
// while no fault can be pending on them) and chains to the handler it replaced for any other address.
struct FaultSlot {
    std::atomic<uintptr_t> start{0};
    std::atomic<std::size_t> size{0};
    char path[512] = {};
};
constexpr std::size_t kFaultSlots = 256;
FaultSlot g_faultSlots[kFaultSlots];
struct sigaction g_previousBus {};

void writeAll(const char* s, std::size_t n)
{
    while (n > 0) {
        const ssize_t w = ::write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= static_cast<std::size_t>(w);
    }
}

void onBusError(int sig, siginfo_t* info, void* context)
{
    const auto a = reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr);
    for (const FaultSlot& slot : g_faultSlots) {
        const uintptr_t lo = slot.start.load(std::memory_order_acquire);
        if (lo != 0 && a >= lo && a - lo < slot.size.load(std::memory_order_acquire)) {
            static const char head[] = "ascviz: error: ";
            static const char tail[] = " became shorter while the model was reading it (truncated or replaced "
                                       "on disk); restore the file and load the model again\n";
            writeAll(head, sizeof head - 1);
            writeAll(slot.path, std::strlen(slot.path));
            writeAll(tail, sizeof tail - 1);
            ::_exit(1);
        }
    }
    if (g_previousBus.sa_flags & SA_SIGINFO) {
        if (g_previousBus.sa_sigaction) {
            g_previousBus.sa_sigaction(sig, info, context);
            return;
        }
    } else if (g_previousBus.sa_handler != SIG_DFL && g_previousBus.sa_handler != SIG_IGN) {
        g_previousBus.sa_handler(sig);
        return;
    }
    ::signal(sig, SIG_DFL); // not a mapping of ours: the default action, as before
    ::raise(sig);
}

void watchMapping(const unsigned char* data, std::size_t size, const std::filesystem::path& path)
{
    static std::once_flag installed;
    std::call_once(installed, [] {
        struct sigaction sa {};
        sa.sa_sigaction = onBusError;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGBUS, &sa, &g_previousBus);
    });
    for (FaultSlot& slot : g_faultSlots) {
        if (slot.start.load(std::memory_order_acquire) != 0)
            continue;
        const std::string p = path.string();
        const std::size_t n = std::min(p.size(), sizeof slot.path - 1);
        std::memcpy(slot.path, p.data(), n);
        slot.path[n] = '\0';
        slot.size.store(size, std::memory_order_release);
        slot.start.store(reinterpret_cast<uintptr_t>(data), std::memory_order_release);
        return;
    }
    // More than kFaultSlots files mapped at once: the extra ones fall back to the checks before each call.
}

void unwatchMapping(const unsigned char* data)
{
    for (FaultSlot& slot : g_faultSlots)
        if (slot.start.load(std::memory_order_acquire) == reinterpret_cast<uintptr_t>(data)) {
            slot.start.store(0, std::memory_order_release);
            slot.size.store(0, std::memory_order_release);
        }
}

} // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : m_path(path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw ModelError("cannot open " + path.string() + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw ModelError("cannot read " + path.string() + ": " + std::strerror(err));
    }
    m_size = static_cast<std::size_t>(st.st_size);
    if (m_size > 0) {
        // Private and writable: an in-place write to a tensor taken from the mapping copies that page (copy on
        // write) and never reaches the file. Where the system refuses to reserve that much writable memory, the
        // mapping is read-only and the weight store copies what it takes (writable() is false).
        void* p = ::mmap(nullptr, m_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        m_writable = p != MAP_FAILED;
        if (p == MAP_FAILED)
            p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd);
            throw ModelError("cannot map " + path.string() + " into memory: " + std::strerror(err));
        }
        m_data = static_cast<const unsigned char*>(p);
        std::lock_guard<std::mutex> lock(registry().mutex);
        registry().ranges[reinterpret_cast<uintptr_t>(m_data)] = m_size;
        registry().files[reinterpret_cast<uintptr_t>(m_data)] = {m_path, m_size, st.st_dev, st.st_ino};
        watchMapping(m_data, m_size, m_path);
    }
    ::close(fd);
}

MappedFile::~MappedFile()
{
    if (m_data) {
        std::lock_guard<std::mutex> lock(registry().mutex);
        registry().ranges.erase(reinterpret_cast<uintptr_t>(m_data));
        registry().files.erase(reinterpret_cast<uintptr_t>(m_data));
        unwatchMapping(m_data);
        ::munmap(const_cast<unsigned char*>(m_data), m_size);
    }
}

bool MappedFile::contains(const void* p, std::size_t n) const
{
    const auto a = reinterpret_cast<uintptr_t>(p);
    const auto lo = reinterpret_cast<uintptr_t>(m_data);
    return m_data && a >= lo && n <= m_size && a - lo <= m_size - n;
}

void checkMappedFilesIntact()
{
    std::lock_guard<std::mutex> lock(registry().mutex);
    for (const auto& [start, file] : registry().files) {
        struct stat now {};
        if (::stat(file.path.c_str(), &now) != 0 || now.st_dev != file.device || now.st_ino != file.inode)
            continue; // removed or replaced: the mapping still holds the old file, whole
        if (static_cast<std::size_t>(now.st_size) < file.size)
            throw ModelError(file.path.string() + " became shorter while the model was using it (" +
                             std::to_string(now.st_size) + " bytes, was " + std::to_string(file.size) +
                             "): it was truncated on disk; restore it and load the model again");
    }
}

std::size_t dropFileMappedPages(const void* p, std::size_t n)
{
    static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto a = reinterpret_cast<uintptr_t>(p);
    std::lock_guard<std::mutex> lock(registry().mutex); // the mapping cannot be unmapped meanwhile
    const auto& ranges = registry().ranges;
    auto it = ranges.upper_bound(a);
    if (it == ranges.begin() || n == 0)
        return 0;
    --it;
    if (a - it->first > it->second || n > it->second - (a - it->first))
        return 0; // not inside one file mapping
    // Only the pages wholly inside [p, p + n): a page shared with a neighbouring tensor may hold its written copy.
    const uintptr_t lo = (a + page - 1) & ~(page - 1);
    const uintptr_t hi = (a + n) & ~(page - 1);
    if (hi <= lo)
        return 0;
    ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
    return hi - lo;
}

void MappedFile::dropPages(const void* p, std::size_t n) const
{
    if (!m_data || n == 0)
        return;
    // Whole pages inside [p, p + n) and the mapping; pages shared with a neighbouring tensor are dropped too (they
    // are read again from the file when touched).
    static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto lo = std::max(reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(m_data)) & ~(page - 1);
    const auto hi = std::min(reinterpret_cast<uintptr_t>(p) + n, reinterpret_cast<uintptr_t>(m_data) + m_size);
    if (hi > lo)
        ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

std::size_t safetensorsElementSize(const std::string& dtype)
{
    if (dtype == "F64" || dtype == "I64" || dtype == "U64")
        return 8;
    if (dtype == "F32" || dtype == "I32" || dtype == "U32")
        return 4;
    if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16")
        return 2;
    if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2")
        return 1;
    return 0;
}

std::string shapeString(const std::vector<int64_t>& shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

SafetensorsFile::SafetensorsFile(const std::filesystem::path& path)
    : m_file(path), m_tensors(parseSafetensors(m_file.data(), m_file.size(), path.string()))
{
}

std::map<std::string, TensorEntry> parseSafetensors(const unsigned char* data, std::size_t size,
                                                    const std::string& name)
{
    if (size < 8)
        throw ModelError(name + " is truncated or not a safetensors file (" + std::to_string(size) + " bytes)");
    uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i)
        headerLen = (headerLen << 8) | data[i]; // little-endian u64
    if (headerLen > size - 8)
        throw ModelError(name + " is truncated or corrupt: its header claims " + std::to_string(headerLen) +
                         " bytes but the file has only " + std::to_string(size - 8) + " after the length field");
    const char* headerStart = reinterpret_cast<const char*>(data + 8);
    nlohmann::json header;
    try {
        header = nlohmann::json::parse(headerStart, headerStart + headerLen);
    } catch (const nlohmann::json::exception& e) {
        throw ModelError(name + " has a corrupt header (not JSON): " + e.what());
    }
    if (!header.is_object())
        throw ModelError(name + " has a corrupt header (not a JSON object)");
    const std::size_t dataStart = 8 + headerLen;
    const std::size_t dataSize = size - dataStart;
    std::map<std::string, TensorEntry> tensors;
    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == "__metadata__")
            continue;
        const auto& v = it.value();
        TensorEntry e;
        try {
            e.dtype = v.at("dtype").get<std::string>();
            // Integers only, as the safetensors library's parser (issue 54: a shape [32.5] was read as [32]).
            const auto integers = [&](const nlohmann::json& a, const char* what) {
                if (!a.is_array() ||
                    !std::all_of(a.begin(), a.end(), [](const auto& x) { return x.is_number_integer(); }))
                    throw ModelError(name + ": tensor " + it.key() + " has a " + what +
                                     " that is not a list of integers: " + a.dump());
            };
            integers(v.at("shape"), "shape");
            integers(v.at("data_offsets"), "data_offsets");
            e.shape = v.at("shape").get<std::vector<int64_t>>();
            if (std::any_of(v.at("data_offsets").begin(), v.at("data_offsets").end(),
                            [](const auto& x) { return x.template get<int64_t>() < 0; }))
                throw ModelError(name + ": tensor " + it.key() + " has negative data_offsets");
            const auto offs = v.at("data_offsets").get<std::vector<uint64_t>>();
            if (offs.size() != 2)
                throw ModelError(name + ": tensor " + it.key() + " has malformed data_offsets");
            const std::size_t elem = safetensorsElementSize(e.dtype);
            if (elem == 0)
                throw ModelError(name + ": tensor " + it.key() + " has unsupported dtype " + e.dtype);
            // numel · elem, refusing a product that does not fit (a wrapped product could match the bytes).
            uint64_t needed = elem;
            bool overflow = false;
            for (auto d : e.shape) {
                if (d < 0)
                    throw ModelError(name + ": tensor " + it.key() + " has a negative dimension");
                overflow |= __builtin_mul_overflow(needed, static_cast<uint64_t>(d), &needed);
            }
            if (offs[1] < offs[0] || offs[1] > dataSize)
                throw ModelError(name + " is truncated or corrupt: tensor " + it.key() + " spans bytes [" +
                                 std::to_string(offs[0]) + ", " + std::to_string(offs[1]) +
                                 ") but the data section has " + std::to_string(dataSize) + " bytes");
            e.bytes = static_cast<std::size_t>(offs[1] - offs[0]);
            if (overflow || e.bytes != needed)
                throw ModelError(name + ": tensor " + it.key() + " of shape " + shapeString(e.shape) + " and dtype " +
                                 e.dtype + " needs " +
                                 (overflow ? std::string("more than 2^64") : std::to_string(needed)) +
                                 " bytes but has " + std::to_string(e.bytes));
            e.data = data + dataStart + offs[0];
        } catch (const nlohmann::json::exception& ex) {
            throw ModelError(name + ": malformed header entry for tensor " + it.key() + ": " + ex.what());
        }
        tensors.emplace(it.key(), std::move(e));
    }
    // The tensors tile the data section: sorted by offset, each starts where the one before ends, and the last ends
    // at the end of the file, as the safetensors library validates (issue 54: q_proj's data_offsets set to o_proj's
    // loaded, and gave other numbers).
    std::vector<std::pair<const unsigned char*, const std::string*>> spans;
    for (const auto& [key, e] : tensors)
        spans.emplace_back(static_cast<const unsigned char*>(e.data), &key);
    std::sort(spans.begin(), spans.end(), [&](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : tensors.at(*a.second).bytes < tensors.at(*b.second).bytes;
    });
    const unsigned char* next = data + dataStart;
    for (const auto& [at, key] : spans) {
        if (at != next)
            throw ModelError(name + " is corrupt: tensor " + *key + " starts at byte " +
                             std::to_string(at - (data + dataStart)) + " of the data section, where byte " +
                             std::to_string(next - (data + dataStart)) +
                             " was expected (tensors must not overlap or leave gaps)");
        next = at + tensors.at(*key).bytes;
    }
    if (next != data + size)
        throw ModelError(name + " is corrupt: its tensors cover " + std::to_string(next - (data + dataStart)) +
                         " of the data section's " + std::to_string(dataSize) + " bytes");
    return tensors;
}

ShardIndex parseShardIndex(std::string_view json, const std::string& name)
{
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json.begin(), json.end());
    } catch (const nlohmann::json::exception& e) {
        throw ModelError(name + " is not valid JSON: " + e.what());
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
        throw ModelError(name + " has no weight_map");
    ShardIndex index;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
        if (!it.value().is_string())
            throw ModelError(name + ": the weight_map entry of " + it.key() + " is not a file name");
        const auto file = it.value().get<std::string>();
        const std::filesystem::path p(file);
        bool escapes = file.empty() || p.is_absolute() || p.has_root_path();
        for (const auto& part : p)
            escapes |= part == "..";
        if (escapes)
            throw ModelError(name + ": the weight_map entry of " + it.key() + " names '" + file +
                             "', not a file inside the checkpoint folder");
        index.weightMap.emplace(it.key(), file);
        index.files.insert(file);
    }
    return index;
}

} // namespace ascviz::model

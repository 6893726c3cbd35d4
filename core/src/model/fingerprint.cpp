// modelFingerprint (model/fingerprint.h): checksums of a model folder's small files and samples of its
// weight files. Torch-free.
#include "ascviz/model/fingerprint.h"

#include "ascviz/base/error.h"
#include "ascviz/base/sha256.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <vector>

namespace fs = std::filesystem;

namespace ascviz {

namespace {

constexpr std::size_t kSample = 64 * 1024;
constexpr uint64_t kMaxHeader = 100ull * 1024 * 1024; // safetensors' own limit on the header

bool endsWith(const std::string& s, const std::string& tail)
{
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// `size` bytes of `in` from `offset` (fewer at the end of the file).
std::string readAt(std::ifstream& in, uint64_t offset, uint64_t size)
{
    std::string out(std::size_t(size), '\0');
    in.clear();
    in.seekg(std::streamoff(offset));
    in.read(out.data(), std::streamsize(size));
    out.resize(std::size_t(std::max<std::streamsize>(0, in.gcount())));
    return out;
}

// A labelled field: its name, its length and its bytes, so that no two sequences of fields hash alike.
void addField(Sha256& h, const std::string& label, const std::string& bytes)
{
    h.update(label);
    h.update(":" + std::to_string(bytes.size()) + ":");
    h.update(bytes);
}

void addWholeFile(Sha256& h, const fs::path& file, const std::string& label)
{
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw ModelError("cannot read " + file.string() + " (for the model's fingerprint)");
    std::error_code ec;
    addField(h, label, readAt(in, 0, fs::file_size(file, ec)));
}

void addWeightFile(Sha256& h, const fs::path& file)
{
    std::error_code ec;
    const uint64_t size = fs::file_size(file, ec);
    std::ifstream in(file, std::ios::binary);
    if (ec || !in)
        throw ModelError("cannot read " + file.string() + " (for the model's fingerprint)");
    addField(h, "weights", file.filename().string());
    addField(h, "size", std::to_string(size));
    uint64_t data = 0; // where the tensor data starts
    if (endsWith(file.filename().string(), ".safetensors")) {
        const std::string len = readAt(in, 0, 8);
        uint64_t n = 0;
        for (std::size_t i = 0; i < len.size(); ++i)
            n |= uint64_t(static_cast<unsigned char>(len[i])) << (8 * i);
        if (len.size() == 8 && n <= kMaxHeader && 8 + n <= size) {
            data = 8 + n;
            addField(h, "header", readAt(in, 0, data));
        }
    }
    addField(h, "first", readAt(in, data, std::min<uint64_t>(kSample, size - data)));
    const uint64_t lastFrom = std::max<uint64_t>(data, size >= kSample ? size - kSample : 0);
    addField(h, "last", readAt(in, lastFrom, size - lastFrom));
}

} // namespace

std::string modelFingerprint(const fs::path& dir)
{
    Sha256 h;
    addWholeFile(h, dir / "config.json", "config.json");
    std::error_code ec;
    if (fs::is_regular_file(dir / "tokenizer.json", ec))
        addWholeFile(h, dir / "tokenizer.json", "tokenizer.json");
    std::vector<fs::path> indexes, weights;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file(ec)) // follows links (a Hugging Face cache snapshot links its blobs)
            continue;
        if (endsWith(name, ".index.json"))
            indexes.push_back(e.path());
        else if (endsWith(name, ".safetensors") || endsWith(name, ".bin"))
            weights.push_back(e.path());
    }
    std::sort(indexes.begin(), indexes.end());
    std::sort(weights.begin(), weights.end());
    for (const auto& f : indexes)
        addWholeFile(h, f, f.filename().string());
    for (const auto& f : weights)
        addWeightFile(h, f);
    return h.hexDigest();
}

} // namespace ascviz

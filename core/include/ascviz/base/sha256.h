// SHA-256 (FIPS 180-4) of bytes, as lower-case hex: the checksums session files keep of the category table
// and of a model's identity (model/fingerprint.h). Plain C++, no library.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ascviz {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    // The digest as 64 lower-case hex digits. It ends the hash: later updates are ignored.
    std::string hexDigest();

private:
    void block(const unsigned char* p);
    std::array<uint32_t, 8> m_h;
    std::array<unsigned char, 64> m_buf{};
    std::size_t m_used = 0;
    uint64_t m_bytes = 0;
    bool m_done = false;
    std::string m_digest;
};

// SHA-256 of `bytes` as 64 lower-case hex digits.
std::string sha256Hex(std::string_view bytes);

} // namespace ascviz

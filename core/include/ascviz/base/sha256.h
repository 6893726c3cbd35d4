// SHA-256 of bytes, as lower-case hex: the checksums session files keep of the category table and of a
// model's identity (model/fingerprint.h). OpenSSL's libcrypto computes it (EVP).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace ascviz {

class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(const void* data, std::size_t size);
    void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
    // The digest as 64 lower-case hex digits. It ends the hash: later updates are ignored.
    std::string hexDigest();

private:
    struct Ctx;
    std::unique_ptr<Ctx> m_ctx;
    std::string m_digest;
};

// SHA-256 of `bytes` as 64 lower-case hex digits.
std::string sha256Hex(std::string_view bytes);

} // namespace ascviz

#include "ascviz/base/sha256.h"

#include "ascviz/base/error.h"

#include <openssl/evp.h>

namespace ascviz {

struct Sha256::Ctx {
    EVP_MD_CTX* md = nullptr;
    ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : m_ctx(std::make_unique<Ctx>())
{
    m_ctx->md = EVP_MD_CTX_new();
    if (!m_ctx->md || EVP_DigestInit_ex(m_ctx->md, EVP_sha256(), nullptr) != 1)
        throw Error("SHA-256: OpenSSL could not start a digest");
}

Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t size)
{
    if (!m_digest.empty() || size == 0)
        return;
    if (EVP_DigestUpdate(m_ctx->md, data, size) != 1)
        throw Error("SHA-256: OpenSSL could not add " + std::to_string(size) + " bytes");
}

std::string Sha256::hexDigest()
{
    if (!m_digest.empty())
        return m_digest;
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_DigestFinal_ex(m_ctx->md, out, &n) != 1)
        throw Error("SHA-256: OpenSSL could not finish the digest");
    static const char* hex = "0123456789abcdef";
    m_digest.reserve(2 * n);
    for (unsigned int i = 0; i < n; ++i) {
        m_digest.push_back(hex[out[i] >> 4]);
        m_digest.push_back(hex[out[i] & 15]);
    }
    return m_digest;
}

std::string sha256Hex(std::string_view bytes)
{
    Sha256 h;
    h.update(bytes);
    return h.hexDigest();
}

} // namespace ascviz

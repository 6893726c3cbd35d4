// SHA-256 (base/sha256.h) against the FIPS 180-4 example vectors and a split input.
#include "ascviz/base/sha256.h"

#include <gtest/gtest.h>

#include <string>

using namespace ascviz;

TEST(Sha256, PublishedVectors)
{
    EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    // 56 bytes: the padding needs a second block.
    EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // One million 'a' (FIPS 180-2 appendix B.3).
    EXPECT_EQ(sha256Hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, PiecesEqualTheWhole)
{
    const std::string text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq and more bytes after the block";
    for (std::size_t cut = 0; cut <= text.size(); cut += 7) {
        Sha256 h;
        h.update(std::string_view(text).substr(0, cut));
        h.update(std::string_view(text).substr(cut));
        EXPECT_EQ(h.hexDigest(), sha256Hex(text)) << cut;
    }
    Sha256 h;
    h.update("abc");
    const std::string d = h.hexDigest();
    h.update("more"); // ignored once finished
    EXPECT_EQ(h.hexDigest(), d);
}

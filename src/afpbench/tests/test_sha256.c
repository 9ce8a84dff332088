/* sha256.c against the FIPS 180-4 examples (NIST's SHA-256 example
 * vectors: "abc", the 448-bit two-block message, one million 'a') and the
 * empty message, whole and fed in awkward pieces. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sha256.h"

static const char ABC[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char TWO_BLOCK_MSG[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char TWO_BLOCK[] = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
static const char MILLION_A[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
static const char EMPTY[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

static void hex_of(const uint8_t d[SHA256_DIGEST_LEN], char out[SHA256_HEX_LEN + 1])
{
    for (int i = 0; i < SHA256_DIGEST_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static void test_fips_vectors_one_shot(void)
{
    char hex[SHA256_HEX_LEN + 1];
    sha256_hex("abc", 3, hex);
    CHECK_STR(hex, ABC);
    sha256_hex(TWO_BLOCK_MSG, strlen(TWO_BLOCK_MSG), hex);
    CHECK_STR(hex, TWO_BLOCK);
    sha256_hex("", 0, hex);
    CHECK_STR(hex, EMPTY);
    char *a = malloc(1000000);
    CHECK(a != NULL);
    if (a == NULL)
        return;
    memset(a, 'a', 1000000);
    sha256_hex(a, 1000000, hex);
    CHECK_STR(hex, MILLION_A);
    free(a);
}

/* The same digests when the message arrives in pieces that straddle the
 * 64-byte blocks (1, 7, 63, 64, 65 bytes ...). */
static void test_streaming_in_pieces(void)
{
    static const size_t pieces[] = {1, 7, 63, 64, 65, 1000, 4096};
    char block[4096];
    memset(block, 'a', sizeof block);
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        struct sha256 c;
        uint8_t d[SHA256_DIGEST_LEN];
        char hex[SHA256_HEX_LEN + 1];
        sha256_init(&c);
        for (size_t done = 0; done < 1000000; done += pieces[k]) {
            size_t n = 1000000 - done < pieces[k] ? 1000000 - done : pieces[k];
            sha256_update(&c, block, n);
        }
        sha256_final(&c, d);
        hex_of(d, hex);
        CHECK_STR(hex, MILLION_A);

        size_t len = strlen(TWO_BLOCK_MSG);
        sha256_init(&c);
        for (size_t done = 0; done < len; done += pieces[k])
            sha256_update(&c, TWO_BLOCK_MSG + done,
                          len - done < pieces[k] ? len - done : pieces[k]);
        sha256_final(&c, d);
        hex_of(d, hex);
        CHECK_STR(hex, TWO_BLOCK);
    }
}

/* Padding edges: 55 bytes fit the length in the last block, 56 need one
 * more block, 64 is exactly one block (digests from sha256sum). */
static void test_padding_boundaries(void)
{
    char msg[64], hex[SHA256_HEX_LEN + 1];
    memset(msg, 'a', sizeof msg);
    sha256_hex(msg, 55, hex);
    CHECK_STR(hex, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    sha256_hex(msg, 56, hex);
    CHECK_STR(hex, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    sha256_hex(msg, 64, hex);
    CHECK_STR(hex, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

int main(void)
{
    RUN(test_fips_vectors_one_shot);
    RUN(test_streaming_in_pieces);
    RUN(test_padding_boundaries);
    return harness_report();
}

/* SHA-256 (FIPS 180-4), for fingerprinting the server's afp.conf in the
 * results. Streaming (init/update/final) and one-shot forms. */
#ifndef AFPBENCH_SHA256_H
#define AFPBENCH_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32
#define SHA256_HEX_LEN 64 /* lower-case hex, without the NUL */

struct sha256 {
    uint32_t h[8];
    uint64_t total;    /* message bytes so far */
    uint8_t block[64]; /* the partial block */
    size_t used;       /* bytes in block */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, uint8_t digest[SHA256_DIGEST_LEN]);

/* The digest of data as lower-case hex into hex (SHA256_HEX_LEN + 1 bytes). */
void sha256_hex(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

#endif

/* The data the suites write and expect to read back: a pattern that
 * depends on the file offset (and a per-file seed), so a read that returns
 * the wrong bytes, the wrong offset or the wrong file is caught.
 *
 * Every 4 KiB block of a file is the same 4096-byte base block, except its
 * first 8 bytes, which hold (block offset XOR seed mask) big-endian. This
 * makes producing and checking a chunk cost one memcpy/memcmp plus a few
 * stores, so the timed regions stay dominated by the server. */
#ifndef AFPBENCH_PATTERN_H
#define AFPBENCH_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#define PATTERN_BLOCK 4096

/* A reusable source of pattern bytes for chunks of up to max_len bytes. */
struct pattern_buf {
    uint8_t *mem; /* max_len + PATTERN_BLOCK bytes */
    size_t max_len;
    uint32_t seed;
    /* pattern_buf_check: every full_every-th chunk is compared byte for
     * byte, the others by their stamps and one whole block (1, the
     * default: every chunk in full). */
    unsigned full_every;
    unsigned checked; /* chunks checked so far */
};

/* 0, or -1 when out of memory. */
int pattern_buf_init(struct pattern_buf *pb, size_t max_len, uint32_t seed);
void pattern_buf_free(struct pattern_buf *pb);
/* Pointer to len (<= max_len) bytes holding the pattern for file offset
 * `offset`. Valid until the next call. No allocation, no full copy. */
const uint8_t *pattern_buf_at(struct pattern_buf *pb, uint64_t offset, size_t len);

/* Check a chunk read back at file offset `offset` against the pattern of
 * pb's seed: index of the first byte found to differ, or -1. A chunk is
 * compared byte for byte when it is not block-aligned and on every
 * pb->full_every-th call; otherwise every block's 8-byte stamp (its offset
 * and the seed: a wrong offset, a wrong file, zeros or stale data) and one
 * whole block, a different one each call. Uses pb's buffer (as
 * pattern_buf_at). */
long pattern_buf_check(struct pattern_buf *pb, const uint8_t *src, uint64_t offset, size_t len);

/* Write the pattern for [offset, offset + len) into dst. */
void pattern_fill(uint8_t *dst, uint64_t offset, size_t len, uint32_t seed);
/* Index of the first byte of src that differs from the pattern, or -1. */
long pattern_check(const uint8_t *src, uint64_t offset, size_t len, uint32_t seed);

#endif

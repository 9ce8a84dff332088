/* Offset-dependent test data (see pattern.h for the layout). */
#include "pattern.h"

#include <stdlib.h>
#include <string.h>

static uint8_t base_block[PATTERN_BLOCK];
static int base_ready;

static void base_init(void)
{
    if (base_ready)
        return;
    /* Any fixed, non-constant content will do; this one has no zero runs. */
    for (unsigned i = 0; i < PATTERN_BLOCK; i++)
        base_block[i] = (uint8_t)((i * 197u + 89u) ^ (i >> 7));
    base_ready = 1;
}

static uint64_t seed_mask(uint32_t seed)
{
    return ((uint64_t)seed << 32 | seed) ^ 0xA5C3F00DB16B00B5ull;
}

/* Byte k (0..7) of the stamp of the block starting at block_off. */
static uint8_t stamp_byte(uint64_t block_off, unsigned k, uint32_t seed)
{
    return (uint8_t)((block_off ^ seed_mask(seed)) >> (8 * (7 - k)));
}

int pattern_buf_init(struct pattern_buf *pb, size_t max_len, uint32_t seed)
{
    base_init();
    /* Block-aligned, so chunks at aligned offsets suit O_DIRECT (speedtest -L). */
    void *mem;
    if (posix_memalign(&mem, PATTERN_BLOCK, max_len + PATTERN_BLOCK) != 0)
        return -1;
    pb->mem = mem;
    pb->max_len = max_len;
    pb->seed = seed;
    for (size_t j = 0; j < max_len + PATTERN_BLOCK; j += PATTERN_BLOCK) {
        size_t n = max_len + PATTERN_BLOCK - j;
        memcpy(pb->mem + j, base_block, n < PATTERN_BLOCK ? n : PATTERN_BLOCK);
    }
    return 0;
}

void pattern_buf_free(struct pattern_buf *pb)
{
    free(pb->mem);
    pb->mem = NULL;
}

const uint8_t *pattern_buf_at(struct pattern_buf *pb, uint64_t offset, size_t len)
{
    /* mem[j] carries base byte j % 4096, so starting at offset % 4096 lines
     * the base up with the file; only the stamps need rewriting. */
    size_t start = (size_t)(offset % PATTERN_BLOCK);
    uint64_t first_block = offset - start;
    for (size_t j = 0; j < start + len; j += PATTERN_BLOCK) {
        uint64_t block_off = first_block + j;
        for (unsigned k = 0; k < 8; k++)
            pb->mem[j + k] = stamp_byte(block_off, k, pb->seed);
    }
    return pb->mem + start;
}

/* Walk [offset, offset + len) block by block; fill or compare. Each piece
 * is the base block's bytes (copied or compared in place, no staging copy)
 * with the stamp bytes it covers handled one by one. */
static long walk(uint8_t *dst, const uint8_t *src, uint64_t offset, size_t len, uint32_t seed)
{
    base_init();
    size_t done = 0;
    while (done < len) {
        uint64_t pos = offset + done;
        size_t in_block = (size_t)(pos % PATTERN_BLOCK);
        size_t n = PATTERN_BLOCK - in_block;
        if (n > len - done)
            n = len - done;
        /* bytes [0, stamped) of this piece fall on the block's stamp */
        size_t stamped = in_block < 8 ? 8 - in_block : 0;
        if (stamped > n)
            stamped = n;
        if (dst != NULL) {
            for (size_t k = 0; k < stamped; k++)
                dst[done + k] = stamp_byte(pos - in_block, (unsigned)(in_block + k), seed);
            memcpy(dst + done + stamped, base_block + in_block + stamped, n - stamped);
        } else {
            for (size_t k = 0; k < stamped; k++)
                if (src[done + k] != stamp_byte(pos - in_block, (unsigned)(in_block + k), seed))
                    return (long)(done + k);
            const uint8_t *want = base_block + in_block + stamped;
            const uint8_t *got = src + done + stamped;
            if (memcmp(got, want, n - stamped) != 0) {
                size_t k = 0;
                while (got[k] == want[k])
                    k++;
                return (long)(done + stamped + k);
            }
        }
        done += n;
    }
    return -1;
}

void pattern_fill(uint8_t *dst, uint64_t offset, size_t len, uint32_t seed)
{
    walk(dst, NULL, offset, len, seed);
}

long pattern_check(const uint8_t *src, uint64_t offset, size_t len, uint32_t seed)
{
    return walk(NULL, src, offset, len, seed);
}

/* pattern.c: the data written and read back must depend on offset and seed. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pattern.h"

static void test_fill_check_roundtrip(void)
{
    uint8_t buf[10000];
    pattern_fill(buf, 123, sizeof buf, 5);
    CHECK_INT(pattern_check(buf, 123, sizeof buf, 5), -1);
    /* not zeros, not constant */
    int zeros = 0, same = 0;
    for (size_t i = 0; i < sizeof buf; i++) {
        zeros += buf[i] == 0;
        same += i > 0 && buf[i] == buf[i - 1];
    }
    CHECK(zeros < 100);
    CHECK(same < 100);
}

static void test_detects_wrong_offset_seed_and_flip(void)
{
    uint8_t buf[8192];
    pattern_fill(buf, 8192, sizeof buf, 1);
    /* the same bytes claimed for another block-aligned offset */
    CHECK(pattern_check(buf, 0, sizeof buf, 1) >= 0);
    CHECK(pattern_check(buf, 16384, sizeof buf, 1) >= 0);
    /* another file's seed */
    CHECK(pattern_check(buf, 8192, sizeof buf, 2) >= 0);
    /* one flipped byte is found where it is */
    buf[5000] ^= 1;
    CHECK_INT(pattern_check(buf, 8192, sizeof buf, 1), 5000);
}

static void test_buf_at_matches_fill(void)
{
    struct pattern_buf pb;
    CHECK_INT(pattern_buf_init(&pb, 100000, 9), 0);
    static const uint64_t offsets[] = {0, 1, 4095, 4096, 12345, 1048540, 104857600ull - 777};
    uint8_t *want = malloc(100000);
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        size_t len = 100000 - (size_t)(offsets[i] % 5000);
        const uint8_t *got = pattern_buf_at(&pb, offsets[i], len);
        pattern_fill(want, offsets[i], len, 9);
        CHECK_MEM(got, len, want, len);
        CHECK_INT(pattern_check(got, offsets[i], len, 9), -1);
    }
    CHECK_INT((uintptr_t)pattern_buf_at(&pb, 8192, 4096) % PATTERN_BLOCK, 0);
    free(want);
    pattern_buf_free(&pb);
}

/* pattern_buf_check: sampled chunks still catch a wrong offset or seed and
 * any changed stamp, the head and tail of an unaligned chunk, and the body
 * of the block it compares in full; full chunks catch every byte. */
static void test_buf_check(void)
{
    enum { LEN = 1048540 }; /* lantest's chunk: a quantum less 36 bytes */
    struct pattern_buf pb;
    CHECK_INT(pattern_buf_init(&pb, LEN, 7), 0);
    pb.full_every = 4;
    uint8_t *buf = malloc(LEN);
    static const uint64_t offsets[] = {0, LEN, 3 * (uint64_t)LEN, 4096, 100};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        uint64_t off = offsets[i];
        pattern_fill(buf, off, LEN, 7);
        for (unsigned k = 0; k < 8; k++) /* full and sampled calls alike */
            CHECK_INT(pattern_buf_check(&pb, buf, off, LEN), -1);
        /* the same bytes claimed at another offset, or for another file */
        for (unsigned k = 0; k < 8; k++)
            CHECK(pattern_buf_check(&pb, buf, off + 4096, LEN) >= 0);
        pb.seed = 8;
        for (unsigned k = 0; k < 8; k++)
            CHECK(pattern_buf_check(&pb, buf, off, LEN) >= 0);
        pb.seed = 7;
        /* a changed byte in a stamp (every call), in the head or the tail
         * (every call), anywhere (the full calls) */
        size_t head = (size_t)((4096 - off % 4096) % 4096);
        size_t stamp = head + 4096 * 37 + 3, tail = LEN - 2;
        buf[stamp] ^= 0x40;
        for (unsigned k = 0; k < 8; k++)
            CHECK_INT(pattern_buf_check(&pb, buf, off, LEN), (long)stamp);
        buf[stamp] ^= 0x40;
        buf[tail] ^= 1;
        for (unsigned k = 0; k < 8; k++)
            CHECK_INT(pattern_buf_check(&pb, buf, off, LEN), (long)tail);
        buf[tail] ^= 1;
        if (head > 0) {
            buf[head - 1] ^= 1;
            for (unsigned k = 0; k < 8; k++)
                CHECK_INT(pattern_buf_check(&pb, buf, off, LEN), (long)head - 1);
            buf[head - 1] ^= 1;
        }
        size_t body = head + 4096 * 100 + 2000;
        buf[body] ^= 1;
        unsigned found = 0;
        for (unsigned k = 0; k < 8; k++) {
            long bad = pattern_buf_check(&pb, buf, off, LEN);
            CHECK(bad == -1 || bad == (long)body);
            found += bad == (long)body;
        }
        CHECK(found >= 2); /* at least the two full calls of eight */
        buf[body] ^= 1;
    }
    /* by default every chunk is compared in full */
    struct pattern_buf full;
    CHECK_INT(pattern_buf_init(&full, LEN, 7), 0);
    pattern_fill(buf, 0, LEN, 7);
    buf[4096 * 100 + 2000] ^= 1;
    for (unsigned k = 0; k < 4; k++)
        CHECK_INT(pattern_buf_check(&full, buf, 0, LEN), 4096 * 100 + 2000);
    pattern_buf_free(&full);
    free(buf);
    pattern_buf_free(&pb);
}

int main(void)
{
    RUN(test_fill_check_roundtrip);
    RUN(test_detects_wrong_offset_seed_and_flip);
    RUN(test_buf_at_matches_fill);
    RUN(test_buf_check);
    return harness_report();
}

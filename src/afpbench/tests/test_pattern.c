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

int main(void)
{
    RUN(test_fill_check_roundtrip);
    RUN(test_detects_wrong_offset_seed_and_flip);
    RUN(test_buf_at_matches_fill);
    return harness_report();
}

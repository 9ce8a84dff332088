/* The bounded byte writer and reader. */
#include <string.h>

#include "buf.h"
#include "harness.h"

static void test_writer(void)
{
    uint8_t mem[32];
    struct bw w;
    bw_init(&w, mem, sizeof mem);
    bw_u8(&w, 0x01);
    bw_pad_even(&w);
    bw_pad_even(&w); /* already even: no second pad */
    bw_u16(&w, 0x0203);
    bw_u32(&w, 0x04050607);
    bw_u64(&w, 0x08090A0B0C0D0E0Full);
    bw_pstr(&w, "ab");
    bw_zeros(&w, 2);
    bw_put_u16_at(&w, 2, 0xBEEF);
    static const uint8_t want[] = {0x01, 0x00, 0xBE, 0xEF, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,
                                   0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x02, 'a',  'b',  0,    0};
    CHECK(bw_ok(&w));
    CHECK_MEM(w.p, w.len, want, sizeof want);
}

static void test_writer_overflow_is_sticky(void)
{
    uint8_t mem[8];
    memset(mem, 0xEE, sizeof mem);
    struct bw w;
    bw_init(&w, mem, 3);
    bw_u16(&w, 0x1122);
    bw_u16(&w, 0x3344); /* does not fit: nothing written */
    bw_u8(&w, 0x55);    /* would fit, but the writer already failed */
    CHECK(!bw_ok(&w));
    CHECK_INT(w.len, 2);
    CHECK_INT(mem[2], 0xEE);
    char big[300];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    uint8_t m2[512];
    bw_init(&w, m2, sizeof m2);
    bw_pstr(&w, big); /* 299 bytes cannot be a pstring */
    CHECK(!bw_ok(&w));
    bw_init(&w, m2, 4);
    bw_put_u16_at(&w, 0, 1); /* nothing written there yet */
    CHECK(!bw_ok(&w));
}

static void test_reader(void)
{
    static const uint8_t in[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,
                                 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x03, 'x',  'y',  'z'};
    struct br r;
    br_init(&r, in, sizeof in);
    CHECK_INT(br_u8(&r), 0x01);
    CHECK_INT(br_u16(&r), 0x0203);
    CHECK_INT(br_u32(&r), 0x04050607);
    CHECK_INT(br_u64(&r), 0x08090A0B0C0D0E0Fll);
    char s[8];
    br_pstr(&r, s, sizeof s);
    CHECK_STR(s, "xyz");
    CHECK(br_ok(&r));
    CHECK_INT(br_remaining(&r), 0);
    CHECK_INT(br_u8(&r), 0); /* past the end: zero and the flag */
    CHECK(!br_ok(&r));
    CHECK_INT(br_remaining(&r), 0);
}

static void test_reader_bounds(void)
{
    static const uint8_t in[] = {0x05, 'a', 'b'};
    struct br r;
    char s[256];
    br_init(&r, in, sizeof in);
    br_pstr(&r, s, sizeof s); /* claims 5, has 2 */
    CHECK(!br_ok(&r));
    CHECK_STR(s, "");

    static const uint8_t in2[] = {0x03, 'a', 'b', 'c'};
    br_init(&r, in2, sizeof in2);
    br_pstr(&r, s, 3); /* fits the input, not the destination */
    CHECK(!br_ok(&r));

    br_init(&r, in2, sizeof in2);
    br_seek(&r, 4); /* the end itself is a valid position */
    CHECK(br_ok(&r));
    br_seek(&r, 5);
    CHECK(!br_ok(&r));

    br_init(&r, in2, sizeof in2);
    br_skip(&r, (size_t)-1); /* a huge skip must not wrap around */
    CHECK(!br_ok(&r));
    uint8_t dst[4] = {9, 9, 9, 9};
    br_bytes(&r, dst, 4); /* after an error: zeros, nothing read */
    CHECK_INT(dst[0] | dst[1] | dst[2] | dst[3], 0);

    br_init(&r, NULL, 100); /* no buffer: nothing to read */
    CHECK_INT(br_u8(&r), 0);
    CHECK(!br_ok(&r));
}

int main(void)
{
    RUN(test_writer);
    RUN(test_writer_overflow_is_sticky);
    RUN(test_reader);
    RUN(test_reader_bounds);
    return harness_report();
}

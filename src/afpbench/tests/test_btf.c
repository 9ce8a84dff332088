/* btf.c: member offsets from a small BTF blob built here (a struct with an
 * unnamed union holding an unnamed struct, a typedef, a bit field, a
 * forward declaration), every prefix and many corruptions of it (never a
 * crash, never an offset from a damaged blob), and the running kernel's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf.h"
#include "harness.h"
#include "procfile.h"

struct builder {
    unsigned char types[512];
    size_t types_len;
    char strs[256];
    size_t strs_len;
};

static uint32_t str(struct builder *b, const char *s)
{
    uint32_t off = (uint32_t)b->strs_len;
    memcpy(b->strs + b->strs_len, s, strlen(s) + 1);
    b->strs_len += strlen(s) + 1;
    return off;
}

static void u32(struct builder *b, uint32_t v)
{
    memcpy(b->types + b->types_len, &v, 4);
    b->types_len += 4;
}

/* A type record: name, kind, vlen, kind_flag, size or type. */
static void type(struct builder *b, uint32_t name, uint32_t kind, uint32_t vlen, int flag,
                 uint32_t size_or_type)
{
    u32(b, name);
    u32(b, vlen | kind << 24 | (uint32_t)flag << 31);
    u32(b, size_or_type);
}

static void member(struct builder *b, uint32_t name, uint32_t type_id, uint32_t bit_offset)
{
    u32(b, name);
    u32(b, type_id);
    u32(b, bit_offset);
}

/* The blob: header, types, strings. Types, by id:
 *   1 int (4 bytes)
 *   2 struct outer { int a; union { int b; struct { int c; int d; }; }; int e:3; } (size 16)
 *   3 union { int b; struct 4; } (size 8)
 *   4 struct { int c; int d; } (size 8)
 *   5 typedef outer_t -> 2
 *   6 struct outer, a forward declaration (no members)
 *   7 struct holder { outer_t x; (at 8) } */
static size_t build(unsigned char *out, size_t cap)
{
    struct builder b = {.strs_len = 1}; /* string 0 is "" */
    uint32_t s_int = str(&b, "int"), s_outer = str(&b, "outer"), s_a = str(&b, "a"),
             s_b = str(&b, "b"), s_c = str(&b, "c"), s_d = str(&b, "d"), s_e = str(&b, "e"),
             s_t = str(&b, "outer_t"), s_holder = str(&b, "holder"), s_x = str(&b, "x");
    type(&b, s_int, 1, 0, 0, 4);
    u32(&b, 32); /* int encoding: 32 bits */
    type(&b, s_outer, 4, 3, 1, 16);
    member(&b, s_a, 1, 0);
    member(&b, 0, 3, 32);
    member(&b, s_e, 1, 3u << 24 | 96); /* a bit field of 3 bits at bit 96 */
    type(&b, 0, 5, 2, 0, 8);
    member(&b, s_b, 1, 0);
    member(&b, 0, 4, 0);
    type(&b, 0, 4, 2, 0, 8);
    member(&b, s_c, 1, 0);
    member(&b, s_d, 1, 32);
    type(&b, s_t, 8, 0, 0, 2);
    type(&b, s_outer, 7, 0, 0, 0);
    type(&b, s_holder, 4, 1, 0, 24);
    member(&b, s_x, 5, 64);
    uint32_t hdr[6];
    uint16_t magic = 0xeB9F;
    memcpy(hdr, &magic, 2);
    ((unsigned char *)hdr)[2] = 1; /* version */
    ((unsigned char *)hdr)[3] = 0;
    hdr[1] = 24;
    hdr[2] = 0;
    hdr[3] = (uint32_t)b.types_len;
    hdr[4] = (uint32_t)b.types_len;
    hdr[5] = (uint32_t)b.strs_len;
    size_t n = 24 + b.types_len + b.strs_len;
    if (n > cap)
        return 0;
    memcpy(out, hdr, 24);
    memcpy(out + 24, b.types, b.types_len);
    memcpy(out + 24 + b.types_len, b.strs, b.strs_len);
    return n;
}

static void test_members(void)
{
    static unsigned char blob[1024];
    size_t n = build(blob, sizeof blob);
    CHECK(n > 0);
    struct btf_field f[] = {
        {"outer", "a", 0}, {"outer", "b", 0},  {"outer", "c", 0},  {"outer", "d", 0},
        {"outer", "e", 0}, {"outer", "zz", 0}, {"holder", "x", 0}, {"nosuch", "a", 0},
    };
    CHECK_INT(btf_find_fields(blob, n, f, sizeof f / sizeof f[0]), 3);
    CHECK_INT(f[0].offset, 0);
    CHECK_INT(f[1].offset, 4); /* in the unnamed union at 4 */
    CHECK_INT(f[2].offset, 4); /* its unnamed struct at 0 within it */
    CHECK_INT(f[3].offset, 8);
    CHECK_INT(f[4].offset, -1); /* a bit field is not found */
    CHECK_INT(f[5].offset, -1);
    CHECK_INT(f[6].offset, 8);
    CHECK_INT(f[7].offset, -1);
}

static void test_damaged(void)
{
    static unsigned char blob[1024], bad[1024];
    size_t n = build(blob, sizeof blob);
    struct btf_field f = {"outer", "d", 0};
    /* every prefix: never a crash; only the whole blob has the member */
    for (size_t len = 0; len < n; len++) {
        memcpy(bad, blob, len);
        int r = btf_find_fields(bad, len, &f, 1);
        if (!CHECK(r != 0 && f.offset == -1))
            printf("  prefix of %zu bytes gave %d, offset %ld\n", len, r, f.offset);
    }
    /* every byte flipped in turn: never a crash, never a read outside */
    for (size_t i = 0; i < n; i++) {
        memcpy(bad, blob, n);
        bad[i] ^= 0xff;
        btf_find_fields(bad, n, &f, 1);
    }
    /* a bad magic, a header longer than the blob, sections past its end */
    memcpy(bad, blob, n);
    bad[0] ^= 1;
    CHECK_INT(btf_find_fields(bad, n, &f, 1), -1);
    uint32_t v = 0xffffffff;
    for (size_t at = 4; at <= 20; at += 4) {
        memcpy(bad, blob, n);
        memcpy(bad + at, &v, 4);
        CHECK_INT(btf_find_fields(bad, n, &f, 1), -1);
    }
    CHECK_INT(btf_find_fields(NULL, 0, &f, 1), -1);
}

static void test_running_kernel(void)
{
    size_t len = 0;
    unsigned char *btf =
        (unsigned char *)procfile_slurp("/sys/kernel/btf/vmlinux", 64u << 20, &len);
    if (btf == NULL) {
        printf("  (no /sys/kernel/btf/vmlinux here: the kernel's offsets are not checked)\n");
        return;
    }
    struct btf_field f[] = {{"task_struct", "files", 0},
                            {"file", "f_inode", 0},
                            {"inode", "i_mode", 0},
                            {"sock_common", "skc_family", 0}};
    CHECK_INT(btf_find_fields(btf, len, f, sizeof f / sizeof f[0]), 0);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        CHECK(f[i].offset >= 0 && f[i].offset < 16384);
    /* i_mode is the first member of struct inode on every kernel since 2.6 */
    CHECK_INT(f[2].offset, 0);
    free(btf);
}

int main(void)
{
    RUN(test_members);
    RUN(test_damaged);
    RUN(test_running_kernel);
    return harness_report();
}

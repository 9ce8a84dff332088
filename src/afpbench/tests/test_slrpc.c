/* slrpc.c: a request's bytes word by word (what afpd's unmarshaller reads),
 * requests that cannot fit, and replies as afpd shapes them (openQuery's
 * result; fetchQueryResults' status, CNID array and file metadata) parsed,
 * then every prefix and many corruptions of them: never a crash, never a
 * count read past the reply. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "slrpc.h"

static uint64_t word(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t tag(unsigned type, unsigned words, uint32_t value)
{
    return (uint64_t)value << 32 | (uint64_t)type << 16 | words;
}

static void test_fetch_request_bytes(void)
{
    uint8_t b[512];
    size_t n = slrpc_fetch_results(b, sizeof b, 7);
    CHECK_INT(n, 160);
    CHECK_MEM(b, 8, "432130dm", 8);
    /* 13 data words and the TOC's 5: 19 after the signature; the TOC tag
     * at data word 14 (counted from 1) */
    CHECK_INT(word(b + 8), (uint64_t)14 << 32 | 19);
    /* [[method, 7, 7], {}] */
    CHECK_INT(word(b + 16), tag(0x0200, 1, 1)); /* the outer array: TOC 1 */
    CHECK_INT(word(b + 24), tag(0x0200, 1, 2)); /* the arguments: TOC 2 */
    CHECK_INT(word(b + 32), tag(0x0200, 1, 3)); /* the method: TOC 3 */
    CHECK_INT(word(b + 40), tag(0x0700, 5, 4)); /* 4 words of data, 4 bytes of the last */
    CHECK_MEM(b + 48, 28, "fetchQueryResultsForContext:", 28);
    CHECK_INT(word(b + 72) >> 32, 0); /* the padding */
    CHECK_INT(word(b + 80), tag(0x8400, 2, 1));
    CHECK_INT(word(b + 88), 7);
    CHECK_INT(word(b + 96), tag(0x8400, 2, 1));
    CHECK_INT(word(b + 104), 7);
    CHECK_INT(word(b + 112), tag(0x0200, 1, 4)); /* the parameters: TOC 4 */
    CHECK_INT(word(b + 120), tag(0x8800, 5, 0));
    CHECK_INT(word(b + 128), tag(0x0a00, 2, 2));  /* array at word 2, 2 values */
    CHECK_INT(word(b + 136), tag(0x0a00, 3, 3));  /* array at word 3, 3 values */
    CHECK_INT(word(b + 144), tag(0x0c00, 4, 4));  /* string at word 4, 4 bytes used */
    CHECK_INT(word(b + 152), tag(0x0d00, 14, 0)); /* dictionary at word 14, empty */
}

static void test_requests_that_do_not_fit(void)
{
    uint8_t b[512];
    size_t full = slrpc_open_query(b, sizeof b, 1, "kMDItemFSName==\"x*\"cd");
    CHECK(full > 0);
    for (size_t cap = 0; cap < full; cap++)
        CHECK_INT(slrpc_open_query(b, cap, 1, "kMDItemFSName==\"x*\"cd"), 0);
    CHECK_INT(slrpc_open_query(b, sizeof b, 1, ""), 0); /* afpd refuses empty strings */
    char long_query[600];
    memset(long_query, 'a', sizeof long_query - 1);
    long_query[sizeof long_query - 1] = '\0';
    CHECK_INT(slrpc_open_query(b, sizeof b, 1, long_query), 0);
    /* a string whose length is a multiple of 8 uses all 8 bytes of its last word */
    struct slrpc_writer w;
    slrpc_begin(&w, b, sizeof b);
    slrpc_array(&w, 1);
    slrpc_string(&w, "12345678");
    CHECK(slrpc_end(&w) > 0);
    CHECK_INT(word(b + 32), tag(0x0700, 2, 8));
}

/* A reply as afpd packs one: the writer's words for the arrays and numbers,
 * a CNID array and a file-metadata blob added by hand. */
struct reply {
    uint8_t b[1024];
    size_t n;
};

static void fetch_reply(struct reply *r, uint64_t status, unsigned ncnids)
{
    struct slrpc_writer w;
    slrpc_begin(&w, r->b, sizeof r->b);
    slrpc_array(&w, 3);
    slrpc_u64(&w, status);
    /* the CNID array: a complex value, its body tag, a head, the ids */
    w.toc[w.ntoc++] = tag(0x1a00, (unsigned)(w.len / 8), 0);
    uint64_t words[8] = {tag(0x0200, 1, w.ntoc), tag(0x8700, ncnids ? ncnids + 2 : 1, 8)};
    unsigned k = 2;
    if (ncnids > 0) {
        words[k++] = tag(0x0000, ncnids, 0x1234);
        for (unsigned i = 0; i < ncnids; i++)
            words[k++] = 100 + i;
    }
    /* the file metadata: a complex value around a 2-word blob */
    w.toc[w.ntoc++] = tag(0x1b00, (unsigned)(w.len / 8 + k), 2);
    words[k++] = tag(0x0200, 1, w.ntoc);
    for (unsigned i = 0; i < k; i++) {
        for (int j = 0; j < 8; j++)
            w.buf[w.len + i * 8 + (unsigned)j] = (uint8_t)(words[i] >> (8 * j));
    }
    w.len += k * 8;
    uint64_t blob[3] = {tag(0x0700, 3, 8), 0x1111, 0x2222};
    for (unsigned i = 0; i < 3; i++) {
        for (int j = 0; j < 8; j++)
            w.buf[w.len + i * 8 + (unsigned)j] = (uint8_t)(blob[i] >> (8 * j));
    }
    w.len += 24;
    r->n = slrpc_end(&w);
}

static void test_replies(void)
{
    struct reply r;
    struct slrpc_reply out;
    char err[160];
    fetch_reply(&r, SLRPC_STATUS_MORE, 3);
    CHECK(r.n > 0);
    CHECK_INT(slrpc_parse_reply(r.b, r.n, &out, err, sizeof err), 0);
    CHECK(out.has_status && out.has_cnids);
    CHECK_INT(out.status, 35);
    CHECK_INT(out.cnids, 3);
    fetch_reply(&r, 0, 0);
    CHECK_INT(slrpc_parse_reply(r.b, r.n, &out, err, sizeof err), 0);
    CHECK_INT(out.status, 0);
    CHECK(out.has_cnids);
    CHECK_INT(out.cnids, 0);
    /* openQuery's: [0] */
    struct slrpc_writer w;
    slrpc_begin(&w, r.b, sizeof r.b);
    slrpc_array(&w, 1);
    slrpc_u64(&w, UINT64_MAX);
    r.n = slrpc_end(&w);
    CHECK_INT(slrpc_parse_reply(r.b, r.n, &out, err, sizeof err), 0);
    CHECK(out.has_status && !out.has_cnids);
    CHECK(out.status == UINT64_MAX);
    /* big-endian words, as a Mac may send them, read the same */
    uint8_t be[64];
    memcpy(be, "md031234", 8);
    for (size_t i = 8; i < r.n; i += 8)
        for (int j = 0; j < 8; j++)
            be[i + (size_t)j] = r.b[i + 7 - (size_t)j];
    /* the header word too: its high half (the data's words) first */
    uint64_t head = word(r.b + 8);
    for (int j = 0; j < 8; j++)
        be[8 + j] = (uint8_t)(head >> (8 * (7 - j)));
    CHECK_INT(slrpc_parse_reply(be, r.n, &out, err, sizeof err), 0);
    CHECK(out.status == UINT64_MAX);
}

static void test_hostile_replies(void)
{
    struct reply r;
    struct slrpc_reply out;
    char err[160];
    fetch_reply(&r, SLRPC_STATUS_MORE, 3);
    /* every prefix: refused, never read past its end (ASan watches) */
    for (size_t n = 0; n < r.n; n++) {
        uint8_t copy[1024];
        memcpy(copy, r.b, n);
        slrpc_parse_reply(copy, n, &out, err, sizeof err);
        CHECK(!out.has_cnids || out.cnids <= 3);
    }
    CHECK_INT(slrpc_parse_reply(r.b, 23, &out, err, sizeof err), -1);
    CHECK(strstr(err, "header") != NULL);
    /* every byte flipped in turn: a result or a reason, and a count that
     * fits the reply */
    for (size_t i = 0; i < r.n; i++) {
        for (int bit = 0; bit < 8; bit++) {
            uint8_t copy[1024];
            memcpy(copy, r.b, r.n);
            copy[i] ^= (uint8_t)(1u << bit);
            err[0] = '\0';
            int rc = slrpc_parse_reply(copy, r.n, &out, err, sizeof err);
            CHECK(rc == 0 || err[0] != '\0');
            CHECK(!out.has_cnids || out.cnids <= r.n / 8);
        }
    }
    /* named faults */
    uint8_t copy[1024];
    memcpy(copy, r.b, r.n);
    copy[0] = 'x';
    CHECK_INT(slrpc_parse_reply(copy, r.n, &out, err, sizeof err), -1);
    CHECK(strstr(err, "signature") != NULL);
    memcpy(copy, r.b, r.n);
    copy[12] = 0xff; /* the TOC far beyond the reply */
    CHECK_INT(slrpc_parse_reply(copy, r.n, &out, err, sizeof err), -1);
    CHECK(strstr(err, "outside") != NULL);
    memcpy(copy, r.b, r.n);
    copy[16 + 4] = 0x40; /* the outer array names TOC entry 64 */
    CHECK_INT(slrpc_parse_reply(copy, r.n, &out, err, sizeof err), -1);
    CHECK(strstr(err, "TOC entry") != NULL);
}

/* Real replies of netatalk 4.5.1 (tests/capture_replies): a search that
 * found the capture's alpha.txt, in one batch with its file metadata. */
static void test_captured_replies(void)
{
    static const struct {
        const char *file;
        uint64_t status;
        int has_cnids;
        uint64_t cnids;
    } cases[] = {
        {"fuzz/corpus/slrpc/netatalk-open-query.bin", 0, 0, 0},
        {"fuzz/corpus/slrpc/netatalk-fetch-first.bin", 0, 1, 1},
        {"fuzz/corpus/slrpc/netatalk-close-query.bin", 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        uint8_t *p = harness_read_file(cases[i].file, &n);
        if (!CHECK(p != NULL))
            continue;
        struct slrpc_reply out;
        char err[160] = "";
        CHECK_INT(slrpc_parse_reply(p, n, &out, err, sizeof err), 0);
        CHECK_STR(err, "");
        CHECK(out.has_status);
        CHECK_INT(out.status, cases[i].status);
        CHECK_INT(out.has_cnids, cases[i].has_cnids);
        CHECK_INT(out.cnids, cases[i].cnids);
        free(p);
    }
}

int main(void)
{
    RUN(test_fetch_request_bytes);
    RUN(test_requests_that_do_not_fit);
    RUN(test_replies);
    RUN(test_hostile_replies);
    RUN(test_captured_replies);
    return harness_report();
}

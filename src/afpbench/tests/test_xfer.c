/* xfer.c, the one pipelined transfer engine (lantest 2/3, speedtest,
 * smoke), against the scripted in-process server of tests/fake_afp.c (a
 * mock: it can end a file mid-window or misreport a write on demand, which
 * netatalk cannot; the real server is in tests/integration.sh and
 * scripts/tests/afpbench.bats). */
#include <stdlib.h>
#include <string.h>

#include "fake_afp.h"
#include "harness.h"
#include "pattern.h"
#include "session.h"
#include "xfer.h"

static const afp_fork_t FORK = {{1, 0}};

/* The pattern written at the right offsets, every chunk: 4096 + 4096 + 1808
 * bytes with 3 in flight, each reply reaped. */
static void test_write_lands_at_offsets(void)
{
    struct fake f = {0};
    struct afp_session *s = fake_logged_in(&f);
    CHECK_INT(afp_session_quantum(s), FAKE_QUANTUM);
    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
    struct xfer_fault fault = {0};
    CHECK_INT(xfer_write(s, FORK, FAKE_FILE_SIZE, FAKE_QUANTUM, 3, &pat, &fault), 0);
    CHECK_INT(afp_session_ops(s), 1 + 3); /* the login and three writes */
    CHECK_INT(afp_session_outstanding(s), 0);
    afp_session_free(s);
    fake_stop(&f);
    CHECK_INT(f.writes, 3);
    CHECK_INT(f.writes_ok, 3);
    /* AFP 3.4: FPWriteExt only. */
    CHECK_INT(f.writes64, 3);
    CHECK_INT(f.writes32, 0);

    /* Another seed is another file's data: the mock sees wrong bytes. */
    struct pattern_buf other;
    CHECK_INT(pattern_buf_init(&other, FAKE_QUANTUM, FAKE_SEED + 1), 0);
    struct fake g = {0};
    s = fake_logged_in(&g);
    CHECK_INT(xfer_write(s, FORK, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, &other, &fault), 0);
    afp_session_free(s);
    fake_stop(&g);
    CHECK_INT(g.writes, 3);
    CHECK_INT(g.writes_ok, 0);
    pattern_buf_free(&other);
    pattern_buf_free(&pat);
}

/* A write reply whose end is not offset + length is XFER_EOFFSET, named
 * with the request's offset, the end expected and the end reported. The
 * transfer stops there: the second write is still in flight. */
static void test_write_misreported(void)
{
    struct fake f = {.lie_about_writes = true};
    struct afp_session *s = fake_logged_in(&f);
    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
    struct xfer_fault fault = {0};
    CHECK_INT(xfer_write(s, FORK, 5000, FAKE_QUANTUM, 2, &pat, &fault), XFER_EOFFSET);
    CHECK_INT(fault.offset, 0);
    CHECK_INT(fault.expected, FAKE_QUANTUM);
    CHECK_INT(fault.got, FAKE_QUANTUM - 1);
    CHECK_INT(afp_session_outstanding(s), 1);
    char why[160];
    CHECK_STR(xfer_fault_text(XFER_EOFFSET, &fault, why, sizeof why),
              "the server reports the write at offset 0 ending at 4095, expected 4096");
    CHECK(xfer_is_fault(XFER_EOFFSET));
    afp_session_free(s);
    fake_stop(&f);

    /* The writes of a client-side copy are checked the same way. */
    struct fake g = {.lie_about_writes = true, .serve_pattern = true};
    s = fake_logged_in(&g);
    static uint8_t bufs[2 * FAKE_QUANTUM];
    afp_fork_t dst = {{2, 0}};
    CHECK_INT(xfer_copy(s, FORK, dst, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, bufs, &fault), XFER_EOFFSET);
    CHECK_INT(fault.offset, 0);
    CHECK_INT(fault.got, FAKE_QUANTUM - 1);
    afp_session_free(s);
    fake_stop(&g);
    pattern_buf_free(&pat);
}

/* xfer_read: all of a file in order, checked against the pattern; a reply
 * shorter than asked (the file ends: AFPERR_EOF) is XFER_ESHORT; bytes that
 * are not the pattern are XFER_EMISMATCH, each with where it happened. */
static void test_read(void)
{
    struct fake f = {.serve_pattern = true};
    struct afp_session *s = fake_logged_in(&f);
    static uint8_t buf[FAKE_QUANTUM];
    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
    struct xfer_fault fault = {0};

    CHECK_INT(xfer_read(s, FORK, FAKE_FILE_SIZE, FAKE_QUANTUM, 3, buf, &pat, &fault), 0);
    CHECK_INT(afp_session_ops(s), 1 + 3);
    CHECK_INT(afp_session_outstanding(s), 0);
    CHECK_INT(f.reads64, 3);
    CHECK_INT(f.reads32, 0);

    /* Asking for more than the file holds, 4 in flight: the chunk where
     * the file ends is the fault. */
    CHECK_INT(xfer_read(s, FORK, 8 * FAKE_QUANTUM, FAKE_QUANTUM, 4, buf, NULL, &fault),
              XFER_ESHORT);
    CHECK_INT(fault.offset, 2 * FAKE_QUANTUM);
    CHECK_INT(fault.expected, FAKE_QUANTUM);
    CHECK_INT(fault.got, FAKE_FILE_SIZE - 2 * FAKE_QUANTUM);
    char why[160];
    CHECK_STR(xfer_fault_text(XFER_ESHORT, &fault, why, sizeof why),
              "1808 bytes at offset 8192, expected 4096");
    afp_session_free(s);
    fake_stop(&f);

    /* The mock's plain file is not the pattern: the first differing byte is named. */
    struct fake g = {0};
    s = fake_logged_in(&g);
    uint8_t want[64];
    pattern_fill(want, 0, sizeof want, FAKE_SEED);
    uint64_t first = 0;
    while (first < sizeof want && want[first] == fake_file_byte(first))
        first++;
    CHECK(first < sizeof want);
    CHECK_INT(xfer_read(s, FORK, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, buf, &pat, &fault),
              XFER_EMISMATCH);
    CHECK_INT(fault.offset, first);
    CHECK_INT(fault.expected, want[first]);
    CHECK_INT(fault.got, fake_file_byte(first));
    /* A chunk is checked once the next requests went out: the mismatch in
     * the first chunk ends the transfer with the second and third reads in
     * flight. */
    CHECK_INT(afp_session_outstanding(s), 2);
    afp_session_free(s);
    fake_stop(&g);
    pattern_buf_free(&pat);
}

/* The check that waits for the next request still happens for every chunk:
 * one wrong byte in the first, the middle or the last chunk (checked after
 * the loop), at -r 1 and -r 3, is a mismatch at its offset. */
static void test_read_checks_every_chunk(void)
{
    static const uint64_t wrong[] = {1, FAKE_QUANTUM + 100, FAKE_FILE_SIZE - 1};
    static uint8_t buf[FAKE_QUANTUM];
    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
    for (unsigned w = 1; w <= 3; w += 2) {
        for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
            struct fake f = {.serve_pattern = true, .corrupt_at = wrong[i] + 1};
            struct afp_session *s = fake_logged_in(&f);
            struct xfer_fault fault = {0};
            CHECK_INT(xfer_read(s, FORK, FAKE_FILE_SIZE, FAKE_QUANTUM, w, buf, &pat, &fault),
                      XFER_EMISMATCH);
            CHECK_INT(fault.offset, wrong[i]);
            CHECK_INT(fault.got ^ fault.expected, 0x40);
            afp_session_free(s);
            fake_stop(&f);
        }
    }
    pattern_buf_free(&pat);
}

/* A client-side copy moves every chunk to the same offset of the target. */
static void test_copy(void)
{
    struct fake f = {.serve_pattern = true};
    struct afp_session *s = fake_logged_in(&f);
    static uint8_t bufs[2 * FAKE_QUANTUM];
    afp_fork_t dst = {{2, 0}};
    struct xfer_fault fault = {0};
    CHECK_INT(xfer_copy(s, FORK, dst, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, bufs, &fault), 0);
    CHECK_INT(afp_session_ops(s), 1 + 3 + 3);
    afp_session_free(s);
    fake_stop(&f);
    CHECK_INT(f.writes, 3);
    CHECK_INT(f.writes_ok, 3);
}

/* AFP 2.x (both version strings): the same transfers go out as FPWrite
 * and FPRead, which the mock, like netatalk, requires there (it refuses the
 * Ext calls after a 2.x login); pipelined, the pattern at the right
 * offsets, read back and checked, copied. */
static void test_afp2_uses_fpread_fpwrite(void)
{
    static const char *const versions[] = {"AFP2.2", "AFPVersion 2.1"};
    for (int v = 0; v < 2; v++) {
        struct fake f = {.serve_pattern = true};
        struct afp_session *s = fake_logged_in_as(&f, versions[v]);
        CHECK(!afp_session_offsets64(s));
        struct pattern_buf pat;
        CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
        static uint8_t bufs[3 * FAKE_QUANTUM];
        afp_fork_t dst = {{2, 0}};
        struct xfer_fault fault = {0};
        CHECK_INT(xfer_write(s, FORK, FAKE_FILE_SIZE, FAKE_QUANTUM, 3, &pat, &fault), 0);
        CHECK_INT(xfer_read(s, FORK, FAKE_FILE_SIZE, FAKE_QUANTUM, 3, bufs, &pat, &fault), 0);
        CHECK_INT(xfer_copy(s, FORK, dst, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, bufs, &fault), 0);
        CHECK_INT(afp_session_ops(s), 1 + 3 + 3 + 3 + 3);
        CHECK_INT(afp_session_outstanding(s), 0);
        /* The end of the file reached early is still a short read. */
        CHECK_INT(xfer_read(s, FORK, 4 * FAKE_QUANTUM, FAKE_QUANTUM, 2, bufs, NULL, &fault),
                  XFER_ESHORT);
        CHECK_INT(fault.offset, 2 * FAKE_QUANTUM);
        CHECK_INT(fault.got, FAKE_FILE_SIZE - 2 * FAKE_QUANTUM);
        afp_session_free(s);
        fake_stop(&f);
        CHECK_INT(f.writes32, 3 + 3);
        CHECK_INT(f.writes_ok, 3 + 3);
        CHECK_INT(f.reads32, 3 + 3 + 4); /* the short one had a 4th in flight */
        CHECK_INT(f.writes64 + f.reads64, 0);
        pattern_buf_free(&pat);
    }
}

/* FPWrite's 4-byte reply is checked like FPWriteExt's 8 bytes: an end one
 * byte short is XFER_EOFFSET, in a write and in a copy. */
static void test_afp2_write_misreported(void)
{
    struct fake f = {.lie_about_writes = true, .serve_pattern = true};
    struct afp_session *s = fake_logged_in_as(&f, "AFP2.2");
    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
    struct xfer_fault fault = {0};
    CHECK_INT(xfer_write(s, FORK, 5000, FAKE_QUANTUM, 2, &pat, &fault), XFER_EOFFSET);
    CHECK_INT(fault.offset, 0);
    CHECK_INT(fault.expected, FAKE_QUANTUM);
    CHECK_INT(fault.got, FAKE_QUANTUM - 1);
    CHECK_INT(afp_session_outstanding(s), 1);
    afp_session_free(s);
    fake_stop(&f);
    CHECK_INT(f.writes32, 2);

    struct fake g = {.lie_about_writes = true, .serve_pattern = true};
    s = fake_logged_in_as(&g, "AFP2.2");
    static uint8_t bufs[2 * FAKE_QUANTUM];
    afp_fork_t dst = {{2, 0}};
    CHECK_INT(xfer_copy(s, FORK, dst, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, bufs, &fault), XFER_EOFFSET);
    CHECK_INT(fault.got, FAKE_QUANTUM - 1);
    afp_session_free(s);
    fake_stop(&g);
    pattern_buf_free(&pat);
}

/* AFP 2.x offsets are 32 bits: a transfer that would end past offset
 * 2^32 - 1 is XFER_ELIMIT, refused before anything is sent, and its text
 * names the version and the 4 GiB limit. One byte less is not refused (it
 * runs, and here ends short against the mock's small file); AFP 3 has no
 * such limit. */
static void test_afp2_4gib_limit(void)
{
    const uint64_t too_big = UINT64_C(1) << 32;
    struct fake f = {.serve_pattern = true};
    struct afp_session *s = fake_logged_in_as(&f, "AFP2.2");
    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
    static uint8_t bufs[2 * FAKE_QUANTUM];
    afp_fork_t dst = {{2, 0}};
    struct xfer_fault fault = {0};
    CHECK_INT(xfer_write(s, FORK, too_big, FAKE_QUANTUM, 2, &pat, &fault), XFER_ELIMIT);
    CHECK_INT(fault.offset, UINT32_MAX);
    CHECK_INT(fault.got, too_big);
    CHECK_STR(fault.afp_version, "AFP2.2");
    CHECK(xfer_is_fault(XFER_ELIMIT));
    char why[200];
    CHECK_STR(xfer_fault_text(XFER_ELIMIT, &fault, why, sizeof why),
              "with AFP2.2 (FPRead/FPWrite: 32-bit offsets) files are limited to 4 GiB: a "
              "transfer of 4294967296 bytes would end past offset 4294967295; use AFP 3.0 or "
              "later");
    CHECK_INT(xfer_read(s, FORK, too_big, FAKE_QUANTUM, 2, bufs, &pat, &fault), XFER_ELIMIT);
    CHECK_INT(xfer_copy(s, FORK, dst, too_big, FAKE_QUANTUM, 2, bufs, &fault), XFER_ELIMIT);
    CHECK_INT(xfer_check_size(s, too_big, NULL), XFER_ELIMIT);
    CHECK_INT(xfer_check_size(s, UINT32_MAX, NULL), 0);
    CHECK_INT(afp_session_ops(s), 1); /* only the login went out */

    CHECK_INT(xfer_read(s, FORK, UINT32_MAX, FAKE_QUANTUM, 2, bufs, NULL, &fault), XFER_ESHORT);
    CHECK_INT(fault.offset, 2 * FAKE_QUANTUM);
    afp_session_free(s);
    fake_stop(&f);

    struct fake g = {0};
    s = fake_logged_in(&g);
    CHECK(afp_session_offsets64(s));
    CHECK_INT(xfer_check_size(s, too_big, NULL), 0);
    CHECK_INT(xfer_check_size(s, UINT64_MAX, NULL), 0);
    afp_session_free(s);
    fake_stop(&g);
    pattern_buf_free(&pat);
}

int main(void)
{
    RUN(test_write_lands_at_offsets);
    RUN(test_write_misreported);
    RUN(test_read);
    RUN(test_read_checks_every_chunk);
    RUN(test_copy);
    RUN(test_afp2_uses_fpread_fpwrite);
    RUN(test_afp2_write_misreported);
    RUN(test_afp2_4gib_limit);
    return harness_report();
}

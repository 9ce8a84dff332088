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
    /* The mismatch ends the transfer with the second read still in flight. */
    CHECK_INT(afp_session_outstanding(s), 1);
    afp_session_free(s);
    fake_stop(&g);
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

int main(void)
{
    RUN(test_write_lands_at_offsets);
    RUN(test_write_misreported);
    RUN(test_read);
    RUN(test_copy);
    return harness_report();
}

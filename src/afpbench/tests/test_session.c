/* Session calls over a real TCP connection to the scripted in-process
 * server of tests/fake_afp.c (a mock: see there why). The bulk transfers
 * built on them are tested in test_xfer.c. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fake_afp.h"
#include "harness.h"
#include "pattern.h"
#include "session.h"
#include "xfer.h"

/* A lock reply must hold the start of the range, 4 bytes (8 for the Ext
 * call); the mock's empty reply is a protocol error and sets nothing. */
static void test_lock_reply_too_short(void)
{
    struct fake f = {0};
    struct afp_session *s = fake_logged_in(&f);
    afp_fork_t fork = {{1, 0}};
    uint32_t start32 = 7;
    uint64_t start64 = 7;
    CHECK_INT(afp_byterangelock(s, fork, 0, 0, 10, &start32), AFPB_EPROTO);
    CHECK_STR(afp_session_error(s), "FPByteRangeLock: reply of 0 bytes, expected 4");
    CHECK_INT(start32, 7);
    CHECK_INT(afp_byterangelock_ext(s, fork, 0, 0, 10, &start64), AFPB_EPROTO);
    CHECK_STR(afp_session_error(s), "FPByteRangeLockExt: reply of 0 bytes, expected 8");
    CHECK_INT(start64, 7);
    afp_session_free(s);
    fake_stop(&f);
}

static void test_login_refused(void)
{
    struct fake f = {0};
    fake_start(&f);
    struct afp_session *s = afp_session_new();
    afp_session_set_timeout(s, 2000);
    CHECK_INT(afp_session_connect(s, "127.0.0.1", f.port), 0);
    CHECK_INT(afp_session_login(s, NULL, "bad", "pw"), AFPERR_NOTAUTH);
    CHECK(strstr(afp_session_error(s), "FPLogin as 'bad'") != NULL);
    CHECK(strstr(afp_session_error(s), "kFPUserNotAuth") != NULL);
    /* Password checks happen before anything is sent. */
    CHECK_INT(afp_session_login(s, NULL, "u", "123456789"), AFPB_EPARAM);
    CHECK_INT(afp_session_login(s, "AFP9.9", "u", "p"), AFPB_EPARAM);
    afp_session_free(s);
    /* The fake waits for a CloseSession that a refused login does not send. */
    fake_stop(&f);
}

/* Every version string the CLI's -1 .. -7 ask for is known to the session
 * and goes on the wire as given; AFP 2.1's is "AFPVersion 2.1" (-1), and
 * "AFP2.1" is no AFP version string. */
static void test_login_versions(void)
{
    static const char *const want[] = {"AFPVersion 2.1", "AFP2.2", "AFPX03", "AFP3.1",
                                       "AFP3.2",         "AFP3.3", "AFP3.4"};
    for (int i = 0; i < 7; i++) {
        struct cli_conn c;
        cli_conn_from_env(&c);
        CHECK_INT(cli_conn_option(&c, '1' + i, NULL, "test"), 1);
        CHECK_STR(c.afp_version, want[i]);
        struct fake f = {0};
        fake_start(&f);
        struct afp_session *s = afp_session_new();
        afp_session_set_timeout(s, 2000);
        CHECK_INT(afp_session_connect(s, "127.0.0.1", f.port), 0);
        CHECK_INT(afp_session_login(s, c.afp_version, "user", "pw"), 0);
        CHECK_STR(afp_session_version(s), want[i]);
        afp_session_free(s);
        fake_stop(&f);
        CHECK_STR(f.login_version, want[i]);
    }
    struct fake f = {0};
    fake_start(&f);
    struct afp_session *s = afp_session_new();
    CHECK_INT(afp_session_connect(s, "127.0.0.1", f.port), 0);
    CHECK_INT(afp_session_login(s, "AFP2.1", "user", "pw"), AFPB_EPARAM);
    CHECK_STR(afp_session_error(s), "unknown AFP version 'AFP2.1'");
    afp_session_free(s);
    fake_stop(&f);
}

/* Clean-up after a transfer that failed midway (a misreported write ends
 * it with one request in flight) while forks are open: close_forks reaps
 * the reply in flight and closes exactly the forks still open, so the
 * delete that follows works (the mock, like netatalk, refuses to delete
 * while a fork is open). */
static void test_close_forks_after_failure(void)
{
    struct fake f = {.lie_about_writes = true};
    struct afp_session *s = fake_logged_in(&f);
    afp_fork_t a, b, c;
    CHECK_INT(afp_openfork(s, 1, 2, "a", AFP_FORK_DATA, 0, AFP_OPEN_READ, &a, NULL), 0);
    CHECK_INT(afp_openfork(s, 1, 2, "b", AFP_FORK_DATA, 0, AFP_OPEN_READ, &b, NULL), 0);
    CHECK_INT(afp_openfork(s, 1, 2, "c", AFP_FORK_DATA, 0, AFP_OPEN_WRITE, &c, NULL), 0);
    CHECK_INT(afp_closefork(s, b), 0);
    CHECK_INT(afp_delete(s, 1, 2, "c"), AFPERR_BUSY);

    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, FAKE_SEED), 0);
    struct xfer_fault fault = {0};
    CHECK_INT(xfer_write(s, c, 5000, FAKE_QUANTUM, 2, &pat, &fault), XFER_EOFFSET);
    CHECK_INT(afp_session_outstanding(s), 1);
    /* Without the clean-up the next command cannot even be reaped. */
    CHECK_INT(afp_delete(s, 1, 2, "c"), AFPB_EPARAM);

    uint64_t ops = afp_session_ops(s);
    CHECK_INT(afp_session_close_forks(s), 0);
    CHECK_INT(afp_session_outstanding(s), 0);
    CHECK_INT(afp_session_ops(s), ops + 2); /* two FPCloseFork: a and c, not b again */
    CHECK_INT(afp_delete(s, 1, 2, "c"), 0);
    CHECK_INT(afp_session_close_forks(s), 0); /* nothing left to close */
    CHECK_INT(afp_session_ops(s), ops + 3);
    afp_session_free(s);
    fake_stop(&f);
    CHECK_INT(fake_open_forks(&f), 0);
    pattern_buf_free(&pat);
}

/* The AFP version decides the fork offsets' width. */
static void test_offsets64_by_version(void)
{
    static const char *const versions[] = {"AFPVersion 2.1", "AFP2.2", "AFPX03", "AFP3.4"};
    for (int i = 0; i < 4; i++) {
        struct fake f = {0};
        struct afp_session *s = fake_logged_in_as(&f, versions[i]);
        CHECK_INT(afp_session_offsets64(s), i >= 2);
        afp_session_free(s);
        fake_stop(&f);
    }
}

int main(void)
{
    RUN(test_lock_reply_too_short);
    RUN(test_login_refused);
    RUN(test_login_versions);
    RUN(test_close_forks_after_failure);
    RUN(test_offsets64_by_version);
    return harness_report();
}

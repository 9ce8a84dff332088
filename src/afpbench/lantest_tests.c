/* The 12 lantest tests: the op sequences, names and counts of afp_lantest's
 * 12-test generation, as netatalk's testsuite defines it, with its defects
 * fixed: the big file is written in full (the last
 * chunk may be short), test 6 enumerates all 2000 entries, and read tests
 * check the bytes they get back.
 *
 * Each test runs untimed setup, one timed region (region_begin/region_end),
 * and untimed cleanup, inside the test directory c->dir. A failing call
 * returns an afp_lantest exit code through fail(). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attribution.h"
#include "lantest.h"
#include "session.h"
#include "timed.h"
#include "xfer.h"

/* Bitmaps used by the tests (the numbers afp_lantest uses). */
#define F_IS_THERE (AFP_FILE_LNAME | AFP_FILE_PDID)
#define F_STAT1 0x072d /* ATTR|CDATE|MDATE|FINFO|FNUM|DFLEN|RFLEN */
#define F_STAT2 0x073f /* F_STAT1 + PDID|BDATE */
#define D_STAT2 0x133f /* ATTR|PDID|dates|FINFO|DID|OFFCNT|ACCESS */
#define F_OPEN 0x0342  /* PDID|LNAME|FNUM|DFLEN */
#define F_FORKP 0x0242 /* PDID|LNAME|DFLEN */
#define F_SETUP                                                                                    \
    (AFP_FILE_FNUM | AFP_FILE_PDID | AFP_FILE_FINFO | AFP_FILE_CDATE | AFP_FILE_DFLEN |            \
     AFP_FILE_RFLEN)
#define F_ENUM                                                                                     \
    (AFP_FILE_LNAME | AFP_FILE_FNUM | AFP_FILE_ATTR | AFP_FILE_FINFO | AFP_FILE_CDATE |            \
     AFP_FILE_BDATE | AFP_FILE_MDATE | AFP_FILE_DFLEN | AFP_FILE_RFLEN)
#define D_ENUM                                                                                     \
    (AFP_DIR_ATTR | AFP_DIR_FINFO | AFP_DIR_CDATE | AFP_DIR_BDATE | AFP_DIR_MDATE |                \
     AFP_DIR_LNAME | AFP_DIR_PDID | AFP_DIR_DID | AFP_DIR_ACCESS)
#define RW_DENY (AFP_OPEN_READ | AFP_OPEN_WRITE | AFP_OPEN_DENY_READ | AFP_OPEN_DENY_WRITE)

#define BIGFILE_NAME "File.big"

/* Record a failure: the run's error, the test's error, the exit code. A
 * local failure (network, timeout, malformed reply) is always exit 5. */
static int fail(struct lt *c, int rc, int code, const char *what, const char *name)
{
    char msg[256];
    const char *detail = afp_session_error(c->s);
    if (afpb_is_local_error(rc)) {
        code = EXIT_NETWORK;
        c->connection_lost = 1;
    }
    snprintf(msg, sizeof msg, "test %d, iteration %u: %s%s%s%s: %s%s%s", c->test_id, c->iteration,
             what, name ? " '" : "", name ? name : "", name ? "'" : "", afp_strerror(rc),
             detail[0] ? " - " : "", detail);
    return results_fail_test(c->res, c->cur, code, "%s", msg);
}

static int fail_validation(struct lt *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int fail_validation(struct lt *c, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return results_fail_test(c->res, c->cur, EXIT_VALIDATION, "test %d, iteration %u: %s",
                             c->test_id, c->iteration, what);
}

#define TRY(code, call, what, name)                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0)                                                                              \
            return fail(c, rc_, (code), (what), (name));                                           \
    } while (0)

/* ---- timed regions ---- */

/* In the per-command pass (lantest.c) a region is not timed: it charges the
 * server's calls to the AFP commands sent in it instead. */
static void region_begin(struct lt *c)
{
    if (c->attribution_pass) {
        afp_session_observe(c->s, attribution_before_send, c->attribution);
        attribution_begin(c->attribution);
        return;
    }
    timed_begin(&c->timed, c->s, &c->io);
}

static int commands_end(struct lt *c)
{
    afp_session_observe(c->s, NULL, NULL);
    struct attribution_result *r = c->cur->commands;
    if (r == NULL && (r = c->cur->commands = malloc(sizeof *r)) == NULL) {
        results_fail(c->res, EXIT_ALLOC, "out of memory recording the per-command pass");
        return EXIT_ALLOC;
    }
    attribution_end(c->attribution, r);
    uint64_t calls = 0;
    for (unsigned i = 0; i < r->n; i++)
        calls += r->cmd[i].calls;
    fprintf(stderr, "%sBy command => %-62s %u kinds, %" PRIu64 " requests", c->label, c->cur->name,
            r->n, calls);
    if (r->unsettled)
        fprintf(stderr, " (%" PRIu64 " did not settle within %d ms)", r->unsettled,
                ATTRIBUTION_SETTLE_MS);
    fputc('\n', stderr);
    return 0;
}

static int region_end(struct lt *c, uint64_t bytes)
{
    if (c->attribution_pass)
        return commands_end(c);
    struct result_sample smp = {.iteration = c->iteration, .order = c->order, .bytes = bytes};
    timed_end(&c->timed, &smp);
    if (results_add_sample(c->cur, &smp) != 0) {
        results_fail(c->res, EXIT_ALLOC, "out of memory recording a sample");
        return EXIT_ALLOC;
    }
    fprintf(stderr, "%sRun %u => %-66s %10.3f ms  (%" PRIu64 " AFP ops", c->label, c->iteration,
            c->cur->name, (double)smp.us / 1000.0, smp.afp_ops);
    if (bytes > 0 && smp.us > 0)
        fprintf(stderr, ", %.1f MB/s", (double)bytes / 1048576.0 / ((double)smp.us / 1e6));
    fputs(")\n", stderr);
    timed_print_io(stderr, &smp);
    return 0;
}

/* ---- helpers ---- */

/* afp_lantest's existence probe: one FPGetFileDirParms for LNAME|PDID. */
static int is_there(struct lt *c, uint32_t did, const char *name)
{
    return afp_getfiledirparms(c->s, c->vol, did, name, F_IS_THERE, F_IS_THERE, NULL);
}

/* Must not exist yet (AFPERR_NOOBJ); anything else is a failure. */
static int expect_absent(struct lt *c, uint32_t did, const char *name)
{
    int rc = is_there(c, did, name);
    if (rc == AFPERR_NOOBJ)
        return 0;
    return fail(c, rc == 0 ? AFPERR_EXIST : rc, EXIT_FILEDIR, "probe (left over from a run?)",
                name);
}

/* FPWrite (32-bit) of the offset pattern, in quantum-sized pieces, from
 * the suite's pattern buffer (only its stamps are rewritten). */
static int write_pattern(struct lt *c, afp_fork_t fork, uint32_t len, uint32_t seed)
{
    uint32_t quantum = afp_session_request_size(c->s);
    if (quantum > c->pat.max_len)
        quantum = (uint32_t)c->pat.max_len;
    uint32_t keep = c->pat.seed;
    c->pat.seed = seed;
    int rc = 0;
    for (uint32_t off = 0; off < len && rc == 0;) {
        uint32_t n = len - off < quantum ? len - off : quantum;
        rc = afp_write(c->s, fork, off, pattern_buf_at(&c->pat, off, n), n, NULL);
        off += n;
    }
    c->pat.seed = keep;
    TRY(EXIT_FORK, rc, "FPWrite", NULL);
    return 0;
}

/* FPRead of len bytes at 0 into c->rbuf, checked against the pattern. */
static int read_and_check(struct lt *c, afp_fork_t fork, uint32_t len, uint32_t seed,
                          const char *name)
{
    size_t got = 0;
    TRY(EXIT_FORK, afp_read(c->s, fork, 0, len, c->rbuf, &got), "FPRead", name);
    if (got != len)
        return fail_validation(c, "FPRead '%s': got %zu bytes, expected %u", name, got, len);
    long bad = pattern_check(c->rbuf, 0, len, seed);
    if (bad >= 0)
        return fail_validation(c, "FPRead '%s': byte %ld of %u differs from what was written", name,
                               bad, len);
    return 0;
}

/* Make c->names[at .. at + count - 1] = prefix<first> .. prefix<first +
 * count - 1>, numbers zero-padded to width digits (truncated to the
 * table's width, as snprintf would). Runs before a timed region, never
 * inside one; the digits by hand, as snprintf's cost was most of the
 * client's CPU in tests 5 and 6 (docs/client-speed.md). */
static void names_make(struct lt *c, int at, const char *prefix, int width, unsigned first,
                       int count)
{
    size_t plen = strlen(prefix);
    for (int k = 0; k < count && at + k < LANTEST_NAMES; k++) {
        char digits[16];
        int n = 0;
        for (unsigned v = first + (unsigned)k; n == 0 || v != 0; v /= 10)
            digits[n++] = (char)('0' + v % 10);
        while (n < width && n < (int)sizeof digits)
            digits[n++] = '0';
        char *out = c->names[at + k];
        size_t len = 0;
        for (size_t i = 0; i < plen && len < LANTEST_NAME_LEN - 1; i++)
            out[len++] = prefix[i];
        while (n > 0 && len < LANTEST_NAME_LEN - 1)
            out[len++] = digits[--n];
        out[len] = '\0';
    }
}

/* Delete the files or directories named c->names[0 .. count - 1] from did. */
static int delete_table(struct lt *c, uint32_t did, int count)
{
    for (int k = 0; k < count; k++)
        TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, did, c->names[k]), "FPDelete", c->names[k]);
    return 0;
}

/* Delete prefix<from> .. prefix<to>, numbers zero-padded to width digits. */
static int delete_names(struct lt *c, uint32_t did, const char *prefix, int width, int from, int to)
{
    names_make(c, 0, prefix, width, from, to - from + 1);
    return delete_table(c, did, to - from + 1);
}

/* ---- test 1: Open, stat and read 512 bytes from 1000 files ---- */

#define T1_FILES 1000
#define T1_WRITE 20480
#define T1_READ 512

static int t1_setup_file(struct lt *c, const char *name, uint32_t seed)
{
    afp_fork_t fork;
    int rc = expect_absent(c, c->dir, name);
    if (rc != 0)
        return rc;
    TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, "", 0, AFP_DIR_DID, NULL),
        "FPGetFileDirParms", c->dirname);
    TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, c->dir, name, false), "FPCreateFile", name);
    TRY(EXIT_FILEDIR, is_there(c, c->dir, name), "probe", name);
    TRY(EXIT_FILEDIR,
        afp_getfiledirparms(c->s, c->vol, c->dir, name, F_SETUP | AFP_FILE_MDATE, 0, NULL),
        "FPGetFileDirParms", name);
    TRY(EXIT_FILEDIR,
        afp_getfiledirparms(c->s, c->vol, c->dir, name,
                            F_SETUP | AFP_FILE_MDATE | AFP_FILE_ATTR | AFP_FILE_BDATE, 0, NULL),
        "FPGetFileDirParms", name);
    TRY(EXIT_FORK,
        afp_openfork(c->s, c->vol, c->dir, name, AFP_FORK_DATA, F_OPEN, RW_DENY, &fork, NULL),
        "FPOpenFork", name);
    TRY(EXIT_FORK, afp_getforkparms(c->s, fork, F_FORKP, NULL), "FPGetForkParms", name);
    rc = write_pattern(c, fork, T1_WRITE, seed);
    if (rc != 0)
        return rc;
    TRY(EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork", name);
    return 0;
}

static int test_open_stat_read(struct lt *c)
{
    afp_fork_t fork;
    int rc;

    names_make(c, 0, "File.small", 0, 0, T1_FILES);
    for (int i = 0; i < T1_FILES; i++) {
        if ((rc = t1_setup_file(c, c->names[i], (uint32_t)i)) != 0)
            return rc;
    }
    TRY(EXIT_FILEDIR,
        afp_enumerate(c->s, c->vol, c->dir, "", F_ENUM, D_ENUM, 1024, 1, 8192, NULL, NULL, NULL),
        "FPEnumerate", c->dirname);

    region_begin(c);
    for (int i = 0; i < T1_FILES; i++) {
        const char *name = c->names[i];
        TRY(EXIT_FILEDIR, is_there(c, c->dir, name), "probe", name);
        TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, name, F_STAT1, 0, NULL),
            "FPGetFileDirParms", name);
        TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, name, F_STAT2, D_STAT2, NULL),
            "FPGetFileDirParms", name);
        TRY(EXIT_FORK,
            afp_openfork(c->s, c->vol, c->dir, name, AFP_FORK_DATA, F_OPEN,
                         AFP_OPEN_READ | AFP_OPEN_DENY_WRITE, &fork, NULL),
            "FPOpenFork", name);
        TRY(EXIT_FORK, afp_getforkparms(c->s, fork, AFP_FILE_DFLEN, NULL), "FPGetForkParms", name);
        TRY(EXIT_FORK, afp_getforkparms(c->s, fork, F_FORKP, NULL), "FPGetForkParms", name);
        if ((rc = read_and_check(c, fork, T1_READ, (uint32_t)i, name)) != 0)
            return rc;
        TRY(EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork", name);
    }
    if ((rc = region_end(c, (uint64_t)T1_FILES * T1_READ)) != 0)
        return rc;

    for (int i = 0; i < T1_FILES; i++) {
        const char *name = c->names[i];
        TRY(EXIT_FILEDIR, is_there(c, c->dir, name), "probe", name);
        TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, name, 0, AFP_DIR_DID, NULL),
            "FPGetFileDirParms", name);
        TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, c->dir, name), "FPDelete", name);
    }
    TRY(EXIT_FILEDIR,
        afp_getvolparms(c->s, c->vol, AFP_VOL_MDATE | AFP_VOL_XBFREE, &(struct afp_volparms){0}),
        "FPGetVolParms", NULL);
    return 0;
}

/* ---- tests 2 and 3: one large file, pipelined FPWriteExt / FPReadExt ---- */

/* The big file through xfer.h, failures turned into exit codes: a short
 * read, wrong bytes or a write that the server says ended elsewhere are
 * validation failures. */
static int pipelined(struct lt *c, afp_fork_t fork, const char *name, uint64_t size, int write,
                     int check)
{
    struct xfer_fault fault = {0};
    const char *what = write ? "FPWriteExt" : "FPReadExt";
    int rc = write ? xfer_write(c->s, fork, size, c->chunk, LANTEST_WINDOW, &c->pat, &fault)
                   : xfer_read(c->s, fork, size, c->chunk, LANTEST_WINDOW, c->rbuf,
                               check ? &c->pat : NULL, &fault);
    if (xfer_is_fault(rc)) {
        char why[160];
        return fail_validation(c, "%s '%s': %s", what, name,
                               xfer_fault_text(rc, &fault, why, sizeof why));
    }
    if (rc != 0)
        return fail(c, rc, EXIT_FORK, what, name);
    return 0;
}

static int test_write_big(struct lt *c)
{
    afp_fork_t fork;
    uint64_t size = c->o->bigfile_bytes;
    int rc;

    if ((rc = expect_absent(c, c->dir, BIGFILE_NAME)) != 0)
        return rc;
    TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, c->dir, BIGFILE_NAME, false), "FPCreateFile",
        BIGFILE_NAME);
    c->big_written = 1;
    TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, BIGFILE_NAME, F_STAT1, 0, NULL),
        "FPGetFileDirParms", BIGFILE_NAME);
    TRY(EXIT_FILEDIR,
        afp_getfiledirparms(c->s, c->vol, c->dir, BIGFILE_NAME, F_STAT2, D_STAT2, NULL),
        "FPGetFileDirParms", BIGFILE_NAME);
    TRY(EXIT_FORK,
        afp_openfork(c->s, c->vol, c->dir, BIGFILE_NAME, AFP_FORK_DATA,
                     AFP_FILE_PDID | AFP_FILE_FNUM | AFP_FILE_DFLEN, RW_DENY, &fork, NULL),
        "FPOpenFork", BIGFILE_NAME);
    TRY(EXIT_FORK, afp_getforkparms(c->s, fork, AFP_FILE_PDID, NULL), "FPGetForkParms",
        BIGFILE_NAME);

    region_begin(c);
    if ((rc = pipelined(c, fork, BIGFILE_NAME, size, 1, 0)) != 0)
        return rc;
    TRY(EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork", BIGFILE_NAME);
    if ((rc = region_end(c, size)) != 0)
        return rc;

    /* Without test 3 nothing else removes it before the next iteration. */
    if (!(c->o->tests & (1u << 2))) {
        TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, c->dir, BIGFILE_NAME), "FPDelete", BIGFILE_NAME);
        c->big_written = 0;
    }
    return 0;
}

static int test_read_big(struct lt *c)
{
    afp_fork_t fork;
    struct afp_params fp;
    const char *name = c->o->bigfile_name ? c->o->bigfile_name : BIGFILE_NAME;
    uint32_t did = c->o->bigfile_name ? AFP_DID_ROOT : c->dir;
    uint64_t size = c->o->bigfile_bytes;
    int rc;

    TRY(EXIT_FILEDIR, is_there(c, did, name), "probe", name);
    TRY(EXIT_FORK,
        afp_openfork(c->s, c->vol, did, name, AFP_FORK_DATA, F_OPEN,
                     AFP_OPEN_READ | AFP_OPEN_DENY_WRITE, &fork, NULL),
        "FPOpenFork", name);
    TRY(EXIT_FORK, afp_getforkparms(c->s, fork, F_FORKP, NULL), "FPGetForkParms", name);
    if (c->o->bigfile_name != NULL) {
        /* A given file: read what it really holds, so MB/s is honest. */
        TRY(EXIT_FORK, afp_getforkparms(c->s, fork, AFP_FILE_EXTDFLEN, &fp), "FPGetForkParms",
            name);
        size = fp.ext_data_len;
        c->cur->size_bytes = size;
    }

    region_begin(c);
    if ((rc = pipelined(c, fork, name, size, 0, c->o->bigfile_name == NULL)) != 0)
        return rc;
    TRY(EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork", name);
    if ((rc = region_end(c, size)) != 0)
        return rc;

    if (c->big_written) {
        TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, c->dir, BIGFILE_NAME), "FPDelete", BIGFILE_NAME);
        c->big_written = 0;
    }
    return 0;
}

/* ---- test 4: Locking/Unlocking 10000 times each ---- */

static int test_locking(struct lt *c)
{
    static const char name[] = "File.lock";
    afp_fork_t fork;
    int rc;

    if ((rc = expect_absent(c, c->dir, name)) != 0)
        return rc;
    TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, "", 0, AFP_DIR_DID, NULL),
        "FPGetFileDirParms", c->dirname);
    TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, c->dir, name, false), "FPCreateFile", name);
    TRY(EXIT_FILEDIR, is_there(c, c->dir, name), "probe", name);
    TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, name, F_SETUP, 0, NULL),
        "FPGetFileDirParms", name);
    TRY(EXIT_FORK,
        afp_openfork(c->s, c->vol, c->dir, name, AFP_FORK_DATA,
                     AFP_FILE_PDID | AFP_FILE_FNUM | AFP_FILE_DFLEN, RW_DENY, &fork, NULL),
        "FPOpenFork", name);
    TRY(EXIT_FORK, afp_getforkparms(c->s, fork, AFP_FILE_PDID | AFP_FILE_DFLEN, NULL),
        "FPGetForkParms", name);
    TRY(EXIT_FILEDIR,
        afp_getfiledirparms(c->s, c->vol, c->dir, name,
                            AFP_FILE_ATTR | AFP_FILE_CDATE | AFP_FILE_MDATE | AFP_FILE_FNUM |
                                AFP_FILE_FINFO | AFP_FILE_DFLEN | AFP_FILE_RFLEN,
                            0, NULL),
        "FPGetFileDirParms", name);
    if ((rc = write_pattern(c, fork, 40000, 4)) != 0)
        return rc;
    TRY(EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork", name);
    TRY(EXIT_FILEDIR, is_there(c, c->dir, name), "probe", name);
    TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, name, F_STAT2, D_STAT2, NULL),
        "FPGetFileDirParms", name);
    TRY(EXIT_FORK,
        afp_openfork(c->s, c->vol, c->dir, name, AFP_FORK_DATA, F_OPEN, AFP_OPEN_READ, &fork, NULL),
        "FPOpenFork", name);
    TRY(EXIT_FORK, afp_getforkparms(c->s, fork, AFP_FILE_DFLEN, NULL), "FPGetForkParms", name);
    if ((rc = read_and_check(c, fork, 512, 4, name)) != 0)
        return rc;
    TRY(EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork", name);
    TRY(EXIT_FORK,
        afp_openfork(c->s, c->vol, c->dir, name, AFP_FORK_DATA, F_OPEN,
                     AFP_OPEN_READ | AFP_OPEN_WRITE, &fork, NULL),
        "FPOpenFork", name);
    TRY(EXIT_FORK, afp_getforkparms(c->s, fork, F_FORKP, NULL), "FPGetForkParms", name);
    TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, name, F_STAT1, 0, NULL),
        "FPGetFileDirParms", name);

    region_begin(c);
    for (int round = 0; round < 250; round++) {
        for (int32_t off = 0; off < 400; off += 10) {
            TRY(EXIT_FORK, afp_byterangelock(c->s, fork, 0, off, 10, NULL), "FPByteRangeLock",
                name);
            TRY(EXIT_FORK, afp_byterangelock(c->s, fork, AFP_LOCK_UNLOCK, off, 10, NULL),
                "FPByteRangeLock (unlock)", name);
        }
    }
    if ((rc = region_end(c, 0)) != 0)
        return rc;

    TRY(EXIT_FILEDIR, is_there(c, c->dir, name), "probe", name);
    TRY(EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork", name);
    TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, c->dir, name), "FPDelete", name);
    return 0;
}

/* ---- tests 5, 6, 7: a directory with 2000 files ---- */

#define T5_FILES 2000
#define T6_REQCOUNT 40

static int test_create_files(struct lt *c)
{
    int rc;

    names_make(c, 0, "File.0k", 0, 1, T5_FILES);
    region_begin(c);
    for (int i = 0; i < T5_FILES; i++) {
        const char *name = c->names[i];
        TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, c->dir, name, false), "FPCreateFile", name);
        TRY(EXIT_FILEDIR, afp_getfiledirparms(c->s, c->vol, c->dir, name, F_SETUP, 0, NULL),
            "FPGetFileDirParms", name);
    }
    if ((rc = region_end(c, 0)) != 0)
        return rc;
    /* Without tests 6 and 7 the files must go before the next iteration. */
    if (!(c->o->tests & ((1u << 5) | (1u << 6))))
        return delete_names(c, c->dir, "File.0k", 0, 1, T5_FILES);
    return 0;
}

static int enumerate_checked(struct lt *c, uint16_t start, unsigned *total)
{
    unsigned count = 0;
    unsigned expect = T5_FILES - start + 1 < T6_REQCOUNT ? T5_FILES - start + 1 : T6_REQCOUNT;
    TRY(EXIT_FILEDIR,
        afp_enumerate(c->s, c->vol, c->dir, "", F_ENUM, D_ENUM, T6_REQCOUNT, start, 8192, NULL,
                      NULL, &count),
        "FPEnumerate", c->dirname);
    if (count != expect)
        return fail_validation(c, "FPEnumerate '%s' from %u: %u entries, expected %u", c->dirname,
                               start, count, expect);
    *total += count;
    return 0;
}

static int test_enumerate(struct lt *c)
{
    unsigned total = 0;
    int rc;

    /* afp_lantest's order: 1, then pairs (i + 40, i) for i = 41, 121, ...;
     * it stops before the last 40 entries, which the final call adds. */
    region_begin(c);
    if ((rc = enumerate_checked(c, 1, &total)) != 0)
        return rc;
    for (uint16_t i = 41; i + T6_REQCOUNT < T5_FILES; i += 2 * T6_REQCOUNT) {
        if ((rc = enumerate_checked(c, (uint16_t)(i + T6_REQCOUNT), &total)) != 0 ||
            (rc = enumerate_checked(c, i, &total)) != 0)
            return rc;
    }
    if ((rc = enumerate_checked(c, T5_FILES - T6_REQCOUNT + 1, &total)) != 0)
        return rc;
    if ((rc = region_end(c, 0)) != 0)
        return rc;
    if (total != T5_FILES)
        return fail_validation(c, "FPEnumerate '%s': %u entries in all, expected %d", c->dirname,
                               total, T5_FILES);
    /* Without test 7 the files must go before the next iteration. */
    if (!(c->o->tests & (1u << 6)))
        return delete_names(c, c->dir, "File.0k", 0, 1, T5_FILES);
    return 0;
}

static int test_delete_files(struct lt *c)
{
    int rc;
    names_make(c, 0, "File.0k", 0, 1, T5_FILES);
    region_begin(c);
    if ((rc = delete_table(c, c->dir, T5_FILES)) != 0)
        return rc;
    return region_end(c, 0);
}

/* ---- test 8: Create directory tree with 1000 dirs ---- */

static int test_dir_tree(struct lt *c)
{
    char(*name)[LANTEST_NAME_LEN] = c->names; /* dir01 .. dir10 */
    uint32_t top[10], mid[10][10];
    int rc;

    names_make(c, 0, "dir", 2, 1, 10);
    region_begin(c);
    for (int i = 0; i < 10; i++) {
        TRY(EXIT_FILEDIR, afp_createdir(c->s, c->vol, c->dir, name[i], &top[i]), "FPCreateDir",
            name[i]);
        for (int j = 0; j < 10; j++) {
            TRY(EXIT_FILEDIR, afp_createdir(c->s, c->vol, top[i], name[j], &mid[i][j]),
                "FPCreateDir", name[j]);
            for (int k = 0; k < 10; k++) {
                TRY(EXIT_FILEDIR, afp_createdir(c->s, c->vol, mid[i][j], name[k], NULL),
                    "FPCreateDir", name[k]);
            }
        }
    }
    if ((rc = region_end(c, 0)) != 0)
        return rc;

    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++)
            if ((rc = delete_names(c, mid[i][j], "dir", 2, 1, 10)) != 0)
                return rc;
        if ((rc = delete_names(c, top[i], "dir", 2, 1, 10)) != 0)
            return rc;
    }
    return delete_names(c, c->dir, "dir", 2, 1, 10);
}

/* ---- test 9: Directory cache hits (100 dirs + 1000 files) ---- */

static int test_cache_hits(struct lt *c)
{
    char name[64];
    uint32_t dids[10];
    int rc;

    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "cache_dir_%d", i);
        TRY(EXIT_FILEDIR, afp_createdir(c->s, c->vol, c->dir, name, &dids[i]), "FPCreateDir", name);
        for (int j = 0; j < 10; j++) {
            snprintf(name, sizeof name, "cache_file_%d_%d", i, j);
            TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, dids[i], name, false), "FPCreateFile",
                name);
        }
    }

    /* names[i] = cache_dir_<i>, names[10 + 10 i + j] = cache_file_<i>_<j> */
    for (int i = 0; i < 10; i++) {
        snprintf(c->names[i], LANTEST_NAME_LEN, "cache_dir_%d", i);
        for (int j = 0; j < 10; j++)
            snprintf(c->names[10 + 10 * i + j], LANTEST_NAME_LEN, "cache_file_%d_%d", i, j);
    }
    region_begin(c);
    for (int round = 0; round < 100; round++) {
        for (int i = 0; i < 10; i++) {
            TRY(EXIT_FILEDIR, is_there(c, c->dir, c->names[i]), "probe", c->names[i]);
            for (int j = 0; j < 10; j++) {
                const char *file = c->names[10 + 10 * i + j];
                TRY(EXIT_FILEDIR,
                    afp_getfiledirparms(c->s, c->vol, dids[i], file,
                                        AFP_FILE_FNUM | AFP_FILE_PDID | AFP_FILE_DFLEN, 0, NULL),
                    "FPGetFileDirParms", file);
            }
        }
    }
    if ((rc = region_end(c, 0)) != 0)
        return rc;

    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            snprintf(name, sizeof name, "cache_file_%d_%d", i, j);
            TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, dids[i], name), "FPDelete", name);
        }
    }
    return delete_names(c, c->dir, "cache_dir_", 0, 0, 9);
}

/* ---- test 10: Mixed cache operations (create/stat/enum/delete) ---- */

static int test_mixed(struct lt *c)
{
    int rc;

    names_make(c, 0, "mixed_file_", 0, 0, 200);
    region_begin(c);
    for (int i = 0; i < 200; i++) {
        const char *name = c->names[i];
        TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, c->dir, name, false), "FPCreateFile", name);
        TRY(EXIT_FILEDIR,
            afp_getfiledirparms(c->s, c->vol, c->dir, name,
                                AFP_FILE_FNUM | AFP_FILE_PDID | AFP_FILE_DFLEN, 0, NULL),
            "FPGetFileDirParms", name);
        if (i % 10 == 9) {
            /* As upstream: an enumerate failure only warns. It is still an
             * AFP op run, and counted as one. */
            rc = afp_enumerate(c->s, c->vol, c->dir, "", AFP_FILE_LNAME | AFP_FILE_FNUM, 0, 100, 1,
                               8192, NULL, NULL, NULL);
            if (afpb_is_local_error(rc))
                return fail(c, rc, EXIT_FILEDIR, "FPEnumerate", c->dirname);
            if (rc != 0)
                fprintf(stderr, "lantest: warning: test 10: FPEnumerate: %s\n", afp_strerror(rc));
        }
        TRY(EXIT_FILEDIR,
            afp_getfiledirparms(c->s, c->vol, c->dir, name,
                                AFP_FILE_FNUM | AFP_FILE_CDATE | AFP_FILE_MDATE, 0, NULL),
            "FPGetFileDirParms", name);
        TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, c->dir, name), "FPDelete", name);
    }
    return region_end(c, 0);
}

/* ---- test 11: Deep path traversal (nested directory navigation) ---- */

#define T11_DEPTH 20
#define T11_FILES 50

static int test_deep_path(struct lt *c)
{
    char name[64];
    uint32_t did[T11_DEPTH + 1]; /* did[0] = test dir, did[d + 1] = deep_<d> */
    int rc;

    did[0] = c->dir;
    for (int d = 0; d < T11_DEPTH; d++) {
        snprintf(name, sizeof name, "deep_%02d", d);
        TRY(EXIT_FILEDIR, afp_createdir(c->s, c->vol, did[d], name, &did[d + 1]), "FPCreateDir",
            name);
    }
    uint32_t deepest = did[T11_DEPTH];
    for (int i = 0; i < T11_FILES; i++) {
        snprintf(name, sizeof name, "deep_file_%d", i);
        TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, deepest, name, false), "FPCreateFile", name);
    }

    /* names[d] = deep_<d>, names[T11_DEPTH + i] = deep_file_<i> */
    names_make(c, 0, "deep_", 2, 0, T11_DEPTH);
    names_make(c, T11_DEPTH, "deep_file_", 0, 0, T11_FILES);
    region_begin(c);
    for (int walk = 0; walk < 50; walk++) {
        for (int d = 0; d < T11_DEPTH; d++)
            TRY(EXIT_FILEDIR, is_there(c, did[d], c->names[d]), "probe", c->names[d]);
        for (int i = 0; i < T11_FILES; i++) {
            const char *file = c->names[T11_DEPTH + i];
            TRY(EXIT_FILEDIR,
                afp_getfiledirparms(c->s, c->vol, deepest, file, AFP_FILE_FNUM | AFP_FILE_DFLEN, 0,
                                    NULL),
                "FPGetFileDirParms", file);
        }
    }
    if ((rc = region_end(c, 0)) != 0)
        return rc;

    if ((rc = delete_names(c, deepest, "deep_file_", 0, 0, T11_FILES - 1)) != 0)
        return rc;
    for (int d = T11_DEPTH - 1; d >= 0; d--) {
        snprintf(name, sizeof name, "deep_%02d", d);
        TRY(EXIT_FILEDIR, afp_delete(c->s, c->vol, did[d], name), "FPDelete", name);
    }
    return 0;
}

/* ---- test 12: Cache validation efficiency (metadata changes) ---- */

static int test_cache_validation(struct lt *c)
{
    static const uint16_t bitmaps[3] = {
        AFP_FILE_FNUM | AFP_FILE_PDID,
        AFP_FILE_DFLEN | AFP_FILE_CDATE,
        AFP_FILE_MDATE | AFP_FILE_FINFO,
    };
    char name[64];
    int rc;

    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "valid_file_%d", i);
        TRY(EXIT_FILEDIR, afp_createfile(c->s, c->vol, c->dir, name, false), "FPCreateFile", name);
    }
    names_make(c, 0, "valid_file_", 0, 0, 100);
    region_begin(c);
    for (int round = 0; round < 100; round++) {
        for (int i = 0; i < 100; i++) {
            for (int b = 0; b < 3; b++)
                TRY(EXIT_FILEDIR,
                    afp_getfiledirparms(c->s, c->vol, c->dir, c->names[i], bitmaps[b], 0, NULL),
                    "FPGetFileDirParms", c->names[i]);
        }
    }
    if ((rc = region_end(c, 0)) != 0)
        return rc;
    return delete_names(c, c->dir, "valid_file_", 0, 0, 99);
}

/* The catalogue: every place that names the tests (the gate's ranges and
 * groups, the docs) derives from this table through afpbench lantest --list
 * (scripts/lantest-tests.json). The commands are those the per-command pass
 * saw each test's timed part send. */
const struct lantest_def lantest_defs[] = {
    {1, "Open, stat and read 512 bytes from 1000 files [8,000 AFP ops]", 8000, test_open_stat_read,
     "files", "FPGetFileDirParms,FPOpenFork,FPGetForkParms,FPRead,FPCloseFork"},
    {2, "Writing one large file [103 AFP ops]", 103, test_write_big, "files",
     "FPWriteExt,FPCloseFork"},
    {3, "Reading one large file [102 AFP ops]", 102, test_read_big, "files",
     "FPReadExt,FPCloseFork"},
    {4, "Locking/Unlocking 10000 times each [20,000 AFP ops]", 20000, test_locking, "files",
     "FPByteRangeLock"},
    {5, "Creating dir with 2000 files [4,000 AFP ops]", 4000, test_create_files, "files",
     "FPCreateFile,FPGetFileDirParms"},
    {6, "Enumerate dir with 2000 files [~51 AFP ops]", 51, test_enumerate, "files", "FPEnumerate"},
    {7, "Deleting dir with 2000 files [2,000 AFP ops]", 2000, test_delete_files, "files",
     "FPDelete"},
    {8, "Create directory tree with 1000 dirs [1,110 AFP ops]", 1110, test_dir_tree, "files",
     "FPCreateDir"},
    {9, "Directory cache hits (100 dirs + 1000 files) [11,000 AFP ops]", 11000, test_cache_hits,
     "cache", "FPGetFileDirParms"},
    {10, "Mixed cache operations (create/stat/enum/delete) [820 AFP ops]", 820, test_mixed, "cache",
     "FPCreateFile,FPGetFileDirParms,FPDelete,FPEnumerate"},
    {11, "Deep path traversal (nested directory navigation) [3,500 AFP ops]", 3500, test_deep_path,
     "cache", "FPGetFileDirParms"},
    {12, "Cache validation efficiency (metadata changes) [30,000 AFP ops]", 30000,
     test_cache_validation, "cache", "FPGetFileDirParms"},
};

/* A new test is one more entry above: the count, the gate's ranges and the
 * docs follow from it. */
const int lantest_num_tests = (int)(sizeof lantest_defs / sizeof lantest_defs[0]);
_Static_assert(sizeof lantest_defs / sizeof lantest_defs[0] <= LANTEST_MAX_TESTS,
               "a lantest selection is a 32-bit mask");

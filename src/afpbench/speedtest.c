/* afpbench speedtest: afp_speedtest's Read, Write, Copy and ServerCopy
 * tests over a size sweep, against an AFP server or (-L/-P) a local
 * directory for comparison.
 *
 * For every (test, size): W warm-up runs, then n measured runs; each run
 * times one transfer of the whole file. Files hold the offset pattern
 * (pattern.h); every read is checked, and after the runs the written or
 * copied file is read back and checked (untimed). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchconn.h"
#include "commands.h"
#include "dsi.h"
#include "session.h"
#include "speedtest.h"
#include "speedtest_local.h"
#include "suite.h"
#include "timed.h"
#include "xfer.h"

/* speedtest/3: a request's data is the most whole 4 KiB blocks that leave
 * room for FPWriteExt's parameters within the server quantum (1020 KiB
 * where the quantum is 1 MiB; speedtest/2 took 1 MiB - 20 bytes), so every
 * request starts on a page of the file. Requests at offsets 20 bytes apart
 * from a page made afpd's sendfile and the client's receive copy slower:
 * Read took 22 ms for 64 MiB at best here, against 15 ms for whole pages
 * (docs/client-speed.md). A 64 MiB file still takes 65 requests. */
#define SPEEDTEST_SUITE_VERSION "speedtest/3"
#define LOCAL_REQUEST (1024 * 1024)
/* Reads and writes share one request size, as upstream's afp_speedtest
 * does: what a write request carries (dsi_write_size), in whole blocks. */

static const uint32_t pattern_seed = 7;

/* ---- failures ---- */

static int st_fail(struct st *c, struct result_test *t, int rc, int code, const char *what)
{
    char msg[300];
    if (afpb_is_local_error(rc)) {
        code = EXIT_NETWORK;
        c->connection_lost = 1;
    }
    snprintf(msg, sizeof msg, "%s: %s: %s%s%s", t ? t->name : "speedtest", what,
             c->local ? strerror(rc) : afp_strerror(rc),
             !c->local && afp_session_error(c->s)[0] ? " - " : "",
             c->local ? "" : afp_session_error(c->s));
    return results_fail_test(c->res, t, code, "%s", msg);
}

static int st_fail_xfer(struct st *c, struct result_test *t, int rc, const char *what,
                        const struct xfer_fault *f)
{
    if (!xfer_is_fault(rc))
        return st_fail(c, t, rc, EXIT_FORK, what);
    char why[200];
    return results_fail_test(c->res, t, rc == XFER_ELIMIT ? EXIT_PARAM : EXIT_VALIDATION,
                             "%s: %s: %s", t->name, what, xfer_fault_text(rc, f, why, sizeof why));
}

#define TRY(t, code, call, what)                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0)                                                                              \
            return st_fail(c, (t), rc_, (code), (what));                                           \
    } while (0)

/* ---- AFP mode ---- */

struct afp_files {
    uint32_t dir, dst_dir; /* test dir (and its twin on volume 2 for copies) */
    uint16_t dst_vol;
};

/* Create (or recreate) name in did and return its data fork opened RW. */
static int afp_fresh_file(struct st *c, struct result_test *t, uint16_t vol, uint32_t did,
                          const char *name, afp_fork_t *fork)
{
    int rc = afp_delete(c->s, vol, did, name);
    if (rc != 0 && rc != AFPERR_NOOBJ)
        return st_fail(c, t, rc, EXIT_FILEDIR, "FPDelete");
    TRY(t, EXIT_FILEDIR, afp_createfile(c->s, vol, did, name, false), "FPCreateFile");
    TRY(t, EXIT_FORK,
        afp_openfork(c->s, vol, did, name, AFP_FORK_DATA, AFP_FILE_FNUM,
                     AFP_OPEN_READ | AFP_OPEN_WRITE | AFP_OPEN_DENY_WRITE, fork, NULL),
        "FPOpenFork");
    return 0;
}

/* Fill a file with the pattern (or, -e, just set its length), untimed. */
static int afp_fill(struct st *c, struct result_test *t, afp_fork_t fork, uint64_t size)
{
    struct xfer_fault fault = {0};
    int rc;
    if (c->o->sparse) {
        /* The length bitmap of AFP 2.x is 32 bits wide, like its offsets. */
        if ((rc = xfer_check_size(c->s, size, &fault)) != 0)
            return st_fail_xfer(c, t, rc, "setting the file's length", &fault);
        uint16_t bitmap = afp_session_offsets64(c->s) ? AFP_FILE_EXTDFLEN : AFP_FILE_DFLEN;
        TRY(t, EXIT_FORK, afp_setforkparms(c->s, fork, bitmap, size), "FPSetForkParms");
        return 0;
    }
    rc = xfer_write(c->s, fork, size, c->req, c->o->window, &c->pat, &fault);
    if (rc != 0)
        return st_fail_xfer(c, t, rc, "filling the file", &fault);
    TRY(t, EXIT_FORK, afp_flushfork(c->s, fork), "FPFlushFork");
    return 0;
}

/* Make the file a test reads from: created afresh, filled, closed (untimed). */
static int afp_make_source(struct st *c, struct result_test *t, uint32_t did, const char *name,
                           uint64_t size)
{
    afp_fork_t fork;
    int rc;
    if ((rc = afp_fresh_file(c, t, c->vol, did, name, &fork)) != 0 ||
        (rc = afp_fill(c, t, fork, size)) != 0)
        return rc;
    TRY(t, EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork");
    return 0;
}

/* Read a file back and check it (untimed). Sparse files are not checked. */
static int afp_verify(struct st *c, struct result_test *t, uint16_t vol, uint32_t did,
                      const char *name, uint64_t size)
{
    afp_fork_t fork;
    struct xfer_fault fault = {0};
    TRY(t, EXIT_FORK,
        afp_openfork(c->s, vol, did, name, AFP_FORK_DATA, AFP_FILE_FNUM, AFP_OPEN_READ, &fork,
                     NULL),
        "FPOpenFork (read-back)");
    int rc = xfer_read(c->s, fork, size, c->req, c->o->window, c->bufs,
                       c->o->sparse ? NULL : &c->pat, &fault);
    if (rc != 0)
        return st_fail_xfer(c, t, rc, "read-back", &fault);
    TRY(t, EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork");
    return 0;
}

/* One timed run of op on an AFP file of size bytes: its time, AFP ops and
 * server IO go into smp. */
static int afp_run(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                   const struct afp_files *f, int first, struct result_sample *smp)
{
    afp_fork_t fork, dst;
    struct xfer_fault fault = {0};
    struct timed_region reg;
    int rc, fresh = first || c->o->new_file_each_run;
    /* Read, Copy and ServerCopy read a file: -F names one in the volume
     * root; else it is ours, made on the first run (every run with -y). */
    int reads_source = op == SPEED_READ || op == SPEED_COPY || op == SPEED_SERVERCOPY;
    const char *src_name = op == SPEED_READ ? "File" : "Source";
    uint32_t src_dir = f->dir;
    if (c->o->file_name != NULL) {
        src_name = c->o->file_name;
        src_dir = AFP_DID_ROOT;
    } else if (reads_source && fresh) {
        if ((rc = afp_make_source(c, t, f->dir, src_name, size)) != 0)
            return rc;
    }

    switch (op) {
    case SPEED_WRITE:
        if (fresh) {
            if ((rc = afp_fresh_file(c, t, c->vol, f->dir, "File", &fork)) != 0)
                return rc;
        } else {
            TRY(t, EXIT_FORK,
                afp_openfork(c->s, c->vol, f->dir, "File", AFP_FORK_DATA, AFP_FILE_FNUM,
                             AFP_OPEN_READ | AFP_OPEN_WRITE | AFP_OPEN_DENY_WRITE, &fork, NULL),
                "FPOpenFork");
        }
        timed_begin(&reg, c->s, &c->io);
        if ((rc = xfer_write(c->s, fork, size, c->req, c->o->window, &c->pat, &fault)) != 0)
            return st_fail_xfer(c, t, rc, "write", &fault);
        if (!c->o->no_flush)
            TRY(t, EXIT_FORK, afp_flushfork(c->s, fork), "FPFlushFork");
        timed_end(&reg, smp);
        TRY(t, EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork");
        return 0;

    case SPEED_READ:
        TRY(t, EXIT_FORK,
            afp_openfork(c->s, c->vol, src_dir, src_name, AFP_FORK_DATA, AFP_FILE_FNUM,
                         AFP_OPEN_READ, &fork, NULL),
            "FPOpenFork");
        timed_begin(&reg, c->s, &c->io);
        /* A given file (-F) is not ours: its bytes cannot be checked. */
        rc = xfer_read(c->s, fork, size, c->req, c->o->window, c->bufs,
                       c->o->sparse || c->o->file_name ? NULL : &c->pat, &fault);
        if (rc != 0)
            return st_fail_xfer(c, t, rc, "read", &fault);
        timed_end(&reg, smp);
        TRY(t, EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork");
        return 0;

    case SPEED_COPY:
        TRY(t, EXIT_FORK,
            afp_openfork(c->s, c->vol, src_dir, src_name, AFP_FORK_DATA, AFP_FILE_FNUM,
                         AFP_OPEN_READ, &fork, NULL),
            "FPOpenFork");
        if ((rc = afp_fresh_file(c, t, f->dst_vol, f->dst_dir, "Destination", &dst)) != 0)
            return rc;
        timed_begin(&reg, c->s, &c->io);
        rc = xfer_copy(c->s, fork, dst, size, c->req, c->o->window, c->bufs, &fault);
        if (rc != 0)
            return st_fail_xfer(c, t, rc, "copy", &fault);
        if (!c->o->no_flush)
            TRY(t, EXIT_FORK, afp_flushfork(c->s, dst), "FPFlushFork");
        timed_end(&reg, smp);
        TRY(t, EXIT_FORK, afp_closefork(c->s, fork), "FPCloseFork");
        TRY(t, EXIT_FORK, afp_closefork(c->s, dst), "FPCloseFork");
        return 0;

    case SPEED_SERVERCOPY:
        rc = afp_delete(c->s, f->dst_vol, f->dst_dir, "Destination");
        if (rc != 0 && rc != AFPERR_NOOBJ)
            return st_fail(c, t, rc, EXIT_FILEDIR, "FPDelete");
        timed_begin(&reg, c->s, &c->io);
        TRY(t, EXIT_FILEDIR,
            afp_copyfile(c->s, c->vol, src_dir, src_name, f->dst_vol, f->dst_dir, "Destination"),
            "FPCopyFile");
        timed_end(&reg, smp);
        return 0;

    default:
        return EXIT_PARAM;
    }
}

/* Remove a test's directories, also after a failure: a failed run can
 * leave its forks open and requests in flight, and netatalk will not delete
 * a file with an open fork, so those are settled first. */
static void afp_remove_test_dirs(struct st *c, const struct afp_files *f, const char *dirname)
{
    int rc = afp_session_close_forks(c->s);
    if (rc == 0)
        rc = benchconn_delete_tree(c->s, c->vol, AFP_DID_ROOT, dirname);
    if (rc == 0 && f->dst_vol != c->vol)
        rc = benchconn_delete_tree(c->s, f->dst_vol, AFP_DID_ROOT, dirname);
    if (rc != 0)
        fprintf(stderr, "speedtest: warning: could not remove %s: %s - %s\n", dirname,
                afp_strerror(rc), afp_session_error(c->s));
}

/* The directories of one (op, size) on the volume(s): SpeedTest dirs named
 * for the op, this process and the side ("b" for an A/B base, which may be
 * the same server). */
static int afp_prepare_test(struct st *c, struct result_test *t, enum speedtest_op op,
                            struct afp_files *f, char *dirname, size_t len)
{
    memset(f, 0, sizeof *f);
    snprintf(dirname, len, "%sTest-%ld%s", speedtest_op_name(op), (long)getpid(), c->side_suffix);
    (void)benchconn_delete_tree(c->s, c->vol, AFP_DID_ROOT, dirname); /* an old one */
    TRY(t, EXIT_FILEDIR, afp_createdir(c->s, c->vol, AFP_DID_ROOT, dirname, &f->dir),
        "FPCreateDir");
    f->dst_vol = c->vol;
    f->dst_dir = f->dir;
    if (c->vol2 != 0 && (op == SPEED_COPY || op == SPEED_SERVERCOPY)) {
        f->dst_vol = c->vol2;
        (void)benchconn_delete_tree(c->s, c->vol2, AFP_DID_ROOT, dirname);
        TRY(t, EXIT_FILEDIR, afp_createdir(c->s, c->vol2, AFP_DID_ROOT, dirname, &f->dst_dir),
            "FPCreateDir (second volume)");
    }
    return 0;
}

/* Check what the runs produced (when they succeeded), then remove the
 * directories. */
static int afp_finish_test(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                           const struct afp_files *f, const char *dirname, int rc)
{
    if (rc == 0 && op == SPEED_WRITE)
        rc = afp_verify(c, t, c->vol, f->dir, "File", size);
    if (rc == 0 && (op == SPEED_COPY || op == SPEED_SERVERCOPY) && c->o->file_name == NULL)
        rc = afp_verify(c, t, f->dst_vol, f->dst_dir, "Destination", size);
    if (!c->connection_lost)
        afp_remove_test_dirs(c, f, dirname);
    return rc;
}

/* ---- the driver ---- */

static void sleep_s(unsigned s)
{
    struct timespec ts = {(time_t)s, 0};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void human_size(uint64_t bytes, char *out, size_t len)
{
    if (bytes >= 1048576 && bytes % 1048576 == 0)
        snprintf(out, len, "%" PRIu64 " MiB", bytes / 1048576);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, len, "%" PRIu64 " KiB", bytes / 1024);
    else
        snprintf(out, len, "%" PRIu64 " bytes", bytes);
}

/* Run number `run` of one (op, size): warm-ups first (1..W), then the
 * measured iterations, recorded in t; order is the A/B place (0 = none). */
static int run_once(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                    const void *files, const char *local_dir, unsigned run, unsigned order)
{
    const struct speedtest_opts *o = c->o;
    /* Local mode has no server: no AFP ops, no server IO. */
    struct result_sample smp = {
        .afpd_r = RESULTS_UNKNOWN,
        .afpd_w = RESULTS_UNKNOWN,
        .cnid_r = RESULTS_UNKNOWN,
        .cnid_w = RESULTS_UNKNOWN,
        .afpd_rchar = RESULTS_UNKNOWN,
        .afpd_wchar = RESULTS_UNKNOWN,
        .afpd_cpu_us = RESULTS_UNKNOWN,
        .afpd_wait_us = RESULTS_UNKNOWN,
        .cnid_cpu_us = RESULTS_UNKNOWN,
        .afpd_hwm_kb = RESULTS_UNKNOWN,
        .cnid_hwm_kb = RESULTS_UNKNOWN,
        .bytes = size,
        .order = order,
    };
    int measured = run > o->warmup;
    int rc = c->local ? speedtest_local_run(c, t, op, size, local_dir, run == 1, &smp.us)
                      : afp_run(c, t, op, size, files, run == 1, &smp);
    if (rc != 0)
        return rc;
    double mbs = smp.us > 0 ? (double)size / 1048576.0 / ((double)smp.us / 1e6) : 0;
    if (measured) {
        smp.iteration = run - o->warmup;
        if (results_add_sample(t, &smp) != 0) {
            results_fail(c->res, EXIT_ALLOC, "out of memory recording a sample");
            return EXIT_ALLOC;
        }
        fprintf(stderr, "%s%s run %u/%u: %" PRIu64 " us, %.2f MB/s\n", c->label, t->name,
                smp.iteration, o->common.iterations, smp.us, mbs);
        timed_print_io(stderr, &smp);
    } else {
        fprintf(stderr, "%s%s [W%u] %" PRIu64 " us, %.2f MB/s (warm-up)\n", c->label, t->name, run,
                smp.us, mbs);
    }
    return 0;
}

/* Warm-up and measured runs of one (op, size), recording samples in t.
 * files: the AFP mode's directory handles; local_dir: local mode's. */
static int run_test_runs(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                         const void *files, const char *local_dir)
{
    const struct speedtest_opts *o = c->o;
    unsigned total = o->warmup + o->common.iterations;
    for (unsigned run = 1; run <= total; run++) {
        int rc = run_once(c, t, op, size, files, local_dir, run, 0);
        if (rc != 0)
            return rc;
        if (o->delay_s > 0 && run < total)
            sleep_s(o->delay_s);
    }
    return 0;
}

static int afp_run_test(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size)
{
    struct afp_files f;
    char dirname[64];
    int rc = afp_prepare_test(c, t, op, &f, dirname, sizeof dirname);
    if (rc != 0)
        return rc;
    rc = run_test_runs(c, t, op, size, &f, NULL);
    return afp_finish_test(c, t, op, size, &f, dirname, rc);
}

static int local_run_test(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size)
{
    char dir[4096];
    int rc = speedtest_local_prepare(c, t, op, dir, sizeof dir);
    if (rc != 0)
        return rc;
    rc = run_test_runs(c, t, op, size, NULL, dir);
    return speedtest_local_finish(c, t, op, size, dir, rc);
}

/* One run of one (op, size) on one side of an A/B run. */
struct ab_run {
    struct result_test **ts;
    enum speedtest_op op;
    uint64_t size;
    struct afp_files *f;
    unsigned run;
};

static int run_side(struct suite_side *sd, unsigned order, void *arg)
{
    const struct ab_run *r = arg;
    return run_once(sd->state, r->ts[sd->index], r->op, r->size, &r->f[sd->index], NULL, r->run,
                    order);
}

/* A/B: one (op, size) on both sides. Warm-ups run on each side, unpaired;
 * then every measured run goes to both back to back, one pair per run
 * (suite_pair: ABBA), so that load and drift hit both alike. */
static int run_test_ab(struct suite *s, struct result_test *ts[2], enum speedtest_op op,
                       uint64_t size)
{
    struct st *sides[2] = {s->side[SUITE_HEAD].state, s->side[SUITE_BASE].state};
    struct afp_files f[2];
    char dirs[2][64];
    int rc = 0, prepared = 0;
    for (; prepared < 2 && rc == 0; prepared++)
        rc = afp_prepare_test(sides[prepared], ts[prepared], op, &f[prepared], dirs[prepared],
                              sizeof dirs[prepared]);
    const struct speedtest_opts *o = sides[0]->o;
    unsigned total = o->warmup + o->common.iterations;
    for (unsigned run = 1; run <= total && rc == 0; run++) {
        struct ab_run r = {ts, op, size, f, run};
        rc = run > o->warmup ? suite_pair(s, run - o->warmup - 1, run_side, &r)
                             : suite_each(s, run_side, &r);
        if (rc == 0 && o->delay_s > 0 && run < total)
            sleep_s(o->delay_s);
    }
    for (int k = 0; k < prepared; k++) {
        int frc = afp_finish_test(sides[k], ts[k], op, size, &f[k], dirs[k], rc);
        if (rc == 0)
            rc = frc;
    }
    return rc;
}

/* The TCP snapshots before the first test, then every (op, size). */
static int run_all(struct suite *s)
{
    struct st *c = s->side[SUITE_HEAD].state;
    const struct speedtest_opts *o = c->o;
    int nsides = s->nsides;
    for (int k = 0; k < nsides; k++)
        speedtest_tcp_snapshot(s->side[k].state, TCP_INITIAL);
    for (int op = 0; op < SPEED_NUM_OPS; op++) {
        if (!(o->ops & (1u << op)))
            continue;
        if (op == SPEED_SERVERCOPY && o->local) {
            fprintf(stderr, "speedtest: ServerCopy needs a server; skipped in local mode\n");
            continue;
        }
        for (size_t i = 0; i < o->num_sizes; i++) {
            uint64_t size = o->sizes[i];
            char key[64], name[96], hs[32];
            struct result_test *ts[2] = {NULL, NULL};
            human_size(size, hs, sizeof hs);
            snprintf(key, sizeof key, "speedtest.%s.%" PRIu64, speedtest_op_name(op), size);
            snprintf(name, sizeof name, "%s %s", speedtest_op_name(op), hs);
            for (int k = 0; k < nsides; k++) {
                ts[k] = results_add_test(&s->side[k].res, key, name);
                if (ts[k] == NULL) {
                    results_fail(&s->side[k].res, EXIT_ALLOC, "out of memory");
                    return EXIT_ALLOC;
                }
                ts[k]->op = speedtest_op_name(op);
                ts[k]->size_bytes = size;
            }
            int rc;
            if (nsides == 2)
                rc = run_test_ab(s, ts, op, size);
            else
                rc = c->local ? local_run_test(c, ts[0], op, size)
                              : afp_run_test(c, ts[0], op, size);
            if (rc != 0)
                return rc;
            for (int k = 0; k < nsides; k++) {
                struct st *sk = s->side[k].state;
                if (!sk->local)
                    afp_session_keepalive(sk->s);
            }
        }
    }
    return 0;
}

static int setup_buffers(struct st *c)
{
    uint32_t quantum = c->local ? LOCAL_REQUEST : afp_session_quantum(c->s);
    /* the most data one write request can carry */
    uint32_t fits = c->local ? quantum : dsi_write_size(quantum);
    if (c->o->quantum)
        c->req = c->o->quantum;
    else if (c->local)
        c->req = quantum;
    else {
        c->req = afp_session_request_size(c->s);
        if (c->req > fits)
            c->req = fits;
        if (c->req > PATTERN_BLOCK) /* whole blocks: see SPEEDTEST_SUITE_VERSION */
            c->req -= c->req % PATTERN_BLOCK;
    }
    if (!c->local && c->req > fits) {
        results_fail(c->res, EXIT_PARAM,
                     "-q %u KiB and FPWriteExt's %u bytes of parameters are larger than the "
                     "server quantum (%u bytes): at most %u KiB",
                     c->req / 1024, DSI_WRITE_PARAMS, quantum, fits / 1024);
        return EXIT_PARAM;
    }
    c->res->request_bytes = c->req;
    void *bufs;
    size_t n = (size_t)c->req * (c->o->window > XFER_MAX_WINDOW ? XFER_MAX_WINDOW : c->o->window);
    if (pattern_buf_init(&c->pat, c->req, pattern_seed) != 0 ||
        posix_memalign(&bufs, PATTERN_BLOCK, n) != 0) {
        results_fail(c->res, EXIT_ALLOC, "out of memory for %zu bytes of buffers", n);
        return EXIT_ALLOC;
    }
    /* touched now, so that the first timed run takes no page faults */
    memset(bufs, 0, n);
    c->bufs = bufs;
    return 0;
}

/* The speedtest run: both sides' options and state, for the hooks. */
struct st_suite {
    struct speedtest_opts opts[2]; /* the base's: its connection */
    struct st sides[2];
    char *tcp_json[2];
};

/* One side's state and results, before it connects. */
static void side_init(struct suite *s, struct suite_side *sd)
{
    struct st_suite *ss = s->arg;
    struct st *c = &ss->sides[sd->index];
    const struct speedtest_opts *o = &ss->opts[sd->index];
    struct results *res = &sd->res;
    memset(c, 0, sizeof *c);
    sd->state = c;
    c->o = o;
    c->res = res;
    c->local = o->local;
    c->label = sd->label;
    c->side_suffix = sd->suffix;
    srvfiles_init(&c->srv);
    res->host = o->local ? NULL : o->common.conn.host;
    res->port = o->local ? 0 : o->common.conn.port;
    res->volume = o->local ? NULL : o->common.conn.volume;
    res->iterations = o->common.iterations;
    res->window = o->window;
    res->warmup = o->warmup;
    res->local_mode = o->local;
    res->direct_io = o->local && !o->no_direct;
    if (o->local)
        res->io_reason = "local mode: no server";
}

/* Set up one AFP side (or the local mode): session, buffers. */
static int side_open(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct st *c = sd->state;
    const struct speedtest_opts *o = c->o;
    int rc = 0;
    if (!o->local) {
        fprintf(stderr, "%sConnecting to %s port %u as %s, volume '%s'\n", c->label,
                o->common.conn.host, o->common.conn.port, o->common.conn.user,
                o->common.conn.volume);
        rc = benchconn_open(&o->common.conn, c->res, &c->s, &c->vol, &c->io, &c->srv);
        if (rc == 0 && o->common.conn.volume2 != NULL)
            rc = benchconn_open_volume(c->s, o->common.conn.volume2, c->res, &c->vol2);
    }
    if (rc == 0)
        rc = setup_buffers(c);
    return rc;
}

/* Log out; the TCP metrics go into the side's results. */
static void side_close(struct suite *s, struct suite_side *sd)
{
    struct st_suite *ss = s->arg;
    struct st *c = sd->state;
    speedtest_tcp_snapshot(c, TCP_FINAL);
    benchconn_close(c->s, c->connection_lost, c->res);
    c->s = NULL;
    iomon_stop(&c->io);
    results_finish(c->res);
    ss->tcp_json[sd->index] = speedtest_tcp_json(c);
    c->res->tcp_metrics_json = ss->tcp_json[sd->index];
}

static void print_side(const struct suite_side *sd, FILE *out)
{
    speedtest_report_human(sd->state, out);
}

static void report(struct suite *s)
{
    struct st_suite *ss = s->arg;
    if (s->side[SUITE_HEAD].res.ntests == 0)
        return;
    if (ss->opts[SUITE_HEAD].csv)
        speedtest_report_csv(&ss->sides[SUITE_HEAD], stdout);
    else
        suite_report_human(s, print_side, stdout);
}

static void side_free(struct suite *s, struct suite_side *sd)
{
    struct st_suite *ss = s->arg;
    struct st *c = sd->state;
    free(ss->tcp_json[sd->index]);
    srvfiles_close(&c->srv);
    pattern_buf_free(&c->pat);
    free(c->bufs);
}

static const struct suite_ops speedtest_ops = {
    .suite = "speedtest",
    .version = SPEEDTEST_SUITE_VERSION,
    .init = side_init,
    .open = side_open,
    .run = run_all,
    .close = side_close,
    .report = report,
    .free = side_free,
    .cpu = SUITE_CPU_SHARE_OPS,
};

static int parse(int argc, char **argv, void *opts)
{
    return cli_parse_speedtest(argc, argv, opts);
}

/* --list-sizes: the sizes a run would take, in MiB, and no run. */
static int list_sizes(void *arg)
{
    const struct speedtest_opts *o = &((struct st_suite *)arg)->opts[SUITE_HEAD];
    if (!o->list_sizes)
        return -1;
    for (size_t i = 0; i < o->num_sizes; i++)
        printf("%s%.10g", i ? "," : "", (double)o->sizes[i] / (1024.0 * 1024.0));
    printf("\n");
    return 0;
}

int speedtest_main(int argc, char **argv)
{
    static const struct suite_command command = {.ops = &speedtest_ops,
                                                 .opts_size = sizeof(struct speedtest_opts),
                                                 .parse = parse,
                                                 .instead = list_sizes};
    static struct st_suite ss;
    return suite_main(&command, &ss, ss.opts, argc, argv);
}

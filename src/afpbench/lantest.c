/* afpbench lantest: connect, log in, open the volume, find the server's
 * processes for IO monitoring, run the selected tests in LanTest-<pid> for
 * every iteration, remove the directory, log out, report.
 *
 * Whatever happens after the first measurement, the results measured so
 * far are written (--json, and the table or CSV) before exiting with
 * afp_lantest's exit code for the failure. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchconn.h"
#include "commands.h"
#include "lantest.h"
#include "lantest_dircache.h"
#include "lantest_instr.h"
#include "session.h"

/* The test directory, as afp_lantest makes it; an old one is removed. */
static int make_test_dir(struct lt *c)
{
    struct afp_params p;
    int rc;

    /* The base side of an A/B run may be the same server (A/A): its own name. */
    snprintf(c->dirname, sizeof c->dirname, "LanTest-%07ld%s", (long)getpid(), c->side_suffix);
    if ((rc = afp_getfiledirparms(c->s, c->vol, AFP_DID_ROOT, "", 0, AFP_DIR_DID, NULL)) != 0)
        goto fail;
    rc = afp_getfiledirparms(c->s, c->vol, AFP_DID_ROOT, c->dirname, AFP_FILE_LNAME | AFP_FILE_PDID,
                             AFP_DIR_LNAME | AFP_DIR_PDID, NULL);
    if (rc == 0) {
        fprintf(stderr, "lantest: removing an old %s\n", c->dirname);
        if ((rc = benchconn_delete_tree(c->s, c->vol, AFP_DID_ROOT, c->dirname)) != 0)
            goto fail;
    } else if (rc != AFPERR_NOOBJ) {
        goto fail;
    }
    if ((rc = afp_createdir(c->s, c->vol, AFP_DID_ROOT, c->dirname, &c->dir)) != 0)
        goto fail;
    if ((rc = afp_getfiledirparms(c->s, c->vol, c->dir, "", 0, AFP_DIR_DID, &p)) != 0)
        goto fail;
    rc = afp_getfiledirparms(c->s, c->vol, AFP_DID_ROOT, c->dirname, AFP_FILE_LNAME | AFP_FILE_PDID,
                             AFP_DIR_LNAME | AFP_DIR_PDID, NULL);
    if (rc == 0)
        return 0;
fail:
    results_fail(c->res, afpb_is_local_error(rc) ? EXIT_NETWORK : EXIT_FILEDIR,
                 "cannot create the test directory '%s': %s %s", c->dirname, afp_strerror(rc),
                 afp_session_error(c->s));
    if (afpb_is_local_error(rc))
        c->connection_lost = 1;
    return c->res->exit_code;
}

static int alloc_buffers(struct lt *c)
{
    uint32_t quantum = afp_session_request_size(c->s); /* issue 10: bounded */
    /* Upstream's chunk: a DSI packet (16-byte header + 20 bytes of
     * FPWriteExt parameters + data) of exactly one quantum. */
    c->chunk = quantum > 4096 ? quantum - 36 : quantum;
    c->rbuf = malloc(quantum > 65536 ? quantum : 65536);
    c->names = calloc(LANTEST_NAMES, sizeof *c->names);
    if (c->rbuf == NULL || c->names == NULL || pattern_buf_init(&c->pat, quantum, 2) != 0) {
        results_fail(c->res, EXIT_ALLOC, "out of memory for %u-byte buffers", quantum);
        return EXIT_ALLOC;
    }
    c->pat.full_every = LANTEST_FULL_CHECK_EVERY;
    return 0;
}

/* One results entry per selected test, in test order. */
static int register_tests(struct lt *c)
{
    for (int t = 0; t < LANTEST_NUM_TESTS; t++) {
        if (!(c->o->tests & (1u << t)))
            continue;
        char key[32];
        snprintf(key, sizeof key, "lantest.%d", t + 1);
        struct result_test *rt = results_add_test(c->res, key, lantest_defs[t].name);
        if (rt == NULL) {
            results_fail(c->res, EXIT_ALLOC, "out of memory");
            return EXIT_ALLOC;
        }
        rt->id = t + 1;
        rt->afp_ops_nominal = lantest_defs[t].nominal_ops;
        if (t == 1 || t == 2)
            rt->size_bytes = c->o->bigfile_bytes;
    }
    return 0;
}

static int run_one(struct lt *c, unsigned it, int t, unsigned order)
{
    char key[32];
    snprintf(key, sizeof key, "lantest.%d", t + 1);
    c->iteration = it;
    c->order = order;
    c->cur = results_find_test(c->res, key);
    c->test_id = t + 1;
    if (c->o->verbose)
        fprintf(stderr, "%sRun %u/%u => test %d: %s ...\n", c->label, it, c->o->iterations, t + 1,
                lantest_defs[t].name);
    /* --instr-dir: each test iteration in its own session. */
    int rc;
    if (c->instr != NULL && (rc = lt_instr_before_test(c)) != 0)
        return rc;
    rc = lantest_defs[t].run(c);
    if (c->instr != NULL)
        rc = lt_instr_after_test(c, rc);
    if (rc == 0 && c->s != NULL)
        afp_session_keepalive(c->s);
    return rc;
}

/* Every iteration of every selected test on each side. With two sides (A/B)
 * each test runs on both back to back, so that load and drift hit both
 * alike, and the order alternates from test to test and from iteration to
 * iteration (head-base, base-head, ...: ABBA), so that neither side always
 * runs first. A failure on either side ends the run. */
static int run_tests(struct lt *sides[], int nsides)
{
    for (int k = 0; k < nsides; k++) {
        int rc = register_tests(sides[k]);
        if (rc != 0)
            return rc;
    }
    const struct lantest_opts *o = sides[0]->o;
    for (unsigned it = 1; it <= o->iterations; it++) {
        unsigned nth = 0; /* selected tests so far in this iteration */
        for (int t = 0; t < LANTEST_NUM_TESTS; t++) {
            if (!(o->tests & (1u << t)))
                continue;
            int swap = nsides == 2 && (it - 1 + nth) % 2 == 1;
            nth++;
            for (int k = 0; k < nsides; k++) {
                struct lt *c = sides[swap ? nsides - 1 - k : k];
                int rc = run_one(c, it, t, nsides == 2 ? (unsigned)k + 1 : 0);
                if (rc != 0)
                    return rc;
            }
        }
    }
    for (int k = 0; k < nsides; k++)
        sides[k]->cur = NULL;
    return 0;
}

/* Remove the test directory; a failure here is reported but does not
 * change the exit status of a run that measured everything. */
static void remove_test_dir(struct lt *c)
{
    if (c->dir == 0)
        return;
    if (c->connection_lost) {
        fprintf(stderr, "lantest: warning: the connection is gone; %s stays on the volume\n",
                c->dirname);
        return;
    }
    /* A failed test can leave a fork open (netatalk will not delete its
     * file) and requests in flight: settle those first. */
    int rc = afp_session_close_forks(c->s);
    if (rc == 0)
        rc = benchconn_delete_tree(c->s, c->vol, AFP_DID_ROOT, c->dirname);
    if (rc != 0)
        fprintf(stderr, "lantest: warning: could not remove %s: %s\n", c->dirname,
                afp_strerror(rc));
}

/* Set up one side: its results, session, IO monitor, buffers and test
 * directory. Returns 0 or the exit code (recorded in its results). */
static int side_open(struct lt *c, const struct lantest_opts *o, struct results *res, int argc,
                     char **argv, const char *label, const char *suffix)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    c->res = res;
    c->label = label;
    c->side_suffix = suffix;
    results_init(res, "lantest", LANTEST_SUITE_VERSION);
    res->argv = cli_redacted_argv(argc, argv, o->common.conn.password);
    res->host = o->common.conn.host;
    res->port = o->common.conn.port;
    res->volume = o->common.conn.volume;
    res->iterations = o->iterations;
    res->lantest_tests = o->tests;
    res->bigfile_bytes = o->bigfile_bytes;
    res->window = LANTEST_WINDOW;

    fprintf(stderr, "%sConnecting to %s port %u as %s, volume '%s'\n", label, o->common.conn.host,
            o->common.conn.port, o->common.conn.user, o->common.conn.volume);
    int rc = benchconn_open(&o->common.conn, res, &c->s, &c->vol, &c->io, &c->srv);
    if (rc == 0)
        rc = alloc_buffers(c);
    if (rc == 0)
        rc = make_test_dir(c);
    return rc;
}

/* Remove the test directory and log out. */
static void side_close(struct lt *c)
{
    if (c->s != NULL)
        remove_test_dir(c);
    benchconn_close(c->s, c->connection_lost, c->res);
    c->s = NULL;
    iomon_stop(&c->io);
    results_finish(c->res);
}

static void side_free(struct lt *c)
{
    srvfiles_close(&c->srv);
    pattern_buf_free(&c->pat);
    free(c->rbuf);
    free(c->names);
    cli_free_argv(c->res->argv);
    results_free(c->res);
}

int lantest_main(int argc, char **argv)
{
    struct lantest_opts o;
    int rc = cli_parse_lantest(argc, argv, &o);
    if (rc != 0)
        return rc;

    /* A server that goes away must give an error, not kill us mid-write. */
    signal(SIGPIPE, SIG_IGN);
    cli_conn_apply_bounds(&o.common.conn); /* --deadline, --timeout, SIGTERM */

    /* A/B: the base side is the same run with the base's connection (and
     * the base's instrumented server's directory). */
    struct lantest_opts bo = o;
    bo.common.conn = o.common.base;
    bo.instr_dir = o.base_instr_dir;
    struct results res, bres;
    struct lt c, b;
    struct lt *sides[2] = {&c, &b};
    int nsides = o.common.have_base ? 2 : 1;

    struct dircache_log dlog = {.fd = -1};
    rc = side_open(&c, &o, &res, argc, argv, o.common.have_base ? "[head] " : "", "");
    /* The log is opened while our afpd runs: after logout its proc root
     * is gone. */
    if (rc == 0)
        lantest_dircache_begin(&dlog, o.server_log, &c.srv, c.io.enabled ? c.io.afpd_pid : 0);
    if (rc == 0 && o.instr_dir != NULL)
        rc = lt_instr_start(&c);
    if (o.common.have_base) {
        int brc = side_open(&b, &bo, &bres, argc, argv, "[base] ", "b");
        if (brc == 0 && bo.instr_dir != NULL)
            brc = lt_instr_start(&b);
        res.base = &bres;
        if (rc == 0 && brc != 0) {
            /* the head's results say why the run stopped */
            results_fail(&res, bres.exit_code, "base server: %s", bres.error);
            rc = brc;
        }
    }
    if (rc == 0)
        rc = run_tests(sides, nsides);
    for (int k = 0; k < nsides; k++)
        if (sides[k]->instr != NULL)
            lt_instr_finish(sides[k]);
    if (rc != 0 && o.common.have_base && !res.failed)
        results_fail(&res, bres.exit_code, "base server: %s", bres.error);
    /* Log out before reading the server log: afpd writes its dircache
     * statistics when the session ends. */
    for (int k = 0; k < nsides; k++)
        side_close(sides[k]);
    res.cpu_afp_ops += lt_instr_ops(&c); /* the per-test sessions' AFP ops */
    if (o.common.have_base)
        bres.cpu_afp_ops += lt_instr_ops(&b);
    if (o.common.have_base)
        results_share_cpu(&res, &bres);

    char *dircache = NULL;
    if (res.ntests > 0)
        dircache = lantest_dircache_stats(&dlog);
    res.dircache_stats = dircache;

    results_save(&res, o.common.json_path);
    if (res.ntests > 0) {
        if (o.csv) {
            lantest_report_csv(&res, stdout);
        } else {
            if (o.common.have_base)
                printf("Head: %s port %u\n", o.common.conn.host, o.common.conn.port);
            lantest_report_human(&res, stdout);
            if (o.common.have_base && bres.ntests > 0) {
                printf("\nBase: %s port %u (measured interleaved with the head)\n",
                       bo.common.conn.host, bo.common.conn.port);
                lantest_report_human(&bres, stdout);
            }
        }
    }
    if (dircache != NULL && !o.csv)
        printf("\nDircache statistics (server log):\n%s\n", dircache);
    fflush(stdout);

    int exit_code = res.failed ? res.exit_code : 0;
    if (exit_code == 0 && o.common.have_base && bres.failed)
        exit_code = bres.exit_code;
    free(dircache);
    lantest_dircache_end(&dlog);
    for (int k = 0; k < nsides; k++) {
        side_free(sides[k]);
        lt_instr_free(sides[k]);
    }
    return exit_code;
}

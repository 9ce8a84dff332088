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

    snprintf(c->dirname, sizeof c->dirname, "LanTest-%ld", (long)getpid());
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
    uint32_t quantum = afp_session_quantum(c->s);
    /* Upstream's chunk: a DSI packet (16-byte header + 20 bytes of
     * FPWriteExt parameters + data) of exactly one quantum. */
    c->chunk = quantum > 4096 ? quantum - 36 : quantum;
    c->rbuf = malloc(quantum > 65536 ? quantum : 65536);
    if (c->rbuf == NULL || pattern_buf_init(&c->pat, quantum, 2) != 0) {
        results_fail(c->res, EXIT_ALLOC, "out of memory for %u-byte buffers", quantum);
        return EXIT_ALLOC;
    }
    return 0;
}

static int run_tests(struct lt *c)
{
    const struct lantest_opts *o = c->o;

    /* One results entry per selected test, in test order. */
    for (int t = 0; t < LANTEST_NUM_TESTS; t++) {
        if (!(o->tests & (1u << t)))
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
            rt->size_bytes = o->bigfile_bytes;
    }

    int rc;
    for (unsigned it = 1; it <= o->iterations; it++) {
        c->iteration = it;
        for (int t = 0; t < LANTEST_NUM_TESTS; t++) {
            if (!(o->tests & (1u << t)))
                continue;
            char key[32];
            snprintf(key, sizeof key, "lantest.%d", t + 1);
            c->cur = results_find_test(c->res, key);
            c->test_id = t + 1;
            if (o->verbose)
                fprintf(stderr, "Run %u/%u => test %d: %s ...\n", it, o->iterations, t + 1,
                        lantest_defs[t].name);
            /* --instr-dir: each test iteration in its own session. */
            if (c->instr != NULL && (rc = lt_instr_before_test(c)) != 0)
                return rc;
            rc = lantest_defs[t].run(c);
            if (c->instr != NULL)
                rc = lt_instr_after_test(c, rc);
            if (rc != 0)
                return rc;
            if (c->s != NULL)
                afp_session_keepalive(c->s);
        }
    }
    c->cur = NULL;
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

int lantest_main(int argc, char **argv)
{
    struct lantest_opts o;
    int rc = cli_parse_lantest(argc, argv, &o);
    if (rc != 0)
        return rc;

    /* A server that goes away must give an error, not kill us mid-write. */
    signal(SIGPIPE, SIG_IGN);

    struct results res;
    results_init(&res, "lantest", LANTEST_SUITE_VERSION);
    res.argv = cli_redacted_argv(argc, argv, o.conn.password);
    res.host = o.conn.host;
    res.port = o.conn.port;
    res.volume = o.conn.volume;
    res.iterations = o.iterations;
    res.lantest_tests = o.tests;
    res.bigfile_bytes = o.bigfile_bytes;
    res.window = LANTEST_WINDOW;

    struct lt c;
    memset(&c, 0, sizeof c);
    c.o = &o;
    c.res = &res;

    fprintf(stderr, "Connecting to %s port %u as %s, volume '%s'\n", o.conn.host, o.conn.port,
            o.conn.user, o.conn.volume);
    struct dircache_log dlog = {.fd = -1};
    rc = benchconn_open(&o.conn, &res, &c.s, &c.vol, &c.io, &c.srv);
    /* The log is opened while our afpd runs: after logout its proc root
     * is gone. */
    if (rc == 0)
        lantest_dircache_begin(&dlog, o.server_log, &c.srv, c.io.enabled ? c.io.afpd_pid : 0);
    if (rc == 0)
        rc = alloc_buffers(&c);
    if (rc == 0)
        rc = make_test_dir(&c);
    if (rc == 0 && o.instr_dir != NULL)
        rc = lt_instr_start(&c);
    if (rc == 0)
        rc = run_tests(&c);
    if (c.instr != NULL)
        lt_instr_finish(&c);
    if (c.s != NULL)
        remove_test_dir(&c);
    /* Log out before reading the server log: afpd writes its dircache
     * statistics when the session ends. */
    benchconn_close(c.s, c.connection_lost, &res);
    res.cpu_afp_ops += lt_instr_ops(&c);
    c.s = NULL;
    results_finish(&res);

    char *dircache = NULL;
    if (res.ntests > 0)
        dircache = lantest_dircache_stats(&dlog);
    res.dircache_stats = dircache;

    results_save(&res, o.json_path);
    if (res.ntests > 0) {
        if (o.csv)
            lantest_report_csv(&res, stdout);
        else
            lantest_report_human(&res, stdout);
    }
    if (dircache != NULL && !o.csv)
        printf("\nDircache statistics (server log):\n%s\n", dircache);
    fflush(stdout);

    int exit_code = res.failed ? res.exit_code : 0;
    free(dircache);
    lantest_dircache_end(&dlog);
    srvfiles_close(&c.srv);
    pattern_buf_free(&c.pat);
    free(c.rbuf);
    cli_free_argv(res.argv);
    results_free(&res);
    lt_instr_free(&c);
    return exit_code;
}

/* afpbench lantest: connect, log in, open the volume, find the server's
 * processes for IO monitoring, run the selected tests in LanTest-<pid> for
 * every iteration, remove the directory, log out, report.
 *
 * Whatever happens after the first measurement, the results measured so
 * far are written (--json, and the table or CSV) before exiting with
 * afp_lantest's exit code for the failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attribution.h"
#include "benchconn.h"
#include "commands.h"
#include "lantest.h"
#include "lantest_dircache.h"
#include "lantest_instr.h"
#include "session.h"
#include "suite.h"

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
    for (int t = 0; t < lantest_num_tests; t++) {
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
        fprintf(stderr, "%sRun %u/%u => test %d: %s ...\n", c->label, it, c->o->common.iterations,
                t + 1, lantest_defs[t].name);
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

/* The lantest run: both sides' options and state, for the hooks. */
struct lt_suite {
    struct lantest_opts opts[2]; /* the base's: its connection and instr dir */
    struct lt sides[2];
    struct dircache_log dlog;
    char *dircache;
};

struct lt_step {
    unsigned it;
    int t;
};

static int run_step(struct suite_side *sd, unsigned order, void *arg)
{
    const struct lt_step *st = arg;
    return run_one(sd->state, st->it, st->t, order);
}

/* --trace: a tool on the request about to go out (attribution.h calls this once
 * the server settled): strace on the first, gdb on the second. */
static void trace_start(void *ctx, unsigned k)
{
    struct lt *c = ctx;
    char out[600];
    snprintf(out, sizeof out, "%s/%s-lantest.%d.%s", c->o->trace_dir, c->side_name, c->test_id,
             k == 0 ? "strace" : "gdb");
    int rc;
    if (k == 0)
        rc = tracer_start_strace(&c->tracer, c->io.proc_root, c->io.afpd_pid, out);
    else if (c->o->trace_calls != NULL)
        rc = tracer_start_gdb(&c->tracer, c->io.proc_root, c->io.afpd_pid, c->o->trace_calls, out);
    else
        return;
    if (rc != 0)
        fprintf(stderr, "%slantest: test %d not traced: %s\n", c->label, c->test_id,
                c->tracer.note);
}

static void trace_stop(void *ctx)
{
    tracer_stop(&((struct lt *)ctx)->tracer);
}

/* --by-command: each selected test once more on each side, untimed, its
 * server calls charged to the AFP commands (attribution.h). After the timed
 * iterations, so that its waits stretch no timed region; side by side so
 * that both see the same caches. */
static int run_by_command(struct suite *s)
{
    const struct lantest_opts *o = &((struct lt_suite *)s->arg)->opts[SUITE_HEAD];
    if (!o->by_command && o->trace_code == 0)
        return 0;
    for (int t = 0; t < lantest_num_tests; t++) {
        if (!(o->tests & (1u << t)))
            continue;
        for (int k = 0; k < s->nsides; k++) {
            struct lt *c = s->side[k].state;
            if (c->attribution == NULL)
                continue;
            if (o->trace_code != 0)
                attribution_set_trace(c->attribution, (uint8_t)o->trace_code, o->trace_nth,
                                      !o->by_command, trace_start, trace_stop, c);
            c->attribution_pass = 1;
            int rc = run_one(c, o->common.iterations + 1, t, 0);
            c->attribution_pass = 0;
            afp_session_observe(c->s, NULL, NULL); /* a failed test leaves it set */
            tracer_stop(&c->tracer);
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

/* Every iteration of every selected test on each side. With two sides (A/B)
 * each test runs on both back to back, so that load and drift hit both
 * alike, in the order of one pair per test (suite_pair: ABBA across tests
 * and iterations). A failure on either side ends the run. */
static int run_tests(struct suite *s)
{
    for (int k = 0; k < s->nsides; k++) {
        int rc = register_tests(s->side[k].state);
        if (rc != 0)
            return rc;
    }
    const struct lantest_opts *o = &((struct lt_suite *)s->arg)->opts[SUITE_HEAD];
    /* --trace diagnoses and --by-command-only attributes: their pass only */
    int timed = o->trace_code == 0 && o->by_command != LANTEST_BY_COMMAND_ONLY;
    for (unsigned it = 1; timed && it <= o->common.iterations; it++) {
        unsigned nth = 0; /* selected tests so far in this iteration */
        for (int t = 0; t < lantest_num_tests; t++) {
            if (!(o->tests & (1u << t)))
                continue;
            struct lt_step st = {it, t};
            int rc = suite_pair(s, it - 1 + nth++, run_step, &st);
            if (rc != 0)
                return rc;
        }
    }
    int rc = run_by_command(s);
    for (int k = 0; k < s->nsides; k++)
        ((struct lt *)s->side[k].state)->cur = NULL;
    return rc;
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

/* One side's state and results, before it connects. */
static void side_init(struct suite *s, struct suite_side *sd)
{
    struct lt_suite *l = s->arg;
    struct lt *c = &l->sides[sd->index];
    const struct lantest_opts *o = &l->opts[sd->index];
    struct results *res = &sd->res;
    memset(c, 0, sizeof *c);
    sd->state = c;
    c->o = o;
    c->res = res;
    c->label = sd->label;
    c->side_suffix = sd->suffix;
    c->side_name = sd->index == SUITE_HEAD ? "head" : "base";
    res->host = o->common.conn.host;
    res->port = o->common.conn.port;
    res->volume = o->common.conn.volume;
    res->iterations = o->common.iterations;
    res->lantest_tests = o->tests;
    res->bigfile_bytes = o->bigfile_bytes;
    res->window = LANTEST_WINDOW;
    res->by_command = o->by_command;
}

/* --by-command: watch this side's server, or say why it cannot be done (the
 * run goes on without the pass). */
static void open_attribution(struct lt *c)
{
    char why[400];
    if (c->o->instr_dir != NULL)
        snprintf(why, sizeof why, "an instrumented server's calls include valgrind's");
    else if ((c->attribution = attribution_new(&c->io, why, sizeof why)) != NULL)
        return;
    fprintf(stderr, "%slantest: no per-command pass: %s\n", c->label, why);
    snprintf(c->res->commands_note, sizeof c->res->commands_note, "%s", why);
}

/* Set up one side: its session, IO monitor, buffers and test directory
 * (and --instr-dir's sessions). Returns 0 or the exit code (recorded in
 * its results). */
static int side_open(struct suite *s, struct suite_side *sd)
{
    struct lt_suite *l = s->arg;
    struct lt *c = sd->state;
    const struct cli_conn *conn = &c->o->common.conn;
    fprintf(stderr, "%sConnecting to %s port %u as %s, volume '%s'\n", c->label, conn->host,
            conn->port, conn->user, conn->volume);
    int rc = benchconn_open(conn, c->res, &c->s, &c->vol, &c->io, &c->srv);
    if (rc == 0)
        rc = alloc_buffers(c);
    if (rc == 0)
        rc = make_test_dir(c);
    /* The log is opened while our afpd runs: after logout its proc root
     * is gone. */
    if (rc == 0 && sd->index == SUITE_HEAD)
        lantest_dircache_begin(&l->dlog, c->o->server_log, &c->srv,
                               c->io.enabled ? c->io.afpd_pid : 0, c->io.proc_root);
    if (rc == 0 && c->o->instr_dir != NULL)
        rc = lt_instr_start(c);
    if (rc == 0 && (c->o->by_command || c->o->trace_code != 0))
        open_attribution(c);
    return rc;
}

/* --instr-dir: a session to remove the test directory with, on every
 * side before any logs out. */
static void side_stop(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct lt *c = sd->state;
    if (c->instr != NULL)
        lt_instr_finish(c);
}

/* Remove the test directory and log out; the per-test sessions' AFP ops
 * count in the client CPU figure too. */
static void side_close(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct lt *c = sd->state;
    if (c->s != NULL)
        remove_test_dir(c);
    benchconn_close(c->s, c->connection_lost, c->res);
    c->s = NULL;
    iomon_stop(&c->io);
    results_finish(c->res);
    c->res->cpu_afp_ops += lt_instr_ops(c);
}

/* After logout (afpd writes its dircache statistics when the session
 * ends): the statistics from the server log. */
static void read_dircache(struct suite *s)
{
    struct lt_suite *l = s->arg;
    struct results *res = &s->side[SUITE_HEAD].res;
    if (res->ntests > 0)
        l->dircache = lantest_dircache_stats(&l->dlog);
    res->dircache_stats = l->dircache;
}

static void print_side(const struct suite_side *sd, FILE *out)
{
    lantest_report_human(&sd->res, out);
}

static void report(struct suite *s)
{
    struct lt_suite *l = s->arg;
    const struct lantest_opts *o = &l->opts[SUITE_HEAD];
    const struct results *res = &s->side[SUITE_HEAD].res;
    if (res->ntests > 0) {
        if (o->csv)
            lantest_report_csv(res, stdout);
        else
            suite_report_human(s, print_side, stdout);
    }
    if (l->dircache != NULL && !o->csv)
        printf("\nDircache statistics (server log):\n%s\n", l->dircache);
}

static void side_free(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct lt *c = sd->state;
    srvfiles_close(&c->srv);
    pattern_buf_free(&c->pat);
    free(c->rbuf);
    free(c->names);
    lt_instr_free(c);
    attribution_free(c->attribution);
}

static const struct suite_ops lantest_ops = {
    .suite = "lantest",
    .version = LANTEST_SUITE_VERSION,
    .init = side_init,
    .open = side_open,
    .run = run_tests,
    .stop = side_stop,
    .close = side_close,
    .finish = read_dircache,
    .report = report,
    .free = side_free,
    .cpu = SUITE_CPU_SHARE_OPS,
};

/* --list: the catalogue on standard output, or as JSON into json_path
 * ("-": standard output). */
static int list_tests(const char *json_path)
{
    if (json_path == NULL || strcmp(json_path, "-") == 0) {
        lantest_list(stdout, json_path != NULL);
        return fflush(stdout) == 0 ? 0 : EXIT_USAGE;
    }
    FILE *f = fopen(json_path, "w");
    if (f == NULL) {
        fprintf(stderr, "afpbench lantest: cannot write %s: %s\n", json_path, strerror(errno));
        return EXIT_USAGE;
    }
    lantest_list(f, 1);
    if (fclose(f) != 0) {
        fprintf(stderr, "afpbench lantest: cannot write %s: %s\n", json_path, strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

static int parse(int argc, char **argv, void *opts)
{
    return cli_parse_lantest(argc, argv, opts);
}

static int list_instead(void *arg)
{
    const struct lantest_opts *o = &((struct lt_suite *)arg)->opts[SUITE_HEAD];
    return o->list ? list_tests(o->common.json_path) : -1;
}

/* The base's instrumented server has its own directory. */
static void prepare(void *arg)
{
    struct lt_suite *l = arg;
    l->opts[SUITE_BASE].instr_dir = l->opts[SUITE_HEAD].base_instr_dir;
    l->dlog.fd = -1;
}

static void end(void *arg)
{
    struct lt_suite *l = arg;
    free(l->dircache);
    lantest_dircache_end(&l->dlog);
}

int lantest_main(int argc, char **argv)
{
    static const struct suite_command command = {.ops = &lantest_ops,
                                                 .opts_size = sizeof(struct lantest_opts),
                                                 .parse = parse,
                                                 .instead = list_instead,
                                                 .prepare = prepare,
                                                 .end = end};
    static struct lt_suite l;
    return suite_main(&command, &l, l.opts, argc, argv);
}

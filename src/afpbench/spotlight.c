/* afpbench spotlight: searches by name over FPSpotlightRPC, as a Mac's
 * Finder makes them, timed with the server's work (one test, "spotlight.N").
 *
 * Setup (untimed): a directory of N files whose names share a prefix made of
 * this run's process id and side, so that no other file of the volume can
 * match (netatalk's cnid backend searches the whole CNID database, not the
 * directory). Each iteration then times Q searches: openQueryWithParams for
 * kMDItemFSName=="PREFIX*", fetchQueryResultsForContext until the server says
 * it is done, closeQueryForContext. A search that does not find exactly the N
 * files fails the test: a search that misses files is not a faster one. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "benchconn.h"
#include "cli.h"
#include "commands.h"
#include "session.h"
#include "slrpc.h"
#include "srvfiles.h"
#include "suite.h"
#include "timed.h"

#define SPOTLIGHT_SUITE_VERSION "spotlight/1"
/* the most fetches one search may take: the cnid backend hands out its
 * results in batches, and says "more" (35) until the last */
#define MAX_FETCHES 100000
#define RPC_CAP 512

/* One side. */
struct sp {
    const struct spotlight_opts *o;
    struct results *res;
    const char *label;
    struct afp_session *s;
    uint16_t vol;
    uint32_t dir;  /* the testbed's directory */
    unsigned made; /* files made so far (the teardown removes the directory anyway) */
    char dirname[64], prefix[48], query[96];
    struct iomon io;
    struct srvfiles srv;
    int connection_lost;
    struct result_test *test; /* "spotlight.N" */
    uint64_t next_ctx;
    uint64_t fetches; /* over the measured searches */
    uint64_t searches;
    char json[512];
};

struct sp_suite {
    struct spotlight_opts opts[2];
    struct sp sides[2];
};

static int sp_fail(struct sp *c, struct result_test *t, int rc, int code, const char *what)
{
    return benchconn_fail(c->res, c->s, &c->connection_lost, t, rc, code, what);
}

/* One RPC of a search and what its reply says. */
static int rpc(struct sp *c, struct result_test *t, const uint8_t *req, size_t len,
               const char *method, struct slrpc_reply *out)
{
    if (len == 0)
        return results_fail_test(c->res, t, EXIT_PARAM, "%s: the request does not fit", method);
    const uint8_t *reply;
    size_t rlen;
    int rc = afp_spotlight(c->s, c->vol, AFP_SPOTLIGHT_RPC, req, len, &reply, &rlen);
    if (rc != 0)
        return sp_fail(c, t, rc, EXIT_FILEDIR, method);
    char why[160];
    /* the marshalled reply follows four bytes afpd leaves zero */
    if (rlen < 4 || slrpc_parse_reply(reply + 4, rlen - 4, out, why, sizeof why) != 0)
        return results_fail_test(c->res, t, EXIT_NETWORK, "%s: malformed reply (%zu bytes): %s",
                                 method, rlen, rlen < 4 ? "shorter than its head" : why);
    if (!out->has_status)
        return results_fail_test(c->res, t, EXIT_NETWORK, "%s: the reply has no result", method);
    return 0;
}

/* One search: open, fetch until done, close. *found gets its results. */
static int search(struct sp *c, struct result_test *t, uint64_t *found, uint64_t *fetches)
{
    uint8_t req[RPC_CAP];
    struct slrpc_reply r;
    uint64_t ctx = ++c->next_ctx;
    int rc = rpc(c, t, req, slrpc_open_query(req, sizeof req, ctx, c->query), "openQuery", &r);
    if (rc != 0)
        return rc;
    if (r.status != 0)
        return results_fail_test(c->res, t, EXIT_FILEDIR,
                                 "openQuery: the server refused the query (result %" PRIu64
                                 "; its log says why)",
                                 r.status);
    *found = 0;
    *fetches = 0;
    do {
        if (++*fetches > MAX_FETCHES)
            return results_fail_test(c->res, t, EXIT_NETWORK,
                                     "fetchQueryResults: still not done after %d fetches",
                                     MAX_FETCHES);
        rc = rpc(c, t, req, slrpc_fetch_results(req, sizeof req, ctx), "fetchQueryResults", &r);
        if (rc != 0)
            return rc;
        if (r.status != 0 && r.status != SLRPC_STATUS_MORE)
            return results_fail_test(c->res, t, EXIT_FILEDIR,
                                     "fetchQueryResults: the query failed (status %" PRIu64 ")",
                                     r.status);
        *found += r.has_cnids ? r.cnids : 0;
    } while (r.status == SLRPC_STATUS_MORE);
    return rpc(c, t, req, slrpc_close_query(req, sizeof req, ctx), "closeQuery", &r);
}

/* One iteration: the searches, timed; order is the A/B place (0: none). */
static int run_once(struct sp *c, struct result_test *t, unsigned iteration, unsigned order)
{
    const struct spotlight_opts *o = c->o;
    struct timed_region tr;
    struct result_sample smp = {.iteration = iteration, .order = order};
    uint64_t fetches = 0;
    timed_begin(&tr, c->s, &c->io);
    for (unsigned q = 0; q < o->queries; q++) {
        uint64_t found = 0, f = 0;
        int rc = search(c, t, &found, &f);
        if (rc != 0)
            return rc;
        if (found != o->files)
            return results_fail_test(c->res, t, EXIT_VALIDATION,
                                     "search %u found %" PRIu64 " of the %u files named %s*", q + 1,
                                     found, o->files, c->prefix);
        fetches += f;
    }
    timed_end(&tr, &smp);
    c->fetches += fetches;
    c->searches += o->queries;
    if (results_add_sample(t, &smp) != 0) {
        results_fail(c->res, EXIT_ALLOC, "out of memory recording a sample");
        return EXIT_ALLOC;
    }
    t->afp_ops = smp.afp_ops;
    fprintf(stderr, "%sRun %u => %-50s %10.3f ms  (%.3f ms a search, %" PRIu64 " AFP ops)\n",
            c->label, iteration, t->name, (double)smp.us / 1000.0,
            (double)smp.us / 1000.0 / o->queries, smp.afp_ops);
    timed_print_io(stderr, &smp);
    return 0;
}

/* The testbed: a directory of o->files files named PREFIX000001 ... */
static int make_files(struct sp *c, struct result_test *t)
{
    const struct spotlight_opts *o = c->o;
    int rc = afp_createdir(c->s, c->vol, AFP_DID_ROOT, c->dirname, &c->dir);
    if (rc != 0)
        return sp_fail(c, t, rc, EXIT_FILEDIR, "creating the search's directory");
    fprintf(stderr, "%sMaking %u files named %s* in '%s'\n", c->label, o->files, c->prefix,
            c->dirname);
    rc = benchconn_make_files(c->s, c->vol, c->dir, c->prefix, o->files, &c->made);
    return rc != 0 ? sp_fail(c, t, rc, EXIT_FILEDIR, "making the files to search") : 0;
}

static void side_init(struct suite *s, struct suite_side *sd)
{
    struct sp_suite *ss = s->arg;
    struct sp *c = &ss->sides[sd->index];
    const struct spotlight_opts *o = &ss->opts[sd->index];
    memset(c, 0, sizeof *c);
    sd->state = c;
    c->o = o;
    c->res = &sd->res;
    c->label = sd->label;
    srvfiles_init(&c->srv);
    c->res->host = o->common.conn.host;
    c->res->port = o->common.conn.port;
    c->res->volume = o->common.conn.volume;
    c->res->iterations = o->common.iterations;
    /* A/A shares one volume: each side its own names */
    long pid = (long)getpid();
    snprintf(c->dirname, sizeof c->dirname, "afpbench-spotlight-%ld%s", pid, sd->suffix);
    snprintf(c->prefix, sizeof c->prefix, "afpbench-sl%ld%s-", pid, sd->suffix);
    snprintf(c->query, sizeof c->query, "kMDItemFSName==\"afpbench-sl%ld%s-*\"cd", pid, sd->suffix);
}

static int side_open(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct sp *c = sd->state;
    const struct cli_conn *conn = &c->o->common.conn;
    fprintf(stderr, "%sConnecting to %s port %u as %s, volume '%s'\n", c->label, conn->host,
            conn->port, conn->user, conn->volume);
    int rc = benchconn_open(conn, c->res, &c->s, &c->vol, &c->io, &c->srv);
    if (rc != 0)
        return rc;
    /* Spotlight's own open, as a Mac sends it first: a server with it off
     * answers "call not supported" */
    const uint8_t *reply;
    size_t rlen;
    rc = afp_spotlight(c->s, c->vol, AFP_SPOTLIGHT_OPEN, NULL, 0, &reply, &rlen);
    if (rc == AFPERR_NOOP) {
        results_fail(c->res, EXIT_PARAM,
                     "Spotlight is off on %s port %u (FPSpotlightRPC: %s): netatalk 4.5 turns it "
                     "on by default; 'spotlight = yes' in afp.conf does for older ones",
                     conn->host, conn->port, afp_strerror(rc));
        return EXIT_PARAM;
    }
    if (rc != 0)
        return sp_fail(c, NULL, rc, EXIT_FILEDIR, "FPSpotlightRPC (open)");
    return 0;
}

static int run_side(struct suite_side *sd, unsigned order, void *arg)
{
    const unsigned *iteration = arg;
    struct sp *c = sd->state;
    return run_once(c, c->test, *iteration, order);
}

static int run_all(struct suite *s)
{
    struct sp *head = s->side[SUITE_HEAD].state;
    char key[32], name[128];
    snprintf(key, sizeof key, "spotlight.%u", head->o->files);
    snprintf(name, sizeof name, "Spotlight search by name, %u files found", head->o->files);
    for (int k = 0; k < s->nsides; k++) {
        struct sp *c = s->side[k].state;
        c->test = results_add_test(c->res, key, name);
        if (c->test == NULL) {
            results_fail(c->res, EXIT_ALLOC, "out of memory");
            return EXIT_ALLOC;
        }
        int rc = make_files(c, c->test);
        if (rc != 0)
            return rc;
    }
    for (unsigned i = 1; i <= head->o->common.iterations; i++) {
        int rc = s->nsides == 2 ? suite_pair(s, i - 1, run_side, &i) : run_side(&s->side[0], 0, &i);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Remove the testbed (untimed, best effort), log out. */
static void side_close(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct sp *c = sd->state;
    if (c->s != NULL && !c->connection_lost && c->dir != 0) {
        fprintf(stderr, "%sRemoving the %u files\n", c->label, c->made);
        benchconn_delete_tree(c->s, c->vol, AFP_DID_ROOT, c->dirname);
    }
    benchconn_close(c->s, c->connection_lost, c->res);
    c->s = NULL;
    iomon_stop(&c->io);
    results_finish(c->res);
    snprintf(c->json, sizeof c->json,
             "{\"files\": %u, \"queries\": %u, \"searches\": %" PRIu64
             ", \"fetches_per_search\": %.3f, \"query\": \"kMDItemFSName==\\\"PREFIX*\\\"cd\"}",
             c->o->files, c->o->queries, c->searches,
             c->searches ? (double)c->fetches / (double)c->searches : 0.0);
    c->res->spotlight_json = c->json;
}

static void print_side(const struct suite_side *sd, FILE *out)
{
    const struct sp *c = sd->state;
    const struct result_test *t = c->res->ntests ? &c->res->tests[0] : NULL;
    if (t == NULL || t->nsamples == 0)
        return;
    uint64_t sum = 0, ops = 0;
    for (size_t i = 0; i < t->nsamples; i++) {
        sum += t->samples[i].us;
        ops += t->samples[i].afp_ops;
    }
    double searches = (double)t->nsamples * c->o->queries;
    fprintf(out, "%s: %zu iteration(s) of %u searches, each finding %u files\n", t->name,
            t->nsamples, c->o->queries, c->o->files);
    fprintf(out, "Average time per search: %.3f ms (%.1f AFP ops a search)\n",
            (double)sum / 1000.0 / searches, (double)ops / searches);
    results_print_io_status(c->res, out);
}

static void report(struct suite *s)
{
    struct sp_suite *ss = s->arg;
    const struct sp *c = &ss->sides[SUITE_HEAD];
    if (c->res->ntests == 0)
        return;
    if (!ss->opts[SUITE_HEAD].csv) {
        suite_report_human(s, print_side, stdout);
        return;
    }
    const struct result_test *t = &c->res->tests[0];
    printf("Test,Iteration,Time_ms,Searches,Files,AFP_ops\n");
    for (size_t i = 0; i < t->nsamples; i++)
        printf("spotlight,%u,%.3f,%u,%u,%" PRIu64 "\n", t->samples[i].iteration,
               (double)t->samples[i].us / 1000.0, c->o->queries, c->o->files,
               t->samples[i].afp_ops);
}

static void side_free(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct sp *c = sd->state;
    srvfiles_close(&c->srv);
}

static const struct suite_ops spotlight_ops = {
    .suite = "spotlight",
    .version = SPOTLIGHT_SUITE_VERSION,
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
    return cli_parse_spotlight(argc, argv, opts);
}

int spotlight_main(int argc, char **argv)
{
    static const struct suite_command command = {
        .ops = &spotlight_ops, .opts_size = sizeof(struct spotlight_opts), .parse = parse};
    static struct sp_suite ss;
    return suite_main(&command, &ss, ss.opts, argc, argv);
}

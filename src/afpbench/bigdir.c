/* afpbench bigdir: directories of many entries, as a Finder window of one
 * shows them. For each size N (untimed setup: a directory of N empty files),
 * each iteration times two tests, the server's work counted with them:
 *   bigdir.N.enumerate  every entry listed with FPEnumerateExt2, with the
 *                       attributes a Finder asks for; each listing must
 *                       return all N
 *   bigdir.N.stat       FPGetFileDirParms of every entry by name
 * Past the size of the server's directory cache these measure the cache's
 * misses (netatalk 4.5's can hold about a million entries a session, 4.2's
 * dircachesize 8192 by default). The directory goes before the next size. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "benchconn.h"
#include "cli.h"
#include "commands.h"
#include "session.h"
#include "srvfiles.h"
#include "suite.h"
#include "timed.h"

#define BIGDIR_SUITE_VERSION "bigdir/1"
#define ENTRY_PREFIX "entry-"
/* what a Finder window asks of each entry */
#define F_LIST                                                                                     \
    (AFP_FILE_ATTR | AFP_FILE_PDID | AFP_FILE_CDATE | AFP_FILE_MDATE | AFP_FILE_FINFO |            \
     AFP_FILE_FNUM | AFP_FILE_EXTDFLEN | AFP_FILE_EXTRFLEN | AFP_FILE_UTF8NAME)
#define D_LIST                                                                                     \
    (AFP_DIR_ATTR | AFP_DIR_PDID | AFP_DIR_CDATE | AFP_DIR_MDATE | AFP_DIR_FINFO | AFP_DIR_DID |   \
     AFP_DIR_OFFCNT | AFP_DIR_UTF8NAME)
#define LIST_REQCOUNT 1024
#define LIST_MAXREPLY 65000

enum { T_ENUMERATE, T_STAT, T_NUM };
static const char *const test_names[T_NUM] = {"enumerate", "stat"};

/* One side. */
struct bd {
    const struct bigdir_opts *o;
    struct results *res;
    const char *label, *suffix;
    struct afp_session *s;
    uint16_t vol;
    uint32_t dir; /* the current size's directory; 0 when none */
    unsigned made;
    char dirname[64];
    struct result_test *tests[T_NUM];
    struct iomon io;
    struct srvfiles srv;
    int connection_lost;
};

struct bd_suite {
    struct bigdir_opts opts[2];
    struct bd sides[2];
};

static int bd_fail(struct bd *c, struct result_test *t, int rc, int code, const char *what)
{
    return benchconn_fail(c->res, c->s, &c->connection_lost, t, rc, code, what);
}

/* List the whole directory; *seen gets the entries returned. */
static int list_all(struct bd *c, struct result_test *t, unsigned *seen)
{
    *seen = 0;
    for (;;) {
        unsigned n = 0;
        int rc = afp_enumerate_ext2(c->s, c->vol, c->dir, "", F_LIST, D_LIST, LIST_REQCOUNT,
                                    *seen + 1, LIST_MAXREPLY, NULL, NULL, &n);
        if (rc == AFPERR_NOOBJ)
            return 0;
        if (rc != 0)
            return bd_fail(c, t, rc, EXIT_FILEDIR, "listing the directory");
        if (n == 0)
            return results_fail_test(c->res, t, EXIT_NETWORK,
                                     "FPEnumerateExt2 returned no entry and no end at entry %u",
                                     *seen + 1);
        *seen += n;
    }
}

static int stat_all(struct bd *c, struct result_test *t, unsigned entries)
{
    for (unsigned i = 1; i <= entries; i++) {
        char name[32];
        snprintf(name, sizeof name, ENTRY_PREFIX "%06u", i);
        int rc = afp_getfiledirparms(c->s, c->vol, c->dir, name, F_LIST, D_LIST, NULL);
        if (rc != 0)
            return bd_fail(c, t, rc, EXIT_FILEDIR, "FPGetFileDirParms of an entry");
    }
    return 0;
}

/* One timed run of test `which` on this side's directory of `entries`. */
static int run_once(struct bd *c, int which, unsigned entries, unsigned iteration, unsigned order)
{
    struct result_test *t = c->tests[which];
    struct timed_region tr;
    struct result_sample smp = {.iteration = iteration, .order = order};
    unsigned seen = entries;
    timed_begin(&tr, c->s, &c->io);
    int rc = which == T_ENUMERATE ? list_all(c, t, &seen) : stat_all(c, t, entries);
    if (rc != 0)
        return rc;
    timed_end(&tr, &smp);
    if (seen != entries)
        return results_fail_test(c->res, t, EXIT_VALIDATION,
                                 "the listing returned %u of the directory's %u entries", seen,
                                 entries);
    if (results_add_sample(t, &smp) != 0) {
        results_fail(c->res, EXIT_ALLOC, "out of memory recording a sample");
        return EXIT_ALLOC;
    }
    t->afp_ops = smp.afp_ops;
    fprintf(stderr, "%sRun %u => %-58s %10.3f ms  (%" PRIu64 " AFP ops)\n", c->label, iteration,
            t->name, (double)smp.us / 1000.0, smp.afp_ops);
    timed_print_io(stderr, &smp);
    return 0;
}

struct step {
    int which;
    unsigned entries, iteration;
};

static int run_side(struct suite_side *sd, unsigned order, void *arg)
{
    const struct step *st = arg;
    return run_once(sd->state, st->which, st->entries, st->iteration, order);
}

/* This side's directory of `entries` and its two tests. */
static int prepare(struct bd *c, unsigned entries)
{
    for (int k = 0; k < T_NUM; k++) {
        char key[48], name[128];
        snprintf(key, sizeof key, "bigdir.%u.%s", entries, test_names[k]);
        snprintf(name, sizeof name,
                 k == T_ENUMERATE ? "List a directory of %u entries (FPEnumerateExt2)"
                                  : "Stat each entry of a directory of %u (FPGetFileDirParms)",
                 entries);
        c->tests[k] = results_add_test(c->res, key, name);
        if (c->tests[k] == NULL) {
            results_fail(c->res, EXIT_ALLOC, "out of memory");
            return EXIT_ALLOC;
        }
    }
    snprintf(c->dirname, sizeof c->dirname, "afpbench-bigdir-%ld%s-%u", (long)getpid(), c->suffix,
             entries);
    int rc = afp_createdir(c->s, c->vol, AFP_DID_ROOT, c->dirname, &c->dir);
    if (rc != 0)
        return bd_fail(c, c->tests[0], rc, EXIT_FILEDIR, "creating the directory");
    fprintf(stderr, "%sMaking %u entries in '%s'\n", c->label, entries, c->dirname);
    c->made = 0;
    rc = benchconn_make_files(c->s, c->vol, c->dir, ENTRY_PREFIX, entries, &c->made);
    return rc != 0 ? bd_fail(c, c->tests[0], rc, EXIT_FILEDIR, "making the entries") : 0;
}

/* Remove this side's directory (untimed, best effort). */
static void remove_dir(struct bd *c)
{
    if (c->s == NULL || c->connection_lost || c->dir == 0)
        return;
    fprintf(stderr, "%sRemoving '%s' (%u entries)\n", c->label, c->dirname, c->made);
    benchconn_delete_tree(c->s, c->vol, AFP_DID_ROOT, c->dirname);
    c->dir = 0;
}

static int run_all(struct suite *s)
{
    const struct bigdir_opts *o = &((struct bd_suite *)s->arg)->opts[SUITE_HEAD];
    int rc = 0;
    for (size_t z = 0; z < o->nsizes && rc == 0; z++) {
        for (int k = 0; k < s->nsides && rc == 0; k++)
            rc = prepare(s->side[k].state, o->sizes[z]);
        for (unsigned i = 1; i <= o->common.iterations && rc == 0; i++) {
            for (int which = 0; which < T_NUM && rc == 0; which++) {
                struct step st = {which, o->sizes[z], i};
                rc = s->nsides == 2 ? suite_pair(s, i - 1, run_side, &st)
                                    : run_side(&s->side[0], 0, &st);
            }
        }
        for (int k = 0; k < s->nsides; k++)
            remove_dir(s->side[k].state);
    }
    return rc;
}

static void side_init(struct suite *s, struct suite_side *sd)
{
    struct bd_suite *ss = s->arg;
    struct bd *c = &ss->sides[sd->index];
    const struct bigdir_opts *o = &ss->opts[sd->index];
    memset(c, 0, sizeof *c);
    sd->state = c;
    c->o = o;
    c->res = &sd->res;
    c->label = sd->label;
    c->suffix = sd->suffix;
    srvfiles_init(&c->srv);
    c->res->host = o->common.conn.host;
    c->res->port = o->common.conn.port;
    c->res->volume = o->common.conn.volume;
    c->res->iterations = o->common.iterations;
}

static int side_open(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct bd *c = sd->state;
    const struct cli_conn *conn = &c->o->common.conn;
    fprintf(stderr, "%sConnecting to %s port %u as %s, volume '%s'\n", c->label, conn->host,
            conn->port, conn->user, conn->volume);
    return benchconn_open(conn, c->res, &c->s, &c->vol, &c->io, &c->srv);
}

static void side_close(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct bd *c = sd->state;
    remove_dir(c); /* after a failure mid-size */
    benchconn_close(c->s, c->connection_lost, c->res);
    c->s = NULL;
    iomon_stop(&c->io);
    results_finish(c->res);
}

static void print_side(const struct suite_side *sd, FILE *out)
{
    const struct bd *c = sd->state;
    for (size_t i = 0; i < c->res->ntests; i++) {
        const struct result_test *t = &c->res->tests[i];
        uint64_t us = 0, ops = 0;
        for (size_t k = 0; k < t->nsamples; k++) {
            us += t->samples[k].us;
            ops += t->samples[k].afp_ops;
        }
        if (t->nsamples > 0)
            fprintf(out, "%-58s %10.3f ms  %8.2f us/AFP op\n", t->name,
                    (double)us / 1000.0 / (double)t->nsamples, ops ? (double)us / (double)ops : 0);
    }
    results_print_io_status(c->res, out);
}

static void report(struct suite *s)
{
    struct bd_suite *ss = s->arg;
    const struct bd *c = &ss->sides[SUITE_HEAD];
    if (c->res->ntests == 0)
        return;
    if (!ss->opts[SUITE_HEAD].csv) {
        suite_report_human(s, print_side, stdout);
        return;
    }
    printf("Test,Iteration,Time_ms,AFP_ops\n");
    for (size_t i = 0; i < c->res->ntests; i++) {
        const struct result_test *t = &c->res->tests[i];
        for (size_t k = 0; k < t->nsamples; k++)
            printf("%s,%u,%.3f,%" PRIu64 "\n", t->key, t->samples[k].iteration,
                   (double)t->samples[k].us / 1000.0, t->samples[k].afp_ops);
    }
}

static void side_free(struct suite *s, struct suite_side *sd)
{
    (void)s;
    struct bd *c = sd->state;
    srvfiles_close(&c->srv);
}

static const struct suite_ops bigdir_ops = {
    .suite = "bigdir",
    .version = BIGDIR_SUITE_VERSION,
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
    return cli_parse_bigdir(argc, argv, opts);
}

int bigdir_main(int argc, char **argv)
{
    static const struct suite_command command = {
        .ops = &bigdir_ops, .opts_size = sizeof(struct bigdir_opts), .parse = parse};
    static struct bd_suite ss;
    return suite_main(&command, &ss, ss.opts, argc, argv);
}

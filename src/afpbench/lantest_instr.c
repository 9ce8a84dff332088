/* lantest --instr-dir: every test iteration in its own AFP session, whose
 * afpd instruction count (the file valgrind leaves when the session's afpd
 * ends, instr.h) minus that of an empty session (log in, open the volume,
 * log out; measured at the start of the same run) is the sample's
 * afpd_instr. */
#include "lantest_instr.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instr.h"
#include "session.h"

struct lt_instr {
    struct instr_run run;
    size_t nsamples0; /* the current test's samples before its session */
};

static int open_session_on(struct lt *c, struct afp_session *s);

/* Log in and open the volume in a new session; IO monitoring (quietly)
 * finds its afpd, whose pid names the file. On failure (recorded in the
 * results) no session is left: c->s is NULL. */
static int open_session(struct lt *c)
{
    struct afp_session *s = afp_session_new();
    if (s == NULL) {
        results_fail(c->res, EXIT_ALLOC, "out of memory");
        return EXIT_ALLOC;
    }
    int rc = open_session_on(c, s);
    if (rc != 0) {
        c->s = NULL;
        afp_session_free(s);
        return rc;
    }
    c->s = s;
    return 0;
}

static int open_session_on(struct lt *c, struct afp_session *s)
{
    const struct cli_conn *conn = &c->o->common.conn;
    int rc = afp_session_connect(s, conn->host, conn->port);
    if (rc != 0) {
        results_fail(c->res, EXIT_NETWORK, "instructions: cannot connect to %s port %u: %s %s",
                     conn->host, conn->port, afp_strerror(rc), afp_session_error(s));
        return EXIT_NETWORK;
    }
    rc = afp_session_login(s, conn->afp_version, conn->user, conn->password);
    if (rc != 0) {
        int code = afpb_is_local_error(rc) ? EXIT_NETWORK : EXIT_LOGIN;
        results_fail(c->res, code, "instructions: login as '%s' failed: %s %s", conn->user,
                     afp_strerror(rc), afp_session_error(s));
        return code;
    }
    if ((rc = benchconn_open_volume(s, conn->volume, c->res, &c->vol)) != 0) {
        afp_logout(s);
        return rc;
    }
    iomon_start(&c->io, conn->proc_root, afp_session_fd(s), conn->user, 1);
    return 0;
}

/* Log out and read the session's file into p. *ops gets its AFP ops. */
static int close_session(struct lt *c, struct instr_profile *p, uint64_t *ops, char *err,
                         size_t errlen)
{
    int pid = c->io.enabled ? c->io.afpd_pid : 0;
    *ops = afp_session_ops(c->s);
    c->instr->run.sessions_ops += *ops;
    afp_logout(c->s);
    afp_session_free(c->s);
    c->s = NULL;
    if (pid == 0) {
        snprintf(err, errlen,
                 "the session's afpd was not found (%s); its pid names the file, so "
                 "instruction counting needs IO monitoring (--proc-root, $PROC_IO)",
                 c->io.reason[0] ? c->io.reason : "IO monitoring is off");
        return -1;
    }
    return instr_wait_profile(c->instr->run.dir, c->io.proc_root, pid, INSTR_WAIT_MS, p, err,
                              errlen);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int lt_instr_start(struct lt *c)
{
    struct lt_instr *li = calloc(1, sizeof *li);
    if (li == NULL) {
        results_fail(c->res, EXIT_ALLOC, "out of memory");
        return EXIT_ALLOC;
    }
    c->instr = li;
    li->run.dir = c->o->instr_dir;
    instr_profile_init(&li->run.empty);
    instr_cpu_flags(li->run.cpu_flags, sizeof li->run.cpu_flags);
    c->res->instr = &li->run;

    /* The set-up session (test directory) ends here: from now on, one
     * session per measurement. */
    c->instr->run.sessions_ops += afp_session_ops(c->s);
    afp_logout(c->s);
    afp_session_free(c->s);
    c->s = NULL;

    struct instr_profile p[INSTR_EMPTY_SESSIONS];
    uint64_t ops = 0, sorted[INSTR_EMPTY_SESSIONS];
    char err[600];
    int rc = 0;
    for (unsigned i = 0; i < INSTR_EMPTY_SESSIONS; i++)
        instr_profile_init(&p[i]);
    for (unsigned i = 0; i < INSTR_EMPTY_SESSIONS && rc == 0; i++) {
        if ((rc = open_session(c)) != 0)
            break;
        if (close_session(c, &p[i], &ops, err, sizeof err) != 0) {
            results_fail(c->res, EXIT_PARAM, "instructions: empty session: %s", err);
            rc = EXIT_PARAM;
            break;
        }
        li->run.empty_ir[i] = sorted[i] = p[i].total;
        li->run.n_empty++;
        li->run.empty_ops = ops;
        memcpy(li->run.tool, p[i].tool, sizeof li->run.tool);
    }
    if (rc == 0) {
        qsort(sorted, INSTR_EMPTY_SESSIONS, sizeof sorted[0], cmp_u64);
        li->run.empty_median = sorted[INSTR_EMPTY_SESSIONS / 2];
        for (unsigned i = 0; i < INSTR_EMPTY_SESSIONS; i++)
            if (p[i].total == li->run.empty_median) {
                li->run.empty = p[i];
                instr_profile_init(&p[i]);
                break;
            }
        fprintf(stderr,
                "Instructions (%s, %s): an empty session (login, open volume, logout: %" PRIu64
                " AFP ops) is %" PRIu64 " afpd instructions (of %u: %" PRIu64 "..%" PRIu64 ")\n",
                li->run.tool, li->run.dir, li->run.empty_ops, li->run.empty_median,
                INSTR_EMPTY_SESSIONS, sorted[0], sorted[INSTR_EMPTY_SESSIONS - 1]);
    }
    for (unsigned i = 0; i < INSTR_EMPTY_SESSIONS; i++)
        instr_profile_free(&p[i]);
    return rc;
}

int lt_instr_before_test(struct lt *c)
{
    c->instr->nsamples0 = c->cur->nsamples;
    c->cur->instr = 1;
    return open_session(c);
}

int lt_instr_after_test(struct lt *c, int rc)
{
    struct lt_instr *li = c->instr;
    struct result_test *t = c->cur;
    if (c->s == NULL)
        return rc;
    if (c->connection_lost) {
        afp_session_free(c->s);
        c->s = NULL;
        return rc;
    }
    struct instr_profile p;
    uint64_t ops;
    char err[600];
    instr_profile_init(&p);
    if (close_session(c, &p, &ops, err, sizeof err) != 0) {
        if (rc == 0)
            rc = results_fail_test(c->res, t, EXIT_PARAM, "test %d, iteration %u: instructions: %s",
                                   c->test_id, c->iteration, err);
        return rc;
    }
    if (rc == 0 && t->nsamples > li->nsamples0) {
        struct result_sample *smp = &t->samples[t->nsamples - 1];
        uint64_t e = li->run.empty_median;
        smp->instr_known = 1;
        smp->afpd_instr = p.total > e ? p.total - e : 0;
        smp->instr_afp_ops = ops > li->run.empty_ops ? ops - li->run.empty_ops : 0;
        if (t->instr_funcs == NULL)
            t->instr_funcs = calloc(1, sizeof *t->instr_funcs);
        if (t->instr_funcs == NULL || instr_acc_add(t->instr_funcs, &p, 1) != 0 ||
            instr_acc_add(t->instr_funcs, &li->run.empty, -1) != 0) {
            instr_profile_free(&p);
            return results_fail(c->res, EXIT_ALLOC, "out of memory (function table)"), EXIT_ALLOC;
        }
        t->instr_sessions++;
        fprintf(stderr,
                "         Instructions; afpd: %" PRIu64 " (session %" PRIu64 " - empty %" PRIu64
                "), %.1f per AFP op over %" PRIu64 " ops\n",
                smp->afpd_instr, p.total, e,
                smp->instr_afp_ops ? (double)smp->afpd_instr / (double)smp->instr_afp_ops : 0.0,
                smp->instr_afp_ops);
    }
    instr_profile_free(&p);
    return rc;
}

int lt_instr_finish(struct lt *c)
{
    if (c->s != NULL || c->connection_lost)
        return 0;
    int rc = open_session(c);
    if (rc != 0)
        fprintf(stderr, "lantest: warning: no session to remove %s with\n", c->dirname);
    return rc;
}

void lt_instr_free(struct lt *c)
{
    if (c->instr == NULL)
        return;
    instr_profile_free(&c->instr->run.empty);
    free(c->instr);
    c->instr = NULL;
}

uint64_t lt_instr_ops(const struct lt *c)
{
    return c->instr != NULL ? c->instr->run.sessions_ops : 0;
}

/* The load engine's runner: threads, their epoll loops, the timers and the
 * window (see load_runner.h); each session's own work is load_session.c's. */
#include "load_runner.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "deadline.h"
#include "pattern.h"

/* Logins in progress at once per thread: a few hundred connections opened
 * in the same instant make afpd's master fork that many children at once,
 * and the last ones wait past any timeout; a ramp logs them all in sooner. */
#define LOGIN_WINDOW 16

struct lthread {
    struct load_loop loop; /* what its sessions share with it */
    pthread_t tid;
    bool started;
    struct load_session **sess;
    unsigned n;
    unsigned next_login; /* the login ramp */
};

struct load_runner {
    struct load_config cfg;
    struct load_run run;
    struct load_session **sess; /* [cfg.sessions] */
    struct lthread *threads;
    unsigned nthreads;
};

/* Deadlines, the schedule, the window's end: every session of the thread. */
static void scan(struct lthread *t, uint64_t now)
{
    struct load_run *run = t->loop.run;
    struct load_window w;
    w.running = atomic_load(&run->running);
    w.aborting = atomic_load(&run->aborting);
    w.released = atomic_load(&run->released);
    w.t1 = atomic_load(&run->t1);
    w.t_abort = atomic_load(&run->t_abort);
    w.t_run = atomic_load(&run->t_run);
    for (unsigned i = 0; i < t->n; i++)
        load_session_timer(t->sess[i], now, &w);
}

static void *thread_main(void *arg)
{
    struct lthread *t = arg;
    struct epoll_event evs[64];
    uint64_t next_scan = 0;
    int step_ms = t->loop.run->cfg->rate > 0 ? 1 : 5;
    while (t->loop.active > 0) {
        while (t->loop.logging_in < LOGIN_WINDOW && t->next_login < t->n &&
               !atomic_load(&t->loop.run->aborting))
            load_session_connect(t->sess[t->next_login++]);
        int n = epoll_wait(t->loop.ep, evs, 64, step_ms);
        for (int i = 0; i < n; i++)
            load_session_event(evs[i].data.ptr, evs[i].events);
        uint64_t now = clock_now_us();
        if (now >= next_scan || n < 0) {
            scan(t, now);
            next_scan = now + (uint64_t)step_ms * 1000;
        }
    }
    return NULL;
}

static void free_engine(struct load_runner *e)
{
    if (e == NULL)
        return;
    for (unsigned i = 0; e->threads && i < e->nthreads; i++) {
        struct lthread *t = &e->threads[i];
        if (t->loop.ep >= 0)
            close(t->loop.ep);
        free(t->sess);
        free(t->loop.rx);
        free(t->loop.wbuf);
        free(t->loop.tally.sec_hist);
    }
    for (unsigned i = 0; e->sess && i < e->cfg.sessions; i++)
        load_session_free(e->sess[i]);
    free(e->threads);
    free(e->sess);
    free(e);
}

struct load_runner *load_runner_start(const struct load_config *cfg, char *err, size_t errlen)
{
    struct load_runner *e = calloc(1, sizeof *e);
    if (e == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    e->cfg = *cfg;
    e->run.cfg = &e->cfg;
    for (int op = 0; op < LOAD_NUM_OPS; op++)
        e->run.wtotal += cfg->weights[op];
    e->nthreads = cfg->threads < 1 ? 1 : cfg->threads;
    if (e->nthreads > cfg->sessions)
        e->nthreads = cfg->sessions;
    uint64_t secs = (cfg->duration_us + 999999) / 1000000;
    e->run.nsec = (unsigned)(secs < LOAD_MAX_SECONDS ? secs : LOAD_MAX_SECONDS);
    atomic_store(&e->run.t0, UINT64_MAX);
    atomic_store(&e->run.t1, UINT64_MAX);
    e->sess = calloc(cfg->sessions, sizeof *e->sess);
    e->threads = calloc(e->nthreads, sizeof *e->threads);
    if (e->sess == NULL || e->threads == NULL || e->run.wtotal == 0) {
        snprintf(err, errlen, e->run.wtotal == 0 ? "the mix is empty" : "out of memory");
        free_engine(e);
        return NULL;
    }
    for (unsigned i = 0; i < e->nthreads; i++)
        e->threads[i].loop.ep = -1;
    pattern_check((const uint8_t *)"", 0, 0, 0); /* the pattern's table, before the threads */
    for (unsigned i = 0; i < e->nthreads; i++) {
        struct lthread *t = &e->threads[i];
        struct load_loop *loop = &t->loop;
        struct load_tally *tally = &loop->tally;
        loop->run = &e->run;
        loop->ep = epoll_create1(EPOLL_CLOEXEC);
        t->sess = calloc(cfg->sessions / e->nthreads + 1, sizeof *t->sess);
        loop->rx = malloc(LOAD_RX_CAP);
        tally->sec_hist = malloc((e->run.nsec ? e->run.nsec : 1) * sizeof *tally->sec_hist);
        if (cfg->weights[LOAD_WRITE] > 0) {
            loop->wbuf = malloc(LOAD_WRITE_CAP);
            if (loop->wbuf)
                pattern_fill(loop->wbuf, 0, LOAD_WRITE_CAP, 0);
        }
        if (loop->ep < 0 || !t->sess || !loop->rx || !tally->sec_hist ||
            (cfg->weights[LOAD_WRITE] > 0 && !loop->wbuf)) {
            snprintf(err, errlen, "cannot set up thread %u: %s", i, strerror(errno));
            free_engine(e);
            return NULL;
        }
        hist_reset(&tally->lat);
        hist_reset(&tally->lat_raw);
        for (int op = 0; op < LOAD_NUM_OPS; op++)
            hist_reset(&tally->op_lat[op]);
        for (unsigned k = 0; k < e->run.nsec; k++)
            hist_reset(&tally->sec_hist[k]);
    }
    for (unsigned i = 0; i < cfg->sessions; i++) {
        struct lthread *t = &e->threads[i % e->nthreads];
        struct load_session *s = load_session_new(&t->loop, i);
        if (s == NULL) {
            snprintf(err, errlen, "out of memory");
            free_engine(e);
            return NULL;
        }
        e->sess[i] = s;
        t->sess[t->n++] = s;
    }
    for (unsigned i = 0; i < e->nthreads; i++) {
        int rc = pthread_create(&e->threads[i].tid, NULL, thread_main, &e->threads[i]);
        if (rc != 0) {
            snprintf(err, errlen, "cannot start thread %u: %s", i, strerror(rc));
            atomic_store(&e->run.t_abort, clock_now_us());
            atomic_store(&e->run.aborting, 1);
            for (unsigned k = 0; k < i; k++)
                pthread_join(e->threads[k].tid, NULL);
            free_engine(e);
            return NULL;
        }
        e->threads[i].started = true;
    }
    return e;
}

unsigned load_runner_wait_logins(struct load_runner *e)
{
    while (atomic_load(&e->run.resolved) < e->cfg.sessions) {
        if (deadline_run_expired()) {
            load_runner_abort(e);
            break;
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    return atomic_load(&e->run.logged_in);
}

int load_runner_session_fd(const struct load_runner *e, unsigned i)
{
    return i < e->cfg.sessions ? load_session_fd(e->sess[i]) : -1;
}

void load_runner_run(struct load_runner *e, uint64_t start_us)
{
    atomic_store(&e->run.t_run, clock_now_us());
    atomic_store(&e->run.t0, start_us);
    atomic_store(&e->run.t1, start_us + e->cfg.duration_us);
    atomic_store(&e->run.running, 1);
}

void load_runner_release(struct load_runner *e)
{
    atomic_store(&e->run.released, 1);
}

void load_runner_abort(struct load_runner *e)
{
    if (atomic_load(&e->run.aborting))
        return;
    atomic_store(&e->run.t_abort, clock_now_us());
    atomic_store(&e->run.aborting, 1);
}

void load_runner_finish(struct load_runner *e, struct load_result *res)
{
    memset(res, 0, sizeof *res);
    hist_reset(&res->lat);
    hist_reset(&res->lat_raw);
    for (int op = 0; op < LOAD_NUM_OPS; op++)
        hist_reset(&res->op_lat[op]);
    /* A window that never started (abort during login) ends the threads. */
    if (!atomic_load(&e->run.running))
        load_runner_abort(e);
    for (unsigned i = 0; i < e->nthreads; i++)
        if (e->threads[i].started)
            pthread_join(e->threads[i].tid, NULL);
    res->sessions = e->cfg.sessions;
    res->logged_in = atomic_load(&e->run.logged_in);
    res->window_us = e->cfg.duration_us;
    res->nseconds = e->run.nsec;
    res->stopped = atomic_load(&e->run.aborting);
    struct hist *sec = calloc(e->run.nsec ? e->run.nsec : 1, sizeof *sec);
    for (unsigned k = 0; sec && k < e->run.nsec; k++)
        hist_reset(&sec[k]);
    for (unsigned i = 0; i < e->nthreads; i++) {
        const struct load_tally *t = &e->threads[i].loop.tally;
        res->requests += t->requests;
        res->afp_ops += t->afp_ops;
        res->bytes += t->bytes;
        hist_merge(&res->lat, &t->lat);
        hist_merge(&res->lat_raw, &t->lat_raw);
        for (int op = 0; op < LOAD_NUM_OPS; op++) {
            res->op_requests[op] += t->op_requests[op];
            hist_merge(&res->op_lat[op], &t->op_lat[op]);
        }
        for (unsigned k = 0; k < e->run.nsec; k++) {
            res->sec_requests[k] += t->sec_req[k];
            if (sec)
                hist_merge(&sec[k], &t->sec_hist[k]);
        }
    }
    for (unsigned k = 0; sec && k < e->run.nsec; k++)
        res->sec_p99[k] = hist_percentile(&sec[k], 99);
    free(sec);
    res->sess = calloc(e->cfg.sessions, sizeof *res->sess);
    for (unsigned i = 0; res->sess && i < e->cfg.sessions; i++)
        res->sess[i] = *load_session_result(e->sess[i]);
    free_engine(e);
}

void load_result_free(struct load_result *res)
{
    free(res->sess);
    res->sess = NULL;
}

/* Per-command attribution of the server's system calls (attribution.h). */
#include "attribution.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procfile.h"

/* Running sums of one command over a pass. */
struct sums {
    uint8_t code;
    uint64_t calls;
    uint64_t afpd[SYSMON_CALLS], cnid[SYSMON_CALLS];
};

struct attribution {
    const struct iomon *io;
    int afpd_fd, cnid_fd; /* PROC/PID/syscall, kept open; cnid -1 when not counted */
    struct attribution_waits waits;
    uint64_t last_afpd[SYSMON_CALLS], last_cnid[SYSMON_CALLS];   /* at the last settled point */
    uint64_t now_afpd[SYSMON_CALLS], now_cnid[SYSMON_CALLS];     /* this point */
    uint64_t again_afpd[SYSMON_CALLS], again_cnid[SYSMON_CALLS]; /* the check that it stood still */
    /* the requests sent since then */
    uint8_t window_code;
    uint64_t window_calls;
    int window_mixed;
    struct sums sums[ATTRIBUTION_MAX_CMDS];
    unsigned n;
    uint64_t settled, unsettled, overflow;
    /* attribution_set_trace */
    void (*trace_start)(void *ctx, unsigned k);
    void (*trace_stop)(void *ctx);
    void *trace_ctx;
    uint8_t trace_code;
    uint64_t trace_nth, trace_seen;
    int trace_running;
    /* a trace alone (no per-command sums wanted): settle only around the
     * traced requests, not before each one */
    int trace_only;
};

/* The calls a server process sits in while it waits for its next request:
 * afpd and cnid_dbd wait in select/poll, or block in a receive. */
static const char *const wait_calls[] = {
    "recvfrom", "recvmsg", "recvmmsg", "read",       "readv",       "select",
    "pselect6", "poll",    "ppoll",    "epoll_wait", "epoll_pwait", "epoll_pwait2",
};

void attribution_waits_init(struct attribution_waits *w)
{
    memset(w, 0, sizeof *w);
    for (unsigned nr = 0; nr < SYSMON_CALLS - 1; nr++) {
        const char *name = sysmon_call_name(nr);
        if (name == NULL)
            continue;
        for (size_t i = 0; i < sizeof wait_calls / sizeof wait_calls[0]; i++)
            if (strcmp(name, wait_calls[i]) == 0)
                w->is_wait[nr] = 1;
    }
}

int attribution_parse_waiting(const struct attribution_waits *w, const char *text)
{
    /* "running", or "-1 sp pc" (preempted outside a call), or "nr args... sp pc" */
    char *end;
    long nr = strtol(text, &end, 10);
    if (end == text || (*end != ' ' && *end != '\n'))
        return 0;
    return nr >= 0 && nr < SYSMON_CALLS - 1 && w->is_wait[nr];
}

static int waiting(const struct attribution *a, int fd)
{
    char buf[256];
    return procfile_pread(fd, buf, sizeof buf) > 0 && attribution_parse_waiting(&a->waits, buf);
}

static int open_syscall_file(const char *proc_root, int pid)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%d/syscall", proc_root, pid);
    return open(path, O_RDONLY | O_CLOEXEC);
}

struct attribution *attribution_new(const struct iomon *io, char *why, unsigned long whylen)
{
    if (!io->enabled || !io->sys.on) {
        snprintf(why, whylen, "the server's system calls are not counted%s%s",
                 io->sys.reason[0] ? ": " : "", io->sys.reason);
        return NULL;
    }
    struct attribution *a = calloc(1, sizeof *a);
    if (a == NULL) {
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    a->io = io;
    a->cnid_fd = -1;
    a->afpd_fd = open_syscall_file(io->proc_root, io->afpd_pid);
    char probe[64];
    if (a->afpd_fd < 0 || procfile_pread(a->afpd_fd, probe, sizeof probe) <= 0) {
        snprintf(why, whylen,
                 "cannot read %s/%d/syscall (reading where a process waits needs ptrace rights: "
                 "root, or CAP_SYS_PTRACE in a container)",
                 io->proc_root, io->afpd_pid);
        attribution_free(a);
        return NULL;
    }
    if (io->sys_cnid && io->cnid_pid > 0)
        a->cnid_fd = open_syscall_file(io->proc_root, io->cnid_pid);
    attribution_waits_init(&a->waits);
    return a;
}

void attribution_free(struct attribution *a)
{
    if (a == NULL)
        return;
    if (a->afpd_fd >= 0)
        close(a->afpd_fd);
    if (a->cnid_fd >= 0)
        close(a->cnid_fd);
    free(a);
}

static void read_counts(const struct attribution *a, uint64_t afpd[SYSMON_CALLS],
                        uint64_t cnid[SYSMON_CALLS])
{
    sysmon_read(&a->io->sys, SYSMON_AFPD, afpd);
    if (a->cnid_fd >= 0)
        sysmon_read(&a->io->sys, SYSMON_CNID, cnid);
    else
        memset(cnid, 0, SYSMON_CALLS * sizeof cnid[0]);
}

static int both_waiting(const struct attribution *a)
{
    return waiting(a, a->afpd_fd) && (a->cnid_fd < 0 || waiting(a, a->cnid_fd));
}

/* Wait until both processes wait for input and their counters stand still
 * across that check; read them into afpd/cnid. 1 when settled, 0 when the
 * wait ran out (the counters as they are then). */
static int settle(struct attribution *a, uint64_t afpd[SYSMON_CALLS], uint64_t cnid[SYSMON_CALLS])
{
    uint64_t *again_afpd = a->again_afpd, *again_cnid = a->again_cnid;
    int64_t start = clock_now_ms();
    for (unsigned round = 0;; round++) {
        if (both_waiting(a)) {
            read_counts(a, afpd, cnid);
            if (both_waiting(a)) {
                read_counts(a, again_afpd, again_cnid);
                if (memcmp(afpd, again_afpd, sizeof a->again_afpd) == 0 &&
                    memcmp(cnid, again_cnid, sizeof a->again_cnid) == 0)
                    return 1;
            }
        }
        if (clock_now_ms() - start > ATTRIBUTION_SETTLE_MS) {
            read_counts(a, afpd, cnid);
            return 0;
        }
        /* The tail of a request is short: yield first, then sleep a little. */
        if (round < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 50 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

static struct sums *sums_for(struct attribution *a, uint8_t code)
{
    for (unsigned i = 0; i < a->n; i++)
        if (a->sums[i].code == code)
            return &a->sums[i];
    if (a->n == ATTRIBUTION_MAX_CMDS)
        return NULL;
    struct sums *s = &a->sums[a->n++];
    memset(s, 0, sizeof *s);
    s->code = code;
    return s;
}

/* A settled point: what was counted since the last one goes to the window. */
static void charge(struct attribution *a)
{
    uint64_t *afpd = a->now_afpd, *cnid = a->now_cnid;
    if (settle(a, afpd, cnid))
        a->settled++;
    else
        a->unsettled++;
    if (a->trace_running) {
        a->trace_stop(a->trace_ctx);
        a->trace_running = 0;
    }
    if (a->window_calls > 0) {
        struct sums *s = sums_for(a, a->window_mixed ? ATTRIBUTION_MIXED : a->window_code);
        if (s == NULL) {
            a->overflow += a->window_calls;
        } else {
            s->calls += a->window_calls;
            for (unsigned i = 0; i < SYSMON_CALLS; i++) {
                /* a counter never goes back while its process lives */
                s->afpd[i] += afpd[i] >= a->last_afpd[i] ? afpd[i] - a->last_afpd[i] : 0;
                s->cnid[i] += cnid[i] >= a->last_cnid[i] ? cnid[i] - a->last_cnid[i] : 0;
            }
        }
    }
    memcpy(a->last_afpd, afpd, sizeof a->last_afpd);
    memcpy(a->last_cnid, cnid, sizeof a->last_cnid);
    a->window_calls = 0;
    a->window_mixed = 0;
}

void attribution_set_trace(struct attribution *a, uint8_t code, uint64_t nth, int only,
                           void (*start)(void *ctx, unsigned k), void (*stop)(void *ctx), void *ctx)
{
    a->trace_only = only;
    a->trace_start = start;
    a->trace_stop = stop;
    a->trace_ctx = ctx;
    a->trace_code = code;
    a->trace_nth = nth > 0 ? nth : 1;
}

void attribution_begin(struct attribution *a)
{
    a->trace_seen = 0;
    a->n = 0;
    a->settled = a->unsettled = a->overflow = 0;
    a->window_calls = 0;
    charge(a);
    a->settled = a->unsettled = 0;
}

void attribution_before_send(void *arg, uint8_t code, unsigned outstanding)
{
    struct attribution *a = arg;
    /* the traced requests are the Nth and the one after it of their command */
    uint64_t upcoming = code == a->trace_code ? a->trace_seen + 1 : 0;
    int near = a->trace_running ||
               (a->trace_start != NULL && upcoming >= a->trace_nth && upcoming <= a->trace_nth + 1);
    /* A new window only where the command changes: every call of a run of
     * one command's requests is that command's, so the run is one window
     * and settles once, not once per request (test 12 sends 30,000
     * FPGetFileDirParms in a row; settling before each was most of the pass) */
    int boundary = a->window_calls == 0 || a->window_mixed || code != a->window_code;
    if (outstanding == 0 && ((!a->trace_only && boundary) || near))
        charge(a);
    if (a->trace_start != NULL && code == a->trace_code) {
        uint64_t k = ++a->trace_seen;
        if (outstanding == 0 && k >= a->trace_nth && k <= a->trace_nth + 1) {
            a->trace_start(a->trace_ctx, (unsigned)(k - a->trace_nth));
            a->trace_running = 1;
        }
    }
    if (a->window_calls > 0 && code != a->window_code)
        a->window_mixed = 1;
    a->window_code = code;
    a->window_calls++;
}

void attribution_end(struct attribution *a, struct attribution_result *out)
{
    static const uint64_t zero[SYSMON_CALLS];
    charge(a);
    memset(out, 0, sizeof *out);
    out->n = a->n;
    out->settled = a->settled;
    out->unsettled = a->unsettled;
    out->overflow = a->overflow;
    out->cnid = a->cnid_fd >= 0;
    for (unsigned i = 0; i < a->n; i++) {
        out->cmd[i].code = a->sums[i].code;
        out->cmd[i].calls = a->sums[i].calls;
        sysmon_delta(zero, a->sums[i].afpd, &out->cmd[i].afpd);
        sysmon_delta(zero, a->sums[i].cnid, &out->cmd[i].cnid);
    }
}

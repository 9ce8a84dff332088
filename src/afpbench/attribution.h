/* Which AFP command made which system calls: the server's counted calls
 * (sysmon.h) charged to the request that caused them.
 *
 * The rule (docs/verdict-format.md, "Per AFP command"): before each request
 * goes out with nothing else in flight, wait until our afpd is blocked
 * waiting for its next request and cnid_dbd for its next one, with their
 * counters unchanged across that check; everything counted since the
 * previous such point belongs to the request(s) sent in between. So work
 * afpd does after sending a reply (closing, logging, cache hints) is
 * charged to the request it answered, and cnid_dbd's work to the AFP
 * request whose CNID call caused it: nothing else runs between two
 * settled points. Requests sent while others are in flight (pipelined bulk
 * IO) share one window; a window of one command is charged to it, one of
 * several kinds to ATTRIBUTION_MIXED.
 *
 * Waiting for the server to settle costs a few reads of /proc/PID/syscall
 * per request and stretches the run, so it is done in a pass of its own,
 * never in a timed region. */
#ifndef AFPBENCH_ATTRIBUTION_H
#define AFPBENCH_ATTRIBUTION_H

#include <stdint.h>

#include "iomon.h"
#include "sysmon.h"

/* A window of pipelined requests of several kinds (no AFP command has 0). */
#define ATTRIBUTION_MIXED 0
/* Kinds of command one test can send (lantest's send at most 9). */
#define ATTRIBUTION_MAX_CMDS 24

/* One command's calls over a pass: totals, divided by `calls` when shown. */
struct attribution_cmd {
    uint8_t code;   /* AFP command code, or ATTRIBUTION_MIXED */
    uint64_t calls; /* requests of this command */
    struct sysmon_delta afpd, cnid;
};

/* What one pass found, per test. */
struct attribution_result {
    unsigned n;
    struct attribution_cmd cmd[ATTRIBUTION_MAX_CMDS];
    uint64_t settled;   /* points where both processes were found waiting */
    uint64_t unsettled; /* points given up after ATTRIBUTION_SETTLE_MS (charged all the same) */
    uint64_t overflow;  /* requests of kinds beyond ATTRIBUTION_MAX_CMDS (not charged) */
    int cnid;           /* cnid_dbd's calls are in the figures */
};

/* A settle point waits at most this long for the server to go quiet. */
#define ATTRIBUTION_SETTLE_MS 1000

struct attribution; /* opaque: the running sums (about 200 KiB, allocated once) */

/* Watch the afpd and cnid_dbd io found (their system calls must be counted:
 * io->sys.on). NULL with *why set when that cannot be: counting is off, or
 * PROC/PID/syscall cannot be read (the client lacks ptrace rights). */
struct attribution *attribution_new(const struct iomon *io, char *why, unsigned long whylen);
void attribution_free(struct attribution *a);

/* Start a pass: settle, forget the sums. */
void attribution_begin(struct attribution *a);
/* A request of AFP command `code` is about to be sent with `outstanding`
 * others in flight (the session's observer, session.h). */
void attribution_before_send(void *a, uint8_t code, unsigned outstanding);
/* End the pass: settle, charge the last window, copy the sums into out. */
void attribution_end(struct attribution *a, struct attribution_result *out);

/* Trace two requests (lantest --trace): the nth request of command code
 * (1-based) and the one of the same command after it. start(ctx, k) runs
 * right before request k (0, then 1) goes out, once the server settled;
 * stop(ctx) once the server settled after it. only: the trace is all that
 * is wanted, so the pass settles only around the traced requests (the
 * per-command sums are then not kept up), which spares the wait before
 * every other request. */
void attribution_set_trace(struct attribution *a, uint8_t code, uint64_t nth, int only,
                           void (*start)(void *ctx, unsigned k), void (*stop)(void *ctx),
                           void *ctx);

/* Is this the syscall file of a process blocked waiting for input?
 * ("232 0x3 ..." with 232 one of the wait calls the set holds.) Exposed
 * for the unit tests. */
struct attribution_waits {
    uint8_t is_wait[SYSMON_CALLS];
};
void attribution_waits_init(struct attribution_waits *w);
int attribution_parse_waiting(const struct attribution_waits *w, const char *syscall_text);

#endif

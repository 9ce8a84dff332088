/* The runner of `afpbench load`'s engine: N AFP sessions driven by a few
 * threads, each with its own epoll loop over non-blocking sockets, never a
 * thread per session. It spreads the sessions over the threads, ramps their
 * logins in (a few at a time per thread), passes each socket's events to its
 * session, calls every session's timer every few milliseconds (1 ms in a
 * fixed-rate run, else 5), opens the measured window and stops it early on
 * request, and merges what the threads counted. What one session does, from
 * its login to its logout, is load_session.h's: the runner calls a session
 * only through its functions. A session that fails is counted and ends; the
 * others go on. */
#ifndef AFPBENCH_LOAD_RUNNER_H
#define AFPBENCH_LOAD_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "load_session.h"

struct load_result {
    unsigned sessions, logged_in;
    uint64_t window_us;
    uint64_t requests, afp_ops, bytes;
    uint64_t op_requests[LOAD_NUM_OPS];
    struct hist lat;     /* corrected in a fixed-rate run, else as measured */
    struct hist lat_raw; /* from each request's actual start */
    struct hist op_lat[LOAD_NUM_OPS];
    unsigned nseconds;
    uint64_t sec_requests[LOAD_MAX_SECONDS];
    uint64_t sec_p99[LOAD_MAX_SECONDS];
    struct load_sess_result *sess; /* [sessions] */
    int stopped;                   /* the run's deadline or a signal cut the step */
};

struct load_runner;

/* Start the threads; the sessions connect and log in at once. NULL (with
 * err) when the threads or memory cannot be had. */
struct load_runner *load_runner_start(const struct load_config *cfg, char *err, size_t errlen);
/* Wait until every session is logged in or failed (bounded by the request
 * timeout and the run's deadline). Returns the number logged in. */
unsigned load_runner_wait_logins(struct load_runner *e);
/* The socket of session i (-1 when it has none): for the server mapping. */
int load_runner_session_fd(const struct load_runner *e, unsigned i);
/* Start the mix now: the window is [start_us, start_us + duration). */
void load_runner_run(struct load_runner *e, uint64_t start_us);
/* Stop early (deadline, signal): sessions finish what they do, briefly, and log out. */
void load_runner_abort(struct load_runner *e);
/* The window's end was measured: the sessions, idle since it ended, may log
 * out (before this their afpd must stay, for its counters to be read). */
void load_runner_release(struct load_runner *e);
/* Wait for the threads (they log out after the window), merge into res
 * (res->sess allocated here; free with load_result_free), free e. */
void load_runner_finish(struct load_runner *e, struct load_result *res);
void load_result_free(struct load_result *res);

#endif

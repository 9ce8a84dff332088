/* The load engine of `afpbench load`: N AFP sessions driven by a few
 * threads, each with its own epoll loop over non-blocking sockets (nbdsi.h
 * frames the requests), never a thread per session.
 *
 * Each session logs in (connect, DSIOpenSession, FPLogin, FPOpenVol), then
 * repeats requests picked from a weighted mix until the measured window
 * ends, then logs out. A request is one operation of the mix (e.g. "read":
 * FPOpenFork + FPReadExt until the whole file is read + FPCloseFork); its
 * latency is from its start to its last reply, or in a fixed-rate run from
 * its intended start (coordinated omission, hist.h). Requests that end
 * inside the window are counted. Every wait has a deadline: the request
 * timeout and the run's (deadline.h). A session whose connection the
 * server drops, or whose request times out, is counted and ends; the others
 * go on. Nothing is allocated per request. */
#ifndef AFPBENCH_LOADENG_H
#define AFPBENCH_LOADENG_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hist.h"

enum load_op {
    LOAD_READ,
    LOAD_STAT,
    LOAD_ENUM,
    LOAD_CREATE,
    LOAD_WRITE,
    LOAD_DELETE,
    LOAD_NUM_OPS
};
const char *load_op_name(enum load_op op);

/* The testbed as the sessions address it (built by load.c). DIDs are the
 * server's CNIDs: the same for every session. File f of directory d is
 * named "f<f>" and holds sizes[f] bytes of the pattern seeded d * files + f + 1. */
struct load_testbed {
    unsigned ndirs, files;
    uint32_t dir_ids[26];
    uint64_t sizes[256];
    uint32_t scratch_did; /* create/write/delete work here */
};

struct load_config {
    struct sockaddr_storage addr;
    socklen_t addrlen;
    const char *user, *password, *volume, *afp_version;
    unsigned sessions, threads;
    unsigned weights[LOAD_NUM_OPS];
    uint64_t warmup_us, duration_us;
    double rate;    /* requests/s over all sessions; 0 = closed loop */
    int timeout_ms; /* per wait */
    uint64_t seed;
    unsigned step;  /* names scratch files apart between steps */
    int verify_all; /* check every byte read; default: the first 4 KiB of each reply */
    const struct load_testbed *tb;
};

/* Per second of the window (the first LOAD_MAX_SECONDS). */
#define LOAD_MAX_SECONDS 600

enum load_sess_state {
    LS_OK,           /* logged in, ran, logged out */
    LS_LOGIN_FAILED, /* never got to the volume */
    LS_DROPPED,      /* the server closed or reset the connection */
    LS_TIMEOUT,      /* a wait ran out */
    LS_PROTOCOL,     /* the server sent something malformed */
    LS_STOPPED,      /* the run's deadline or a signal ended it */
};
const char *load_state_name(enum load_sess_state s);

struct load_sess_result {
    enum load_sess_state state;
    uint64_t requests; /* in the window */
    uint64_t bytes;    /* in the window */
    uint64_t afp_errors, validation, timeouts, dropped, login_failed, protocol;
    uint64_t requests_all; /* warm-up and drain included */
    char error[160];       /* the first problem, or "" */
};

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

struct loadeng;

/* Start the threads; the sessions connect and log in at once. NULL (with
 * err) when the threads or memory cannot be had. */
struct loadeng *loadeng_start(const struct load_config *cfg, char *err, size_t errlen);
/* Wait until every session is logged in or failed (bounded by the request
 * timeout and the run's deadline). Returns the number logged in. */
unsigned loadeng_wait_logins(struct loadeng *e);
/* The socket of session i (-1 when it has none): for the server mapping. */
int loadeng_session_fd(const struct loadeng *e, unsigned i);
/* Start the mix now: the window is [start_us, start_us + duration). */
void loadeng_run(struct loadeng *e, uint64_t start_us);
/* Stop early (deadline, signal): sessions finish what they do, briefly, and log out. */
void loadeng_abort(struct loadeng *e);
/* Wait for the threads (they log out after the window), merge into res
 * (res->sess allocated here; free with load_result_free), free e. */
void loadeng_finish(struct loadeng *e, struct load_result *res);
void load_result_free(struct load_result *res);

#endif

/* One session of `afpbench load`'s engine: its state machine over a
 * non-blocking socket (nbdsi.h frames the requests). It connects and logs
 * in (DSIOpenSession, FPLogin, FPOpenVol), then repeats requests picked
 * from a weighted mix until the measured window ends, then logs out. A
 * request is one operation of the mix (e.g. "read": FPOpenFork + FPReadExt
 * until the whole file is read + FPCloseFork); its latency is from its start
 * to its last reply, or in a fixed-rate run from its intended start
 * (coordinated omission, hist.h). Requests that end inside the window are
 * counted. Every wait has a deadline: the request timeout and the run's
 * (deadline.h). A session whose connection the server drops, or whose
 * request times out, is counted and ends. Nothing is allocated per request.
 *
 * The runner (load_runner.h) owns the threads, their epoll loops and the
 * timers, and calls a session only through the functions at the end; a
 * session calls nothing of the runner. What they share is data: the run
 * (its configuration and window, struct load_run) and the session's loop
 * (its epoll set, buffers and the tallies the session adds its requests to,
 * struct load_loop). */
#ifndef AFPBENCH_LOAD_SESSION_H
#define AFPBENCH_LOAD_SESSION_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "dsi.h"
#include "hist.h"

enum load_op {
    LOAD_READ,
    LOAD_STAT,
    LOAD_ENUM,
    LOAD_CREATE,
    LOAD_WRITE,
    LOAD_DELETE,
    LOAD_TOUCH, /* FPSetFileParms: a new modification date on a testbed file */
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
    /* sessions 0 .. writers-1 only touch testbed files, which the others
     * stat, list and read: entries another afpd has cached change under it */
    unsigned writers;
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

/* The run, as every session of every thread sees it. The runner sets it up
 * and moves the window; the sessions count their logins in it. */
struct load_run {
    const struct load_config *cfg;
    unsigned wtotal;      /* the mix's weights summed (> 0) */
    unsigned nsec;        /* seconds of the window tallied (<= LOAD_MAX_SECONDS) */
    _Atomic int running;  /* the mix may start */
    _Atomic int aborting; /* stop early */
    /* the window's end counters are read (load.c): sessions may log out.
     * Until then a session whose window ended stays logged in and idle, so
     * that its afpd is still there to be read. */
    _Atomic int released;
    _Atomic unsigned resolved, logged_in;
    _Atomic uint64_t t_run, t0, t1, t_abort; /* the mix's start, the window, the abort */
};

/* What the sessions of one loop counted in the window. */
struct load_tally {
    uint64_t requests, afp_ops, bytes, op_requests[LOAD_NUM_OPS];
    struct hist lat, lat_raw, op_lat[LOAD_NUM_OPS];
    uint64_t sec_req[LOAD_MAX_SECONDS];
    struct hist *sec_hist; /* [run->nsec] */
};

/* One epoll loop (one thread) and what its sessions share with it. */
struct load_loop {
    struct load_run *run;
    int ep;              /* the epoll set of the sessions' sockets */
    unsigned active;     /* sessions not yet ended */
    unsigned logging_in; /* sessions connecting or logging in */
    uint8_t *rx;         /* the receive buffer */
    uint8_t *wbuf;       /* write data (pattern, seed 0), when the mix writes */
    struct load_tally tally;
};

/* ---- The mix (load_mix.c) ---- */

/* Scratch file n of a kind ('c' created, 'w' written) of session idx in
 * load step `step`: apart between sessions and steps. */
void load_scratch_name(char *buf, size_t len, unsigned step, unsigned idx, char kind, uint64_t n);
/* The modification date touch number n of session idx sets (AFP time). */
int32_t load_touch_date(unsigned idx, uint32_t n);
/* The next of a session's random numbers (xorshift*: a seed per session). */
uint64_t load_rng_next(uint64_t *s);
/* The next operation: a writer session's is always LOAD_TOUCH, the others'
 * drawn by the mix's weights. */
enum load_op load_pick_op(const struct load_run *run, unsigned idx, uint64_t *rng);

/* A finished request, as it counts. */
struct load_done {
    enum load_op op;
    uint64_t now, t_start, t_intended; /* its end, start and intended start */
    uint64_t bytes;
    unsigned afp; /* its AFP requests */
    int err;      /* an AFP error failed it */
    int valid;    /* a validation failure */
};
/* Count it in res (always) and, when it ended inside the window, in the
 * loop's tallies: its latency from its intended start (and from its start),
 * overall, by operation and by second of the window. */
void load_count_done(struct load_loop *loop, struct load_sess_result *res,
                     const struct load_done *d);

/* The receive buffer's size: a whole read reply's data (the request size
 * is at most DSI_REQUEST_DEFAULT_MAX), so that the rest of a reply past its
 * checked bytes is dropped in one recv; and the most one FPWriteExt sends
 * (wbuf's). */
#define LOAD_RX_CAP DSI_REQUEST_DEFAULT_MAX
#define LOAD_WRITE_CAP DSI_REQUEST_DEFAULT_MAX

/* The run's window at one scan of a loop, read once by the runner. */
struct load_window {
    bool running, aborting, released;
    uint64_t t_run, t1, t_abort;
};

struct load_session;

/* Session idx (0-based, of run->cfg->sessions) of loop; counted active in
 * it. NULL when out of memory. */
struct load_session *load_session_new(struct load_loop *loop, unsigned idx);
/* Its socket closed if still open, and its memory freed. */
void load_session_free(struct load_session *s);
/* Connect and log in (unless it has already ended). */
void load_session_connect(struct load_session *s);
/* epoll reported events on the session's socket (a session adds its socket
 * to loop->ep with itself as the event's data.ptr). */
void load_session_event(struct load_session *s, uint32_t events);
/* The loop's timer at now (clock_now_us), every few ms: the session's
 * deadlines, its first request once the window w runs (at its place in the
 * fixed-rate schedule), its next one when it waited for its intended time,
 * its logout when w ends, a tickle when it has been idle. */
void load_session_timer(struct load_session *s, uint64_t now, const struct load_window *w);
/* The session's socket, -1 when it has none. */
int load_session_fd(const struct load_session *s);
/* How the session went (final once its loop has ended). */
const struct load_sess_result *load_session_result(const struct load_session *s);

#endif

/* Bounds on waiting: the run's deadline (--deadline SECONDS), a stop asked
 * for by SIGTERM/SIGINT/SIGHUP, and the per-request timeout (--timeout).
 *
 * Every wait on the server (dsi.c) ends at the earlier of its request's own
 * deadline, fixed when the wait starts (tickles and partial data do not
 * extend it), and the run's deadline. Once the run's deadline has passed or
 * a stop was asked for, every later wait fails at once with AFPB_ETIMEOUT,
 * so the suites write what they measured and exit 5. */
#ifndef AFPBENCH_DEADLINE_H
#define AFPBENCH_DEADLINE_H

#include <stdbool.h>
#include <stdint.h>

/* Upper bound for --deadline and --timeout, in seconds (a week). */
#define DEADLINE_MAX_S 604800u

/* Set the run's deadline to seconds from now (0: none). */
void deadline_set_run(unsigned seconds);
/* The option that set it, for the message (default "--deadline"). */
void deadline_set_run_flag(const char *flag);
/* The run's deadline in clock_now_ms() terms: INT64_MAX when none, 0 once a
 * stop was asked for. */
int64_t deadline_run_ms(void);
/* The run's deadline has passed, or a stop was asked for. */
bool deadline_run_expired(void);
/* The same, against a monotonic time the caller read lately (clock_now_ms):
 * the DSI engine checks before every request with its latest clock read
 * (dsi_command reads the clock once every 16 commands) instead of a read of
 * its own. */
bool deadline_run_expired_at(int64_t now_ms);
/* Why the run stops: "the run's deadline (--deadline 60 s) passed" or
 * "stopped by signal 15"; "" while neither happened. */
const char *deadline_reason(void);

/* SIGTERM, SIGINT and SIGHUP ask for a stop instead of killing the
 * process, so what was measured is still written. A repeated one is the same
 * request (timeout(1) sends each signal twice: to the process and to its
 * group); SIGKILL is the hard stop. */
void deadline_install_signals(void);
/* A stop was asked for (async-signal-safe flag). */
bool deadline_stop_requested(void);

/* The per-request timeout in ms (default DSI_DEFAULT_TIMEOUT_MS). */
int deadline_request_ms(void);
void deadline_set_request_ms(int ms);

#endif

/* The run's deadline, stop requests and the request timeout (see deadline.h). */
#include "deadline.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "dsi.h"

static int64_t run_deadline_ms = INT64_MAX;
static unsigned run_seconds;
static volatile sig_atomic_t stop_signal;
static int request_ms = DSI_DEFAULT_TIMEOUT_MS;
static char reason[96];
static const char *run_flag = "--deadline";

void deadline_set_run(unsigned seconds)
{
    run_seconds = seconds;
    run_deadline_ms = seconds ? clock_now_ms() + (int64_t)seconds * 1000 : INT64_MAX;
}

void deadline_set_run_flag(const char *flag)
{
    run_flag = flag;
}

int64_t deadline_run_ms(void)
{
    return stop_signal ? 0 : run_deadline_ms;
}

bool deadline_run_expired_at(int64_t now_ms)
{
    return stop_signal || now_ms >= run_deadline_ms;
}

bool deadline_run_expired(void)
{
    return stop_signal || (run_deadline_ms != INT64_MAX && clock_now_ms() >= run_deadline_ms);
}

const char *deadline_reason(void)
{
    if (stop_signal)
        snprintf(reason, sizeof reason, "stopped by signal %d", (int)stop_signal);
    else if (deadline_run_expired())
        snprintf(reason, sizeof reason, "the run's deadline (%s %u s) passed", run_flag,
                 run_seconds);
    else
        reason[0] = '\0';
    return reason;
}

static void on_stop(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
}

void deadline_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a blocked recv returns EINTR and sees the stop.
     * No SA_RESETHAND either: one stop often arrives twice. timeout(1)
     * signals its child and then the child's whole process group, a
     * terminal's ^C reaches every process of the job: with the handler
     * reset by the first copy, the second killed the run (exit 143, no
     * JSON) whenever the handler ran between the two, which load makes
     * likely. Every later stop signal is the same request; the run ends at
     * its next wait, and SIGKILL (timeout -k) remains the hard stop. */
    sa.sa_flags = 0;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

bool deadline_stop_requested(void)
{
    return stop_signal != 0;
}

int deadline_request_ms(void)
{
    return request_ms;
}

void deadline_set_request_ms(int ms)
{
    request_ms = ms > 0 ? ms : DSI_DEFAULT_TIMEOUT_MS;
}

/* afpbench speedtest internals, shared by the driver (speedtest.c), local
 * mode (speedtest_local.c, its calls in speedtest_local.h), TCP metrics
 * (speedtest_tcp.c) and the reports (speedtest_report.c). */
#ifndef AFPBENCH_SPEEDTEST_H
#define AFPBENCH_SPEEDTEST_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "iomon.h"
#include "pattern.h"
#include "results.h"
#include "srvfiles.h"

struct afp_session;

enum tcp_when { TCP_INITIAL, TCP_FINAL, TCP_NUM_SNAPSHOTS };

/* One TCP_INFO snapshot of our connection; -1 = not available. */
struct tcp_snapshot {
    int taken;
    long long sndbuf_kb, rcvbuf_kb, maxseg, cwnd, ssthresh, retrans, total_retrans, lost,
        reordering, snd_mss, rcv_mss, advmss, rcv_space_kb;
    double rtt_ms, rttvar_ms;
};

struct st {
    const struct speedtest_opts *o;
    struct results *res;
    const char *label;       /* progress prefix: "" or "[head] " / "[base] " */
    const char *side_suffix; /* appended to the test directories' names */
    int local;
    struct afp_session *s;
    uint16_t vol, vol2;     /* vol2: -S, 0 when not given */
    uint32_t req;           /* bytes per request */
    struct pattern_buf pat; /* req-sized pattern source */
    uint8_t *bufs;          /* window * req bytes, block-aligned */
    int connection_lost;
    struct iomon io;     /* the server's afpd and cnid_dbd (AFP mode) */
    struct srvfiles srv; /* the server's files through afpd's proc root */
    struct tcp_snapshot tcp[TCP_NUM_SNAPSHOTS];
};

/* TCP_INFO of the session's socket (no-op in local mode). */
void speedtest_tcp_snapshot(struct st *c, enum tcp_when when);
/* {"initial": {...}, "final": {...}} or NULL; malloc'd. */
char *speedtest_tcp_json(const struct st *c);

void speedtest_report_csv(const struct st *c, FILE *out);
void speedtest_report_human(const struct st *c, FILE *out);

#endif

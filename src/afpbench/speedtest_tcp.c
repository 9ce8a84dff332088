/* TCP metrics of the AFP connection at the start and the end of a run. */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "session.h"
#include "speedtest.h"

void speedtest_tcp_snapshot(struct st *c, enum tcp_when when)
{
    struct tcp_snapshot *t = &c->tcp[when];
    memset(t, 0, sizeof *t);
    if (c->local || c->s == NULL || afp_session_fd(c->s) < 0)
        return;
    int fd = afp_session_fd(c->s);
    int v;
    socklen_t len = sizeof v;
    t->sndbuf_kb = getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &len) == 0 ? v / 1024 : -1;
    len = sizeof v;
    t->rcvbuf_kb = getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &len) == 0 ? v / 1024 : -1;
    len = sizeof v;
    t->maxseg = getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, &len) == 0 ? v : -1;

    struct tcp_info ti;
    memset(&ti, 0, sizeof ti);
    len = sizeof ti;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0)
        len = 0;
        /* Older kernels return a shorter struct: fields past len are unknown. */
#define FIELD(f) (len >= offsetof(struct tcp_info, f) + sizeof ti.f ? (long long)ti.f : -1)
    t->cwnd = FIELD(tcpi_snd_cwnd);
    t->ssthresh = FIELD(tcpi_snd_ssthresh);
    t->rtt_ms = FIELD(tcpi_rtt) >= 0 ? (double)ti.tcpi_rtt / 1000.0 : -1;
    t->rttvar_ms = FIELD(tcpi_rttvar) >= 0 ? (double)ti.tcpi_rttvar / 1000.0 : -1;
    t->retrans = FIELD(tcpi_retransmits);
    t->total_retrans = FIELD(tcpi_total_retrans);
    t->lost = FIELD(tcpi_lost);
    t->reordering = FIELD(tcpi_reordering);
    t->snd_mss = FIELD(tcpi_snd_mss);
    t->rcv_mss = FIELD(tcpi_rcv_mss);
    t->advmss = FIELD(tcpi_advmss);
    t->rcv_space_kb = FIELD(tcpi_rcv_space) >= 0 ? (long long)ti.tcpi_rcv_space / 1024 : -1;
#undef FIELD
    t->taken = 1;
}

char *speedtest_tcp_json(const struct st *c)
{
    if (!c->tcp[TCP_INITIAL].taken || !c->tcp[TCP_FINAL].taken)
        return NULL;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (f == NULL)
        return NULL;
    static const char *const names[TCP_NUM_SNAPSHOTS] = {"initial", "final"};
    fputc('{', f);
    for (int w = 0; w < TCP_NUM_SNAPSHOTS; w++) {
        const struct tcp_snapshot *t = &c->tcp[w];
        fprintf(f,
                "%s\"%s\": {\"send_buffer_kb\": %lld, \"recv_buffer_kb\": %lld, "
                "\"mss_bytes\": %lld, \"cwnd_segments\": %lld, \"ssthresh_segments\": %lld, "
                "\"rtt_ms\": %.3f, \"rtt_variance_ms\": %.3f, \"retrans_current\": %lld, "
                "\"total_retrans\": %lld, \"lost_packets\": %lld, \"reordering\": %lld}",
                w ? ", " : "", names[w], t->sndbuf_kb, t->rcvbuf_kb, t->maxseg, t->cwnd,
                t->ssthresh, t->rtt_ms, t->rttvar_ms, t->retrans, t->total_retrans, t->lost,
                t->reordering);
    }
    fputc('}', f);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* speedtest reports: afp_speedtest's three CSV tables (-c), or a table. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "speedtest.h"
#include "stats.h"

/* Statistics over a test's measured runs (no outlier trimming: speedtest
 * reports min and max as they are). */
static int summarize_us(const struct result_test *t, struct stats *st)
{
    if (t->nsamples == 0)
        return -1;
    double *v = malloc(t->nsamples * sizeof *v);
    if (v == NULL)
        return -1;
    for (size_t i = 0; i < t->nsamples; i++)
        v[i] = (double)t->samples[i].us;
    int rc = stats_summarize(v, t->nsamples, 0, st);
    free(v);
    return rc;
}

static double mbs(uint64_t bytes, double us)
{
    return us > 0 ? (double)bytes / 1048576.0 / (us / 1e6) : 0.0;
}

static void csv_runs(const struct st *c, FILE *out)
{
    const struct results *r = c->res;
    fputs("test_name,iteration,file_size_mb,microseconds,throughput_mbs\n", out);
    for (size_t i = 0; i < r->ntests; i++) {
        const struct result_test *t = &r->tests[i];
        double mb = (double)t->size_bytes / 1048576.0;
        for (size_t k = 0; k < t->nsamples; k++)
            fprintf(out, "%s,%u,%.3f,%" PRIu64 ",%.2f\n", t->op, t->samples[k].iteration, mb,
                    t->samples[k].us, mbs(t->size_bytes, (double)t->samples[k].us));
        struct stats st;
        if (t->nsamples < 2 || summarize_us(t, &st) != 0)
            continue;
        fprintf(out, "%s_mean,,%.3f,%.0f,%.2f\n", t->op, mb, st.mean, mbs(t->size_bytes, st.mean));
        fprintf(out, "%s_median,,%.3f,%.0f,%.2f\n", t->op, mb, st.median,
                mbs(t->size_bytes, st.median));
        fprintf(out, "%s_stddev,,%.3f,%.0f,\n", t->op, mb, st.stddev);
        fprintf(out, "%s_min,,%.3f,%.0f,%.2f\n", t->op, mb, st.min, mbs(t->size_bytes, st.min));
        fprintf(out, "%s_max,,%.3f,%.0f,%.2f\n", t->op, mb, st.max, mbs(t->size_bytes, st.max));
    }
}

static void csv_sweep(const struct st *c, FILE *out)
{
    const struct results *r = c->res;
    for (int op = 0; op < SPEED_NUM_OPS; op++) {
        const char *name = speedtest_op_name((enum speedtest_op)op);
        int header = 0;
        for (size_t i = 0; i < r->ntests; i++) {
            const struct result_test *t = &r->tests[i];
            struct stats st;
            if (strcmp(t->op, name) != 0 || summarize_us(t, &st) != 0)
                continue;
            if (!header) {
                fprintf(out, "\n# File Size Performance Summary for %s\n", name);
                fputs("file_size_bytes,file_size_mb,mean_throughput_mbs,median_throughput_mbs,"
                      "min_throughput_mbs,max_throughput_mbs,stddev_ms,mean_time_ms\n",
                      out);
                header = 1;
            }
            fprintf(out, "%" PRIu64 ",%.3f,%.2f,%.2f,%.2f,%.2f,%.1f,%.1f\n", t->size_bytes,
                    (double)t->size_bytes / 1048576.0, mbs(t->size_bytes, st.mean),
                    mbs(t->size_bytes, st.median), mbs(t->size_bytes, st.max),
                    mbs(t->size_bytes, st.min), st.stddev / 1000.0, st.mean / 1000.0);
        }
    }
}

static void tcp_row(FILE *out, const char *name, long long a, long long b)
{
    if (a >= 0 && b >= 0)
        fprintf(out, "%s,%lld,%lld,%lld\n", name, a, b, b - a);
}

static void csv_tcp(const struct st *c, FILE *out)
{
    const struct tcp_snapshot *a = &c->tcp[TCP_INITIAL], *b = &c->tcp[TCP_FINAL];
    if (!a->taken || !b->taken)
        return;
    fputs("\n# TCP Metrics Evolution Summary\nmetric,initial,final,delta\n", out);
    tcp_row(out, "tcp_send_buffer_kb", a->sndbuf_kb, b->sndbuf_kb);
    tcp_row(out, "tcp_recv_buffer_kb", a->rcvbuf_kb, b->rcvbuf_kb);
    tcp_row(out, "tcp_mss_bytes", a->maxseg, b->maxseg);
    tcp_row(out, "tcp_cwnd_segments", a->cwnd, b->cwnd);
    tcp_row(out, "tcp_ssthresh_segments", a->ssthresh, b->ssthresh);
    if (a->rtt_ms >= 0 && b->rtt_ms >= 0)
        fprintf(out, "tcp_rtt_ms,%.2f,%.2f,%.2f\n", a->rtt_ms, b->rtt_ms, b->rtt_ms - a->rtt_ms);
    if (a->rttvar_ms >= 0 && b->rttvar_ms >= 0)
        fprintf(out, "tcp_rtt_variance_ms,%.2f,%.2f,%.2f\n", a->rttvar_ms, b->rttvar_ms,
                b->rttvar_ms - a->rttvar_ms);
    tcp_row(out, "tcp_retrans_current", a->retrans, b->retrans);
    tcp_row(out, "tcp_total_retrans", a->total_retrans, b->total_retrans);
    tcp_row(out, "tcp_lost_packets", a->lost, b->lost);
    tcp_row(out, "tcp_reordering", a->reordering, b->reordering);
    tcp_row(out, "tcp_send_mss_bytes", a->snd_mss, b->snd_mss);
    tcp_row(out, "tcp_recv_mss_bytes", a->rcv_mss, b->rcv_mss);
    tcp_row(out, "tcp_adv_mss_bytes", a->advmss, b->advmss);
    tcp_row(out, "tcp_recv_space_kb", a->rcv_space_kb, b->rcv_space_kb);
}

void speedtest_report_csv(const struct st *c, FILE *out)
{
    csv_runs(c, out);
    if (c->o->sweep)
        csv_sweep(c, out);
    if (c->o->sweep && c->o->stats && !c->local)
        csv_tcp(c, out);
}

/* Mean of one server IO count over a test's runs; -1 when any run's count
 * is unknown (a gap is not averaged over). */
static double mean_io(const struct result_test *t, int which) /* afpd_r, afpd_w, cnid_r, cnid_w */
{
    double sum = 0;
    for (size_t i = 0; i < t->nsamples; i++) {
        const struct result_sample *s = &t->samples[i];
        const uint64_t counts[4] = {s->afpd_r, s->afpd_w, s->cnid_r, s->cnid_w};
        uint64_t v = counts[which];
        if (v == RESULTS_UNKNOWN)
            return -1;
        sum += (double)v;
    }
    return t->nsamples ? sum / (double)t->nsamples : -1;
}

void speedtest_report_human(const struct st *c, FILE *out)
{
    const struct results *r = c->res;
    int io = !c->local && c->io.enabled;
    fprintf(out,
            "\nafpbench speedtest (%s; %u measured run%s per size after %u warm-up; "
            "%u-byte requests, window %u)\n\n",
            c->local ? "local mode" : "AFP", c->o->common.iterations,
            c->o->common.iterations == 1 ? "" : "s", c->o->warmup, c->req, c->o->window);
    fprintf(out, "%-24s %5s %10s %10s %10s %10s %10s %10s %10s", "Test", "Runs", "Mean_MB/s",
            "Median", "Min", "Max", "Mean_ms", "Stddev_ms", "P95_ms");
    if (io)
        fprintf(out, " %8s %8s %8s %8s", "AFPD_R", "AFPD_W", "CNID_R", "CNID_W");
    fputc('\n', out);
    for (size_t i = 0; i < r->ntests; i++) {
        const struct result_test *t = &r->tests[i];
        struct stats st;
        if (summarize_us(t, &st) != 0)
            continue;
        fprintf(out, "%-24s %5zu %10.2f %10.2f %10.2f %10.2f %10.3f %10.3f %10.3f", t->name,
                t->nsamples, mbs(t->size_bytes, st.mean), mbs(t->size_bytes, st.median),
                mbs(t->size_bytes, st.max), mbs(t->size_bytes, st.min), st.mean / 1000.0,
                st.stddev / 1000.0, st.p95 / 1000.0);
        for (int k = 0; io && k < 4; k++) {
            double v = mean_io(t, k);
            if (v >= 0)
                fprintf(out, " %8.0f", v);
            else
                fprintf(out, " %8s", "-");
        }
        fprintf(out, "%s\n", t->failed ? "  (failed)" : "");
    }
    if (io)
        fputs("(AFPD_R etc.: the server's read/write syscalls per run, mean)\n", out);
    if (r->cpu_known && r->cpu_afp_ops > 0)
        fprintf(out, "\nClient CPU: %.2f us per AFP op (%" PRIu64 " ops)\n",
                (double)(r->cpu_user_us + r->cpu_sys_us) / (double)r->cpu_afp_ops, r->cpu_afp_ops);
    if (!c->local)
        results_print_io_status(r, out);
}

/* Timed regions shared by lantest and speedtest. */
#include "timed.h"

#include <inttypes.h>

#include "clock.h"
#include "session.h"

void timed_begin(struct timed_region *r, const struct afp_session *s, const struct iomon *io)
{
    r->s = s;
    r->io = io;
    /* the peaks start from what the servers hold now, before the counters
     * are read: the write is ours, not the server's */
    r->peaks = io != NULL ? iomon_reset_peaks(io) : 0;
    if (io != NULL)
        iomon_sample(io, &r->io0);
    else
        r->io0 = (struct iomon_sample){0};
    r->ops0 = s != NULL ? afp_session_ops(s) : 0;
    r->t0 = clock_now_us();
}

static uint64_t delta(int ok0, int ok1, uint64_t v0, uint64_t v1)
{
    /* A counter that went backwards belongs to another process now. */
    return ok0 && ok1 && v1 >= v0 ? v1 - v0 : RESULTS_UNKNOWN;
}

void timed_io_delta(const struct iomon_sample *before, const struct iomon_sample *after,
                    struct result_sample *smp)
{
    smp->afpd_r = delta(before->afpd_ok, after->afpd_ok, before->afpd_r, after->afpd_r);
    smp->afpd_w = delta(before->afpd_ok, after->afpd_ok, before->afpd_w, after->afpd_w);
    smp->cnid_r = delta(before->cnid_ok, after->cnid_ok, before->cnid_r, after->cnid_r);
    smp->cnid_w = delta(before->cnid_ok, after->cnid_ok, before->cnid_w, after->cnid_w);
    smp->afpd_rchar = delta(before->afpd_ok, after->afpd_ok, before->afpd_rchar, after->afpd_rchar);
    smp->afpd_wchar = delta(before->afpd_ok, after->afpd_ok, before->afpd_wchar, after->afpd_wchar);
    smp->afpd_cpu_us =
        delta(before->afpd_cpu_ok, after->afpd_cpu_ok, before->afpd_cpu_ns, after->afpd_cpu_ns);
    smp->cnid_cpu_us =
        delta(before->cnid_cpu_ok, after->cnid_cpu_ok, before->cnid_cpu_ns, after->cnid_cpu_ns);
    smp->afpd_wait_us =
        delta(before->afpd_cpu_ok, after->afpd_cpu_ok, before->afpd_wait_ns, after->afpd_wait_ns);
    /* nanoseconds on the clock, kept in microseconds like the wall time */
    if (smp->afpd_cpu_us != RESULTS_UNKNOWN)
        smp->afpd_cpu_us /= 1000;
    if (smp->afpd_wait_us != RESULTS_UNKNOWN)
        smp->afpd_wait_us /= 1000;
    if (smp->cnid_cpu_us != RESULTS_UNKNOWN)
        smp->cnid_cpu_us /= 1000;
    smp->sys_known = before->sys_ok && after->sys_ok && before->afpd_ok && after->afpd_ok;
    smp->cnid_sys_known = smp->sys_known && before->sys_cnid_ok && after->sys_cnid_ok &&
                          before->cnid_ok && after->cnid_ok;
    if (smp->sys_known)
        sysmon_delta(before->afpd_sys, after->afpd_sys, &smp->afpd_sys);
    if (smp->cnid_sys_known)
        sysmon_delta(before->cnid_sys, after->cnid_sys, &smp->cnid_sys);
    smp->fdio_known = smp->sys_known && before->fdio_ok && after->fdio_ok;
    for (unsigned i = 0; i < SYSMON_FDIO && smp->fdio_known; i++) {
        smp->afpd_fdio[i] = delta(1, 1, before->afpd_fdio[i], after->afpd_fdio[i]);
        smp->cnid_fdio[i] = delta(smp->cnid_sys_known, smp->cnid_sys_known, before->cnid_fdio[i],
                                  after->cnid_fdio[i]);
    }
}

void timed_end(struct timed_region *r, struct result_sample *smp)
{
    uint64_t t1 = clock_now_us();
    struct iomon_sample io1 = {0};
    if (r->io != NULL)
        iomon_sample(r->io, &io1);
    smp->us = t1 - r->t0;
    smp->afp_ops = r->s != NULL ? afp_session_ops(r->s) - r->ops0 : 0;
    timed_io_delta(&r->io0, &io1, smp);
    smp->afpd_hwm_kb = (r->peaks & 1) && io1.afpd_hwm_ok ? io1.afpd_hwm_kb : RESULTS_UNKNOWN;
    smp->cnid_hwm_kb = (r->peaks & 2) && io1.cnid_hwm_ok ? io1.cnid_hwm_kb : RESULTS_UNKNOWN;
}

void timed_print_io(FILE *out, const struct result_sample *smp)
{
    if (smp->afpd_r == RESULTS_UNKNOWN || smp->afpd_w == RESULTS_UNKNOWN)
        return;
    fprintf(out, "         IO Operations; afpd: %" PRIu64 " READs, %" PRIu64 " WRITEs", smp->afpd_r,
            smp->afpd_w);
    if (smp->cnid_r != RESULTS_UNKNOWN && smp->cnid_w != RESULTS_UNKNOWN)
        fprintf(out, " | cnid_dbd: %" PRIu64 " READs, %" PRIu64 " WRITEs\n", smp->cnid_r,
                smp->cnid_w);
    else
        fputs(" | cnid_dbd: not monitored\n", out);
}

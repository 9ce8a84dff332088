/* A timed region, measured the same way by both suites: wall time on the
 * monotonic clock, the AFP requests issued, and the server's read/write
 * syscalls, bytes and CPU time (iomon) between timed_begin and timed_end. The IO counters are
 * read outside the clock: right before it starts and right after it stops. */
#ifndef AFPBENCH_TIMED_H
#define AFPBENCH_TIMED_H

#include <stdint.h>
#include <stdio.h>

#include "iomon.h"
#include "results.h"

struct afp_session;

struct timed_region {
    const struct afp_session *s; /* NULL: no AFP requests to count */
    const struct iomon *io;      /* NULL or off: IO counts unknown */
    uint64_t t0, ops0;
    struct iomon_sample io0;
    int peaks; /* iomon_reset_peaks: whose peak memory was reset at the start */
};

void timed_begin(struct timed_region *r, const struct afp_session *s, const struct iomon *io);

/* Stop the clock and fill smp's us, afp_ops, the server's IO counts
 * (afpd_r/w, cnid_r/w, afpd_rchar/wchar), CPU time (afpd_cpu_us,
 * cnid_cpu_us) and peak resident memory in the region (afpd_hwm_kb,
 * cnid_hwm_kb); the other fields are left alone. A count is RESULTS_UNKNOWN when its process
 * is not monitored, could not be read, or its counter went backwards. */
void timed_end(struct timed_region *r, struct result_sample *smp);

/* The difference of two IO counter readings (exposed for the unit tests). */
void timed_io_delta(const struct iomon_sample *before, const struct iomon_sample *after,
                    struct result_sample *smp);

/* Progress: afp_lantest's "IO Operations" line for a sample whose afpd
 * counts are known; nothing otherwise. */
void timed_print_io(FILE *out, const struct result_sample *smp);

#endif

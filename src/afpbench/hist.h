/* Latency histograms with log-spaced buckets (the HdrHistogram idea, our
 * own layout): values below 2^HIST_SUB_BITS are counted exactly; above,
 * each power-of-two range is cut into 2^(HIST_SUB_BITS-1) equal buckets, so
 * a value's bucket is at most 1/64 (1.6 %) wider than the value. Recording
 * is O(1) with no allocation; histograms of the same layout merge by
 * adding their counts. Values are in microseconds; anything above
 * HIST_MAX_VALUE is counted in the last bucket (and the exact max is kept).
 *
 * Coordinated omission: a closed-loop client waits for each reply before
 * the next request, so a stall delays requests that were never sent and
 * their latency is never recorded. In a fixed-rate run (afpbench load
 * --rate) every request has an intended start time, and its latency is
 * measured from that time (as wrk2 does): a stall shows up in every
 * request it held back. That correction is the caller's (it records the
 * latency from the intended time); this module just counts. */
#ifndef AFPBENCH_HIST_H
#define AFPBENCH_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS 7
#define HIST_MAX_BITS 40 /* 2^40 µs: 12.7 days */
#define HIST_HALF (1u << (HIST_SUB_BITS - 1))
#define HIST_BUCKETS ((HIST_MAX_BITS - HIST_SUB_BITS + 2) * HIST_HALF)
#define HIST_MAX_VALUE ((UINT64_C(1) << HIST_MAX_BITS) - 1)

struct hist {
    uint64_t count;
    uint64_t sum; /* saturating */
    uint64_t min, max;
    uint64_t buckets[HIST_BUCKETS];
};

void hist_reset(struct hist *h);
void hist_record(struct hist *h, uint64_t value);
/* Add src's counts into dst. */
void hist_merge(struct hist *dst, const struct hist *src);
/* The bucket of a value, and the range [lo, hi] of values a bucket holds
 * (exposed for the unit tests). */
unsigned hist_index(uint64_t value);
void hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi);
/* The value at percentile p (0 < p <= 100): the highest value equivalent to
 * the bucket that holds the ceil(p/100 * count)-th smallest value, never
 * above the recorded max. 0 when the histogram is empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);

#endif

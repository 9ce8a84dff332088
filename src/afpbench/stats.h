/* Summary statistics over the measured iterations of one test. */
#ifndef AFPBENCH_STATS_H
#define AFPBENCH_STATS_H

#include <stddef.h>

/* More than this many samples: the single lowest and the single highest
 * value are removed as outliers before summarising (afp_lantest's rule). */
#define STATS_OUTLIER_MIN_SAMPLES 5

struct stats {
    size_t n;       /* values summarised (after outlier removal) */
    size_t dropped; /* values removed as outliers (0 or 2) */
    double mean;
    double median; /* mean of the two middle values when n is even */
    double stddev; /* sample standard deviation (n - 1); 0 when n < 2 */
    double min;
    double max;
    double p95; /* nearest-rank 95th percentile */
};

/* Summarise count values. Zero is a genuine value, never "missing". With
 * trim_outliers and count > STATS_OUTLIER_MIN_SAMPLES, the lowest and the
 * highest value are dropped first. Returns 0, or -1 when count is 0 or
 * memory runs out (out is then all zeros). */
int stats_summarize(const double *values, size_t count, int trim_outliers, struct stats *out);

#endif

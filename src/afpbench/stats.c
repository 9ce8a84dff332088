/* Summary statistics. Sorting a copy keeps the caller's samples in
 * iteration order (they are written raw to the JSON results). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

int stats_summarize(const double *values, size_t count, int trim_outliers, struct stats *out)
{
    memset(out, 0, sizeof *out);
    if (count == 0)
        return -1;

    double *sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL)
        return -1;
    memcpy(sorted, values, count * sizeof *sorted);
    qsort(sorted, count, sizeof *sorted, compare_doubles);

    const double *v = sorted;
    size_t n = count;
    if (trim_outliers && count > STATS_OUTLIER_MIN_SAMPLES) {
        v++;
        n -= 2;
        out->dropped = 2;
    }

    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    double mean = sum / (double)n;

    double squares = 0;
    for (size_t i = 0; i < n; i++)
        squares += (v[i] - mean) * (v[i] - mean);

    out->n = n;
    out->mean = mean;
    out->stddev = n > 1 ? sqrt(squares / (double)(n - 1)) : 0.0;
    out->min = v[0];
    out->max = v[n - 1];
    out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    /* Nearest rank: the smallest value with at least 95 % of values <= it. */
    size_t rank = (size_t)ceil(0.95 * (double)n);
    out->p95 = v[rank > 0 ? rank - 1 : 0];

    free(sorted);
    return 0;
}

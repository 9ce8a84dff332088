/* Log-bucketed latency histograms (see hist.h). */
#include "hist.h"

#include <math.h>
#include <string.h>

void hist_reset(struct hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

static unsigned msb64(uint64_t v)
{
    return 63u - (unsigned)__builtin_clzll(v);
}

unsigned hist_index(uint64_t v)
{
    if (v > HIST_MAX_VALUE)
        v = HIST_MAX_VALUE;
    if (v < (UINT64_C(1) << HIST_SUB_BITS))
        return (unsigned)v;
    unsigned shift = msb64(v) - HIST_SUB_BITS + 1;
    return shift * HIST_HALF + (unsigned)(v >> shift);
}

void hist_bucket_range(unsigned index, uint64_t *lo, uint64_t *hi)
{
    if (index < (1u << HIST_SUB_BITS)) {
        *lo = *hi = index;
        return;
    }
    unsigned shift = index / HIST_HALF - 1;
    uint64_t mant = index - shift * HIST_HALF;
    *lo = mant << shift;
    *hi = ((mant + 1) << shift) - 1;
}

void hist_record(struct hist *h, uint64_t v)
{
    h->buckets[hist_index(v)]++;
    h->count++;
    h->sum = h->sum + v < h->sum ? UINT64_MAX : h->sum + v;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
    if (src->count == 0)
        return;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
    dst->count += src->count;
    dst->sum = dst->sum + src->sum < dst->sum ? UINT64_MAX : dst->sum + src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
    if (h->count == 0 || !(p > 0))
        return 0;
    if (p > 100)
        p = 100;
    /* the epsilon keeps 99.9 % of 1000 at rank 999 despite 99.9 / 100 > 0.999 */
    uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)h->count - 1e-9);
    if (rank < 1)
        rank = 1;
    if (rank > h->count)
        rank = h->count;
    uint64_t seen = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        seen += h->buckets[i];
        if (seen >= rank) {
            uint64_t lo, hi;
            hist_bucket_range(i, &lo, &hi);
            if (hi > h->max)
                hi = h->max;
            return hi < h->min ? h->min : hi;
        }
    }
    return h->max;
}

double hist_mean(const struct hist *h)
{
    return h->count ? (double)h->sum / (double)h->count : 0.0;
}

/* Log-bucketed histograms: bucket bounds, precision, percentiles, merging. */
#include <stdlib.h>

#include "harness.h"
#include "hist.h"

static struct hist *new_hist(void)
{
    struct hist *h = malloc(sizeof *h);
    hist_reset(h);
    return h;
}

static void test_small_values_exact(void)
{
    for (uint64_t v = 0; v < 128; v++) {
        uint64_t lo, hi;
        CHECK_INT(hist_index(v), v);
        hist_bucket_range(hist_index(v), &lo, &hi);
        CHECK_INT(lo, v);
        CHECK_INT(hi, v);
    }
}

static void test_buckets_contiguous_and_tight(void)
{
    uint64_t prev_hi = 127;
    for (unsigned i = 128; i < HIST_BUCKETS; i++) {
        uint64_t lo, hi;
        hist_bucket_range(i, &lo, &hi);
        if (!CHECK_INT(lo, prev_hi + 1))
            return;
        CHECK(hi >= lo);
        /* width at most 1/64 of the bucket's lowest value */
        CHECK((hi - lo + 1) * 64 <= lo);
        CHECK_INT(hist_index(lo), i);
        CHECK_INT(hist_index(hi), i);
        prev_hi = hi;
    }
    CHECK_INT(prev_hi, HIST_MAX_VALUE);
    /* beyond the range: the last bucket */
    CHECK_INT(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_percentiles(void)
{
    struct hist *h = new_hist();
    CHECK_INT(hist_percentile(h, 50), 0);
    for (uint64_t v = 1; v <= 1000; v++)
        hist_record(h, v * 1000); /* 1 ms .. 1 s */
    CHECK_INT(h->count, 1000);
    CHECK_INT(h->min, 1000);
    CHECK_INT(h->max, 1000000);
    uint64_t p50 = hist_percentile(h, 50), p99 = hist_percentile(h, 99);
    uint64_t p999 = hist_percentile(h, 99.9), p100 = hist_percentile(h, 100);
    /* the true values are 500000, 990000, 999000, 1000000: within 1/64 above */
    CHECK(p50 >= 500000 && p50 <= 500000 + 500000 / 64);
    CHECK(p99 >= 990000 && p99 <= 990000 + 990000 / 64);
    CHECK(p999 >= 999000 && p999 <= 1000000);
    CHECK_INT(p100, 1000000); /* never above the recorded max */
    CHECK(hist_mean(h) > 500499 && hist_mean(h) < 500501);
    free(h);
}

static void test_one_outlier_shows_in_tail_only(void)
{
    struct hist *h = new_hist();
    for (int i = 0; i < 999; i++)
        hist_record(h, 100);
    hist_record(h, 5000000);
    CHECK_INT(hist_percentile(h, 50), 100);
    CHECK_INT(hist_percentile(h, 99), 100);
    CHECK_INT(hist_percentile(h, 99.9), 100);
    CHECK_INT(hist_percentile(h, 99.95), 5000000); /* rank 1000 */
    CHECK_INT(hist_percentile(h, 100), 5000000);
    free(h);
}

static void test_merge(void)
{
    struct hist *a = new_hist(), *b = new_hist(), *all = new_hist();
    for (uint64_t v = 1; v <= 2000; v++) {
        hist_record(v % 2 ? a : b, v * 37);
        hist_record(all, v * 37);
    }
    hist_merge(a, b);
    CHECK_INT(a->count, all->count);
    CHECK_INT(a->min, all->min);
    CHECK_INT(a->max, all->max);
    CHECK_INT(a->sum, all->sum);
    for (double p = 1; p <= 100; p += 7.5)
        CHECK_INT(hist_percentile(a, p), hist_percentile(all, p));
    struct hist *empty = new_hist();
    hist_merge(a, empty);
    CHECK_INT(a->count, all->count);
    free(a);
    free(b);
    free(all);
    free(empty);
}

static void test_huge_values_clamp(void)
{
    struct hist *h = new_hist();
    hist_record(h, UINT64_MAX);
    hist_record(h, UINT64_MAX);
    CHECK_INT(h->count, 2);
    CHECK(h->sum == UINT64_MAX); /* saturates */
    CHECK(hist_percentile(h, 50) == UINT64_MAX);
    free(h);
}

int main(void)
{
    RUN(test_small_values_exact);
    RUN(test_buckets_contiguous_and_tight);
    RUN(test_percentiles);
    RUN(test_one_outlier_shows_in_tail_only);
    RUN(test_merge);
    RUN(test_huge_values_clamp);
    return harness_report();
}

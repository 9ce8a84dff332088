/* stats.c: summary statistics, the outlier rule, and genuine zeros. */
#include <math.h>

#include "harness.h"
#include "stats.h"

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static void test_basic(void)
{
    const double v[] = {4, 1, 3, 2};
    struct stats st;
    CHECK_INT(stats_summarize(v, 4, 1, &st), 0);
    CHECK_INT(st.n, 4);
    CHECK_INT(st.dropped, 0); /* 4 samples: no trimming */
    CHECK(near(st.mean, 2.5));
    CHECK(near(st.median, 2.5));
    CHECK(near(st.min, 1));
    CHECK(near(st.max, 4));
    /* sample stddev of 1..4: sqrt(5/3) */
    CHECK(near(st.stddev, sqrt(5.0 / 3.0)));
    CHECK(near(st.p95, 4));
}

static void test_zeros_are_values(void)
{
    /* upstream dropped zeros as "missing"; a genuine 0 must count */
    const double v[] = {0, 0, 6};
    struct stats st;
    CHECK_INT(stats_summarize(v, 3, 1, &st), 0);
    CHECK_INT(st.n, 3);
    CHECK(near(st.mean, 2));
    CHECK(near(st.median, 0));
    CHECK(near(st.min, 0));
}

static void test_outliers_only_above_five(void)
{
    const double five[] = {10, 10, 10, 10, 100};
    const double six[] = {1, 10, 10, 10, 10, 100};
    struct stats st;
    CHECK_INT(stats_summarize(five, 5, 1, &st), 0);
    CHECK_INT(st.dropped, 0);
    CHECK(near(st.mean, 28));
    CHECK_INT(stats_summarize(six, 6, 1, &st), 0);
    CHECK_INT(st.dropped, 2);
    CHECK_INT(st.n, 4);
    CHECK(near(st.mean, 10));
    CHECK(near(st.min, 10));
    CHECK(near(st.max, 10));
    CHECK(near(st.stddev, 0));
    /* without trimming, everything counts */
    CHECK_INT(stats_summarize(six, 6, 0, &st), 0);
    CHECK_INT(st.n, 6);
    CHECK(near(st.min, 1));
    CHECK(near(st.max, 100));
}

static void test_single_and_empty(void)
{
    const double one[] = {7};
    struct stats st;
    CHECK_INT(stats_summarize(one, 1, 1, &st), 0);
    CHECK(near(st.mean, 7));
    CHECK(near(st.stddev, 0));
    CHECK(near(st.p95, 7));
    CHECK_INT(stats_summarize(one, 0, 1, &st), -1);
    CHECK_INT(st.n, 0);
}

static void test_p95_nearest_rank(void)
{
    double v[20];
    for (int i = 0; i < 20; i++)
        v[i] = 20 - i; /* 20..1, unsorted on purpose */
    struct stats st;
    CHECK_INT(stats_summarize(v, 20, 0, &st), 0);
    CHECK(near(st.p95, 19)); /* ceil(0.95 * 20) = 19th value */
    CHECK(near(st.median, 10.5));
    CHECK(near(v[0], 20)); /* the caller's order is untouched */
}

int main(void)
{
    RUN(test_basic);
    RUN(test_zeros_are_values);
    RUN(test_outliers_only_above_five);
    RUN(test_single_and_empty);
    RUN(test_p95_nearest_rank);
    return harness_report();
}

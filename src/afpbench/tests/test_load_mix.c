/* load_mix.c: the weighted draw of the next operation (writers only touch),
 * and what a finished request counts: always in the session's results, in
 * the loop's tallies only when it ended inside the window. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "load_session.h"

static void test_pick_follows_weights(void)
{
    struct load_config cfg = {.writers = 2};
    cfg.weights[LOAD_READ] = 3;
    cfg.weights[LOAD_STAT] = 1;
    struct load_run run = {.cfg = &cfg, .wtotal = 4};
    unsigned seen[LOAD_NUM_OPS] = {0};
    uint64_t rng = 12345;
    for (int i = 0; i < 4000; i++)
        seen[load_pick_op(&run, 2, &rng)]++;
    CHECK(seen[LOAD_READ] > 2700 && seen[LOAD_READ] < 3300);
    CHECK_INT(seen[LOAD_READ] + seen[LOAD_STAT], 4000);
    /* a writer session only touches */
    CHECK_INT(load_pick_op(&run, 1, &rng), LOAD_TOUCH);
}

static void test_count_inside_the_window(void)
{
    static struct load_loop loop;
    static struct hist per_second[10];
    struct load_config cfg = {0};
    struct load_run run = {.cfg = &cfg, .nsec = 10};
    atomic_store(&run.t0, 1000000);
    atomic_store(&run.t1, 3000000);
    memset(&loop, 0, sizeof loop);
    loop.run = &run;
    loop.tally.sec_hist = per_second;
    for (int k = 0; k < 10; k++)
        hist_reset(&per_second[k]);
    hist_reset(&loop.tally.lat);
    hist_reset(&loop.tally.lat_raw);
    struct load_sess_result res = {0};
    /* before the window: the session counts it, the tallies do not */
    struct load_done d = {LOAD_READ, 999999, 900000, 900000, 4096, 3, 0, 0};
    load_count_done(&loop, &res, &d);
    CHECK_INT(res.requests_all, 1);
    CHECK_INT(res.requests, 0);
    CHECK_INT(loop.tally.requests, 0);
    /* inside, one second in, failed: latency from the intended start */
    d = (struct load_done){LOAD_STAT, 2000000, 1900000, 1500000, 100, 2, 1, 0};
    load_count_done(&loop, &res, &d);
    CHECK_INT(res.requests, 1);
    CHECK_INT(res.afp_errors, 1);
    CHECK_INT(loop.tally.requests, 1);
    CHECK_INT(loop.tally.afp_ops, 2);
    CHECK_INT(loop.tally.op_requests[LOAD_STAT], 1);
    CHECK_INT(loop.tally.sec_req[1], 1);
    CHECK_INT(per_second[1].count, 1);
    CHECK_INT(loop.tally.lat.max, 500000);
    CHECK_INT(loop.tally.lat_raw.max, 100000);
    /* at the window's end: outside */
    d.now = 3000000;
    d.err = 0;
    d.valid = 1;
    load_count_done(&loop, &res, &d);
    CHECK_INT(res.requests_all, 3);
    CHECK_INT(res.validation, 1);
    CHECK_INT(loop.tally.requests, 1);
}

static void test_names(void)
{
    char name[64];
    load_scratch_name(name, sizeof name, 2, 7, 'c', 12);
    CHECK_STR(name, "t2s7c12");
    CHECK_STR(load_op_name(LOAD_TOUCH), "touch");
    CHECK_STR(load_op_name(LOAD_NUM_OPS), "?");
    CHECK_STR(load_state_name(LS_DROPPED), "dropped");
    /* every touch of a session a new date, sessions apart */
    CHECK(load_touch_date(0, 1) == load_touch_date(0, 0) + 1);
    CHECK(load_touch_date(1, 0) != load_touch_date(0, 0));
}

int main(void)
{
    RUN(test_pick_follows_weights);
    RUN(test_count_inside_the_window);
    RUN(test_names);
    return harness_report();
}

/* What afpbench load's sessions make their requests of, and count them by:
 * the mix's operations (their names, the weighted draw of the next one),
 * the names of the scratch files and the dates of touches, the names of a
 * session's end states, and what a finished request adds to the counts
 * (see load_session.h). The sessions (load_session.c) drive the requests
 * over the wire; this keeps no state of its own and calls nothing of theirs. */
#include <stdatomic.h>
#include <stdio.h>

#include "afp.h"
#include "load_session.h"

/* The dates a touch sets: 2020-01-01 on, one second later each time, apart
 * between sessions, so that every touch changes the file's date. */
#define TOUCH_DATE0 ((int32_t)(1577836800 - AFP_DATE_DELTA))
#define TOUCH_DATES_PER_SESSION 1000000u

static const char *const op_names[LOAD_NUM_OPS] = {"read",  "stat",   "enumerate", "create",
                                                   "write", "delete", "touch"};
const char *load_op_name(enum load_op op)
{
    return op < LOAD_NUM_OPS ? op_names[op] : "?";
}

const char *load_state_name(enum load_sess_state s)
{
    static const char *const names[] = {"ok",      "login_failed", "dropped",
                                        "timeout", "protocol",     "stopped"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

void load_scratch_name(char *buf, size_t len, unsigned step, unsigned idx, char kind, uint64_t n)
{
    snprintf(buf, len, "t%us%u%c%llu", step, idx, kind, (unsigned long long)n);
}

int32_t load_touch_date(unsigned idx, uint32_t n)
{
    return TOUCH_DATE0 + (int32_t)(idx * TOUCH_DATES_PER_SESSION + n % TOUCH_DATES_PER_SESSION);
}

uint64_t load_rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

enum load_op load_pick_op(const struct load_run *run, unsigned idx, uint64_t *rng)
{
    if (idx < run->cfg->writers)
        return LOAD_TOUCH;
    uint64_t r = load_rng_next(rng) % run->wtotal;
    for (int op = 0; op < LOAD_NUM_OPS; op++) {
        if (r < run->cfg->weights[op])
            return (enum load_op)op;
        r -= run->cfg->weights[op];
    }
    return LOAD_READ;
}

void load_count_done(struct load_loop *loop, struct load_sess_result *res,
                     const struct load_done *d)
{
    struct load_tally *t = &loop->tally;
    const struct load_run *run = loop->run;
    uint64_t t0 = atomic_load(&run->t0), t1 = atomic_load(&run->t1);
    res->requests_all++;
    if (d->err)
        res->afp_errors++;
    if (d->valid)
        res->validation++;
    if (d->now < t0 || d->now >= t1)
        return;
    uint64_t lat = d->now - d->t_intended, raw = d->now - d->t_start;
    res->requests++;
    res->bytes += d->bytes;
    t->requests++;
    t->afp_ops += d->afp;
    t->bytes += d->bytes;
    t->op_requests[d->op]++;
    hist_record(&t->lat, lat);
    hist_record(&t->lat_raw, raw);
    hist_record(&t->op_lat[d->op], lat);
    uint64_t sec = (d->now - t0) / 1000000;
    if (sec < run->nsec) {
        t->sec_req[sec]++;
        hist_record(&t->sec_hist[sec], lat);
    }
}

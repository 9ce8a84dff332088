/* suite.c: the head/base driver with fake hooks, no server. The hooks write
 * what they are called for into a log ("open:head ..."), and a scripted
 * side fails where the test says. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "harness.h"
#include "results.h"
#include "suite.h"

struct fake {
    char log[1024];
    int open_fails[2];   /* exit code of a side's open; 0 = it opens */
    unsigned pairs;      /* pairs the run hook runs */
    unsigned fail_pair;  /* the pair in which ... */
    int fail_side;       /* ... this side (-1: none) fails */
    int fail_code;       /* ... with this code */
    int fail_soft;       /* the failure is recorded, the run goes on */
    int base_soft_code;  /* the base records this failure in pair 0 and goes on */
    int run_fails_base;  /* the run hook fails the base outside a pair with this code */
    int stop_fails_head; /* the stop hook fails the head with this code */
    int warmup;          /* the run hook starts with one suite_each */
    int state[2];
    char argv_seen[2][128]; /* each side's results' argv, joined, at report time */
};

static void say(struct fake *f, const char *what, const struct suite_side *sd)
{
    size_t n = strlen(f->log);
    snprintf(f->log + n, sizeof f->log - n, "%s%s%s%s", n ? " " : "", what, sd ? ":" : "",
             sd ? sd->name : "");
}

static void fake_init(struct suite *s, struct suite_side *sd)
{
    struct fake *f = s->arg;
    sd->state = &f->state[sd->index];
    say(f, "init", sd);
}

static int fake_open(struct suite *s, struct suite_side *sd)
{
    struct fake *f = s->arg;
    say(f, "open", sd);
    int code = f->open_fails[sd->index];
    if (code != 0)
        results_fail(&sd->res, code, "%s cannot open", sd->name);
    return code;
}

struct step {
    struct fake *f;
    unsigned pair;
};

/* "h1" / "b2": the side's initial and its order. */
static int fake_step(struct suite_side *sd, unsigned order, void *arg)
{
    struct step *st = arg;
    char what[16];
    snprintf(what, sizeof what, "%c%u", sd->name[0], order);
    say(st->f, what, NULL);
    if (sd->index == SUITE_BASE && st->pair == 0 && st->f->base_soft_code != 0)
        results_fail(&sd->res, st->f->base_soft_code, "base soft failure");
    if (sd->index == st->f->fail_side && st->pair == st->f->fail_pair) {
        results_fail(&sd->res, st->f->fail_code, "%s step failed", sd->name);
        return st->f->fail_soft ? 0 : st->f->fail_code;
    }
    return 0;
}

static int fake_run(struct suite *s)
{
    struct fake *f = s->arg;
    say(f, "run", NULL);
    struct step st = {f, (unsigned)-1};
    if (f->run_fails_base != 0) {
        results_fail(&s->side[SUITE_BASE].res, f->run_fails_base, "base set-up failed");
        return f->run_fails_base;
    }
    int rc = f->warmup ? suite_each(s, fake_step, &st) : 0;
    for (unsigned p = 0; p < f->pairs && rc == 0; p++) {
        st.pair = p;
        rc = suite_pair(s, p, fake_step, &st);
    }
    return rc;
}

static void fake_stop(struct suite *s, struct suite_side *sd)
{
    struct fake *f = s->arg;
    say(f, "stop", sd);
    if (sd->index == SUITE_HEAD && f->stop_fails_head != 0)
        results_fail(&sd->res, f->stop_fails_head, "head stop failed");
}

static void fake_close(struct suite *s, struct suite_side *sd)
{
    say(s->arg, "close", sd);
    results_finish(&sd->res);
}

static void fake_finish(struct suite *s)
{
    say(s->arg, "finish", NULL);
}

static void fake_report(struct suite *s)
{
    struct fake *f = s->arg;
    say(f, "report", NULL);
    for (int k = 0; k < s->nsides; k++) {
        char *out = f->argv_seen[k];
        size_t n = 0;
        for (char **a = s->side[k].res.argv; a != NULL && *a != NULL; a++)
            n += (size_t)snprintf(out + n, sizeof f->argv_seen[k] - n, "%s%s", n ? " " : "", *a);
    }
}

static void fake_free(struct suite *s, struct suite_side *sd)
{
    say(s->arg, "free", sd);
}

static const struct suite_ops fake_ops = {
    .suite = "fake",
    .version = "fake/1",
    .init = fake_init,
    .open = fake_open,
    .run = fake_run,
    .stop = fake_stop,
    .close = fake_close,
    .finish = fake_finish,
    .report = fake_report,
    .free = fake_free,
    .cpu = SUITE_CPU_SHARE_OPS,
};

/* Runs a fake suite with one side or two; its log is in f->log. The head's
 * error is copied into head_error before the results are freed. */
static int run_fake(struct fake *f, int ab, char *head_error, size_t len)
{
    struct cli_common common;
    memset(&common, 0, sizeof common);
    common.conn.host = "head.example";
    common.base.host = "base.example";
    common.have_base = ab;
    struct suite s;
    suite_init(&s, &fake_ops, f, &common, 0, NULL);
    int code = suite_run(&s);
    snprintf(head_error, len, "%s", s.side[SUITE_HEAD].res.error);
    return code;
}

static void fake_reset(struct fake *f)
{
    memset(f, 0, sizeof *f);
    f->fail_side = -1;
}

static void test_sides_and_labels(void)
{
    struct cli_common common;
    memset(&common, 0, sizeof common);
    struct fake f;
    fake_reset(&f);
    struct suite s;
    suite_init(&s, &fake_ops, &f, &common, 0, NULL);
    CHECK_INT(s.nsides, 1);
    CHECK_STR(s.side[SUITE_HEAD].label, "");
    CHECK_STR(s.side[SUITE_HEAD].suffix, "");
    CHECK(s.side[SUITE_HEAD].conn == &common.conn);
    common.have_base = 1;
    suite_init(&s, &fake_ops, &f, &common, 0, NULL);
    CHECK_INT(s.nsides, 2);
    CHECK_STR(s.side[SUITE_HEAD].label, "[head] ");
    CHECK_STR(s.side[SUITE_BASE].label, "[base] ");
    CHECK_STR(s.side[SUITE_BASE].suffix, "b");
    CHECK_STR(s.side[SUITE_BASE].name, "base");
    CHECK(s.side[SUITE_BASE].conn == &common.base);
}

/* ABBA: the head first in even pairs, the base first in odd ones; warm-ups
 * unpaired, head first, order 0. */
static void test_alternation(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 4;
    f.warmup = 1;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), 0);
    CHECK(strstr(f.log, "run h0 b0 h1 b2 b1 h2 h1 b2 b1 h2 stop:head") != NULL);
    /* one side alone: always order 0 */
    fake_reset(&f);
    f.pairs = 3;
    CHECK_INT(run_fake(&f, 0, err, sizeof err), 0);
    CHECK(strstr(f.log, "run h0 h0 h0 stop:head") != NULL);
}

/* The whole sequence of a good A/B run, and its exit code. */
static void test_order_of_hooks(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 1;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), 0);
    CHECK_STR(f.log, "init:head init:base open:head open:base run h1 b2 stop:head stop:base "
                     "close:head close:base finish report free:head free:base");
    CHECK_STR(err, "");
}

/* A base that fails mid-run stops it, and the head's results say why with
 * the failing step's code; every side is still closed and freed. */
static void test_base_failure_blames_head(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 4;
    f.fail_side = SUITE_BASE;
    f.fail_pair = 1;
    f.fail_code = EXIT_FORK;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), EXIT_FORK);
    CHECK_STR(err, "base server: base step failed");
    CHECK(strstr(f.log, "run h1 b2 b1 stop:head") != NULL); /* stopped at pair 1's base */
    CHECK(strstr(f.log, "close:head close:base") != NULL);
    CHECK(strstr(f.log, "free:head free:base") != NULL);
}

/* A base that cannot open: the run does not start, the head's results say
 * why with the base's code. */
static void test_base_open_failure(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 2;
    f.open_fails[SUITE_BASE] = EXIT_LOGIN;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), EXIT_LOGIN);
    CHECK_STR(err, "base server: base cannot open");
    CHECK(strstr(f.log, "run") == NULL);
    CHECK(strstr(f.log, "close:head close:base") != NULL);
    /* said before the stop hooks run: a head failing there comes second */
    fake_reset(&f);
    f.open_fails[SUITE_BASE] = EXIT_LOGIN;
    f.stop_fails_head = EXIT_NETWORK;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), EXIT_LOGIN);
    CHECK_STR(err, "base server: base cannot open");
}

/* A head that cannot open: the base is not opened, yet every side is
 * closed and freed; the head's own failure is the exit code. */
static void test_head_open_failure(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 2;
    f.open_fails[SUITE_HEAD] = EXIT_NETWORK;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), EXIT_NETWORK);
    CHECK_STR(err, "head cannot open");
    CHECK(strstr(f.log, "open:base") == NULL);
    CHECK(strstr(f.log, "run") == NULL);
    CHECK(strstr(f.log, "stop:head stop:base close:head close:base") != NULL);
    CHECK(strstr(f.log, "free:head free:base") != NULL);
}

/* The head's failure wins over the base's; the head's failure mid-run is
 * its own (no "base server"). */
static void test_head_failure_first(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 3;
    f.fail_side = SUITE_HEAD;
    f.fail_pair = 1;
    f.fail_code = EXIT_VALIDATION;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), EXIT_VALIDATION);
    CHECK_STR(err, "head step failed");
    CHECK(strstr(f.log, "run h1 b2 b1 h2 stop:head") != NULL); /* base first in pair 1 */
}

/* A base whose results failed without stopping the run: its code is the
 * exit code, and the head's results stay clean. */
static void test_base_code_when_head_clean(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 3;
    f.fail_side = SUITE_BASE;
    f.fail_pair = 0;
    f.fail_code = EXIT_VALIDATION;
    f.fail_soft = 1;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), EXIT_VALIDATION);
    CHECK_STR(err, "");
    CHECK(strstr(f.log, "run h1 b2 b1 h2 h1 b2 stop:head") != NULL);
}

/* Three pairs, the base's results failed softly first, then `side` stops
 * pair `pair` with `code`: the run's exit code and the head's error. */
static void check_stopped_pair(int side, unsigned pair, int code, int want_code,
                               const char *want_err)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.pairs = 3;
    f.base_soft_code = EXIT_VALIDATION;
    f.fail_side = side;
    f.fail_pair = pair;
    f.fail_code = code;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), want_code);
    CHECK_STR(err, want_err);
}

/* Both sides failed: the head's code is the exit code. */
static void test_head_code_wins(void)
{
    check_stopped_pair(SUITE_HEAD, 1, EXIT_FORK, EXIT_FORK, "head step failed");
}

/* A base that stops a pair is blamed with the code it stopped with, not an
 * earlier failure of its results that did not stop the run. */
static void test_blame_with_the_stopping_code(void)
{
    check_stopped_pair(SUITE_BASE, 2, EXIT_NETWORK, EXIT_NETWORK, "base server: base soft failure");
}

/* The base failing outside a pair (a suite's own set-up step) still
 * stops the run in the head's results. */
static void test_blame_after_run(void)
{
    struct fake f;
    char err[512];
    fake_reset(&f);
    f.run_fails_base = EXIT_FILEDIR;
    CHECK_INT(run_fake(&f, 1, err, sizeof err), EXIT_FILEDIR);
    CHECK_STR(err, "base server: base set-up failed");
}

/* The command line both sides' results keep: the head's -w password masked
 * in the base's too, although the base logs in with its own. */
static void test_password_masked_on_both_sides(void)
{
    char a0[] = "lantest", a1[] = "-wsecret", a2[] = "--base-host", a3[] = "b";
    char *argv[] = {a0, a1, a2, a3, NULL};
    struct cli_common common;
    memset(&common, 0, sizeof common);
    common.conn.host = "head.example";
    common.conn.password = a1 + 2;
    common.base.host = "b";
    common.base.password = "basepass"; /* $BASE_AFP_PASS */
    common.have_base = 1;
    struct fake f;
    fake_reset(&f);
    struct suite s;
    suite_init(&s, &fake_ops, &f, &common, 4, argv);
    CHECK_INT(suite_run(&s), 0);
    CHECK_STR(f.argv_seen[SUITE_HEAD], "afpbench lantest -w*** --base-host b");
    CHECK_STR(f.argv_seen[SUITE_BASE], "afpbench lantest -w*** --base-host b");
}

static void print_name(const struct suite_side *sd, FILE *out)
{
    fprintf(out, "<%s>\n", sd->name);
}

/* The human report's headers: none alone; in A/B each side under its own,
 * the base only when it measured something. */
static void test_report_human(void)
{
    struct cli_common common;
    memset(&common, 0, sizeof common);
    common.conn.host = "h.example";
    common.conn.port = 548;
    common.base.host = "b.example";
    common.base.port = 10548;
    struct fake f;
    fake_reset(&f);
    struct suite s;
    char *buf = NULL;
    size_t len = 0;
    suite_init(&s, &fake_ops, &f, &common, 0, NULL);
    FILE *out = open_memstream(&buf, &len);
    suite_report_human(&s, print_name, out);
    fclose(out);
    CHECK_STR(buf, "<head>\n");
    free(buf);
    common.have_base = 1;
    suite_init(&s, &fake_ops, &f, &common, 0, NULL);
    out = open_memstream(&buf, &len);
    suite_report_human(&s, print_name, out);
    s.side[SUITE_BASE].res.ntests = 1;
    suite_report_human(&s, print_name, out);
    fclose(out);
    CHECK_STR(buf, "Head: h.example port 548\n<head>\n"
                   "Head: h.example port 548\n<head>\n"
                   "\nBase: b.example port 10548 (measured interleaved with the head)\n<base>\n");
    free(buf);
}

int main(void)
{
    RUN(test_sides_and_labels);
    RUN(test_alternation);
    RUN(test_order_of_hooks);
    RUN(test_base_failure_blames_head);
    RUN(test_base_open_failure);
    RUN(test_head_open_failure);
    RUN(test_head_failure_first);
    RUN(test_base_code_when_head_clean);
    RUN(test_head_code_wins);
    RUN(test_blame_with_the_stopping_code);
    RUN(test_blame_after_run);
    RUN(test_password_masked_on_both_sides);
    RUN(test_report_human);
    return harness_report();
}

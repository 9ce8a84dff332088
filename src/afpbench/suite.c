/* The head/base driver of the suites (suite.h). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "suite.h"

void suite_init(struct suite *s, const struct suite_ops *ops, void *arg,
                const struct cli_common *common, int argc, char **argv)
{
    static const char *const labels[2] = {"[head] ", "[base] "};
    static const char *const suffixes[2] = {"", "b"};
    static const char *const names[2] = {"head", "base"};

    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->arg = arg;
    s->nsides = common->have_base ? 2 : 1;
    s->json_path = common->json_path;
    s->argc = argc;
    s->argv = argv;
    s->secret = common->conn.password;
    s->cpu = common->cpu;
    for (int k = 0; k < 2; k++) {
        struct suite_side *sd = &s->side[k];
        sd->index = k;
        sd->label = s->nsides == 2 ? labels[k] : "";
        sd->suffix = suffixes[k];
        sd->name = names[k];
        sd->conn = k == SUITE_HEAD ? &common->conn : &common->base;
    }
    signal(SIGPIPE, SIG_IGN);
    cli_conn_apply_bounds(&common->conn);
}

/* The head's results say why the run stopped when the base stopped it
 * (unless the head failed first). */
static void blame_base(struct suite *s, int exit_code)
{
    struct results *head = &s->side[SUITE_HEAD].res;
    if (!head->failed)
        results_fail(head, exit_code, "base server: %s", s->side[SUITE_BASE].res.error);
}

/* Which side runs k-th (0 or 1) in pair number `pair`: the one place that
 * decides the alternation. With two sides the first place flips from pair
 * to pair (head-base, base-head, ...), so neither side always runs first
 * and load and drift hit both alike. */
static int side_at(int nsides, unsigned pair, int k)
{
    return nsides == 2 && pair % 2 == 1 ? 1 - k : k;
}

static int run_sides(struct suite *s, unsigned pair, int paired, suite_step_fn fn, void *arg)
{
    for (int k = 0; k < s->nsides; k++) {
        struct suite_side *sd = &s->side[side_at(s->nsides, paired ? pair : 0, k)];
        int rc = fn(sd, paired && s->nsides == 2 ? (unsigned)k + 1 : 0, arg);
        if (rc != 0) {
            if (sd->index == SUITE_BASE)
                blame_base(s, rc);
            return rc;
        }
    }
    return 0;
}

int suite_pair(struct suite *s, unsigned pair, suite_step_fn fn, void *arg)
{
    return run_sides(s, pair, 1, fn, arg);
}

int suite_each(struct suite *s, suite_step_fn fn, void *arg)
{
    return run_sides(s, 0, 0, fn, arg);
}

static int open_side(struct suite *s, struct suite_side *sd)
{
    sd->opened = 1;
    return s->ops->open(s, sd);
}

/* The head first; the base only when the head opened: a run that cannot
 * start gains nothing from a session with the base. A base that cannot
 * open stops the run, said in the head's results at once (before a stop
 * hook can fail the head for its own reason). */
static int open_sides(struct suite *s)
{
    int rc = open_side(s, &s->side[SUITE_HEAD]);
    if (rc != 0 || s->nsides < 2)
        return rc;
    struct suite_side *base = &s->side[SUITE_BASE];
    rc = open_side(s, base);
    if (rc != 0)
        blame_base(s, base->res.exit_code);
    return rc;
}

/* A/B: one process drove both sides, so its CPU time is both sides'. */
static void share_cpu(struct suite *s)
{
    if (s->nsides < 2)
        return;
    struct results *head = &s->side[SUITE_HEAD].res, *base = &s->side[SUITE_BASE].res;
    if (s->ops->cpu == SUITE_CPU_SHARE_OPS) {
        results_share_cpu(head, base);
    } else {
        base->cpu_user_us = head->cpu_user_us;
        base->cpu_sys_us = head->cpu_sys_us;
    }
}

void suite_report_human(const struct suite *s,
                        void (*print)(const struct suite_side *sd, FILE *out), FILE *out)
{
    const struct suite_side *head = &s->side[SUITE_HEAD], *base = &s->side[SUITE_BASE];
    if (s->nsides < 2) {
        print(head, out);
        return;
    }
    fprintf(out, "Head: %s port %u\n", head->conn->host, head->conn->port);
    print(head, out);
    if (base->res.ntests > 0) {
        fprintf(out, "\nBase: %s port %u (measured interleaved with the head)\n", base->conn->host,
                base->conn->port);
        print(base, out);
    }
}

/* The head's failure first, else the base's. */
static int exit_code(const struct suite *s)
{
    for (int k = 0; k < s->nsides; k++)
        if (s->side[k].res.failed)
            return s->side[k].res.exit_code;
    return 0;
}

/* After the run: every side stopped, then every side closed (a side that
 * never opened too, so that its results are finished like the others).
 * A run the base stopped outside suite_pair (a suite's own set-up step)
 * is said in the head's results with the base's code. */
static void close_sides(struct suite *s, int rc)
{
    if (s->ops->stop != NULL)
        for (int k = 0; k < s->nsides; k++)
            s->ops->stop(s, &s->side[k]);
    if (rc != 0 && s->nsides == 2)
        blame_base(s, s->side[SUITE_BASE].res.exit_code);
    for (int k = 0; k < s->nsides; k++)
        s->ops->close(s, &s->side[k]);
}

/* The head's JSON (the base's embedded), then the report. */
static void save_and_report(struct suite *s)
{
    struct results *head = &s->side[SUITE_HEAD].res;
    if (s->nsides == 2)
        head->base = &s->side[SUITE_BASE].res;
    if (s->ops->finish != NULL)
        s->ops->finish(s);
    results_save(head, s->json_path);
    s->ops->report(s);
    fflush(stdout);
}

/* Every side's results started, then the suite's own state. */
static void init_sides(struct suite *s)
{
    for (int k = 0; k < s->nsides; k++) {
        struct results *res = &s->side[k].res;
        results_init(res, s->ops->suite, s->ops->version);
        res->argv = cli_redacted_argv(s->argc, s->argv, s->secret);
        s->ops->init(s, &s->side[k]);
    }
}

static void free_sides(struct suite *s)
{
    for (int k = 0; k < s->nsides; k++) {
        s->ops->free(s, &s->side[k]);
        cli_free_argv(s->side[k].res.argv);
        results_free(&s->side[k].res);
    }
}

/* --cpu: once every side is open (its afpd and cnid_dbd found), the run
 * and those processes on one CPU (pin.h); said in each side's results. */
static void pin_sides(struct suite *s)
{
    if (s->cpu == PIN_OFF)
        return;
    const struct iomon *ios[2];
    for (int k = 0; k < s->nsides; k++)
        ios[k] = s->side[k].res.io;
    char note[sizeof s->side[0].res.cpu_note];
    int cpu = pin_run(&s->pin, s->cpu, ios, s->nsides, note, sizeof note);
    for (int k = 0; k < s->nsides; k++) {
        struct results *r = &s->side[k].res;
        r->cpu_asked = s->cpu;
        r->cpu_pinned = cpu;
        snprintf(r->cpu_note, sizeof r->cpu_note, "%s", note);
    }
    if (cpu >= 0)
        fprintf(stderr, "On CPU %d: afpbench and %s afpd and cnid_dbd\n", cpu,
                s->nsides == 2 ? "both servers'" : "the server's");
    else
        fprintf(stderr, "afpbench: warning: not on one CPU: %s\n", note);
}

int suite_run(struct suite *s)
{
    init_sides(s);
    int rc = open_sides(s);
    if (rc == 0) {
        pin_sides(s);
        rc = s->ops->run(s);
        pin_release(&s->pin);
    }
    close_sides(s, rc);
    share_cpu(s);
    save_and_report(s);
    int code = exit_code(s);
    free_sides(s);
    return code;
}

int suite_main(const struct suite_command *cmd, void *arg, void *opts, int argc, char **argv)
{
    unsigned char *head = opts, *base = head + cmd->opts_size;
    int rc = cmd->parse(argc, argv, head);
    if (rc != 0)
        return rc;
    if (cmd->instead != NULL && (rc = cmd->instead(arg)) >= 0)
        return rc;
    struct cli_common *common = (struct cli_common *)(void *)head;
    struct suite s;
    suite_init(&s, cmd->ops, arg, common, argc, argv);
    /* A/B: the base side is the same run with the base's connection. */
    memcpy(base, head, cmd->opts_size);
    ((struct cli_common *)(void *)base)->conn = common->base;
    if (cmd->prepare != NULL)
        cmd->prepare(arg);
    rc = suite_run(&s);
    if (cmd->end != NULL)
        cmd->end(arg);
    return rc;
}

/* The head/base driver every suite (lantest, speedtest, load) runs through:
 * one side, or two in A/B (the head and the base server, measured
 * interleaved). It owns the sides and their results, the order they open
 * in, the alternation of a pair (ABBA), a base failure said in the head's
 * results, the teardown, the client CPU of both, the head's JSON (the base
 * embedded) and the exit code. The suite's work goes through its hooks. */
#ifndef AFPBENCH_SUITE_H
#define AFPBENCH_SUITE_H

#include <stdio.h>

#include "cli.h"
#include "pin.h"
#include "results.h"

enum { SUITE_HEAD, SUITE_BASE };

struct suite_side {
    int index;          /* SUITE_HEAD or SUITE_BASE */
    const char *label;  /* progress prefix: "" alone, "[head] " / "[base] " in A/B */
    const char *suffix; /* for its names on the volume: "" / "b" (A/A shares one volume) */
    const char *name;   /* "head" / "base" */
    const struct cli_conn *conn;
    struct results res;
    int opened;  /* its open hook ran */
    void *state; /* the suite's own state of this side, set by its init hook */
};

struct suite;

/* How one process's client CPU is split between the sides of an A/B run. */
enum suite_cpu_rule {
    SUITE_CPU_SHARE_OPS, /* results_share_cpu: the time over both sides' AFP ops */
    SUITE_CPU_TIME_ONLY, /* the time only; each side keeps its own AFP ops */
};

/* A suite's hooks; stop and finish may be NULL. */
struct suite_ops {
    const char *suite, *version; /* for every side's results (results_init) */
    /* Every side, first, its results started: its state and what its
     * results say of the run (no IO, no output). */
    void (*init)(struct suite *s, struct suite_side *sd);
    /* Connect and set up; 0 or the exit code (recorded in sd->res). */
    int (*open)(struct suite *s, struct suite_side *sd);
    /* The measurements, when every side opened; 0 or an exit code. */
    int (*run)(struct suite *s);
    /* Every side after the run, before any side closes. */
    void (*stop)(struct suite *s, struct suite_side *sd);
    /* Every side, opened or not: log out, results_finish. */
    void (*close)(struct suite *s, struct suite_side *sd);
    /* After the CPU is shared, before the head's JSON is saved. */
    void (*finish)(struct suite *s);
    /* stdout, after the JSON is saved. */
    void (*report)(struct suite *s);
    /* The suite's own state; the driver frees the results after. */
    void (*free)(struct suite *s, struct suite_side *sd);
    enum suite_cpu_rule cpu;
};

struct suite {
    const struct suite_ops *ops;
    void *arg; /* the suite's own state, for its hooks */
    int nsides;
    struct suite_side side[2];
    const char *json_path;
    int argc;
    char **argv;          /* the command line, for the results (redacted) */
    const char *secret;   /* the -w password inside argv, or NULL */
    int cpu;              /* --cpu (pin.h): PIN_OFF, PIN_AUTO or a CPU */
    struct pin_state pin; /* the server processes it moved */
};

/* The sides of a run from its options (two with a base) and its command
 * line (argv[0] = the subcommand), which both sides' results keep with the
 * head's -w password masked: the one password a command line can hold (the
 * base's comes from $BASE_AFP_PASS or is the head's). Also ignores
 * SIGPIPE (a server that goes away gives an error, not a kill) and starts
 * the run's bounds (--deadline, --timeout, SIGTERM). */
void suite_init(struct suite *s, const struct suite_ops *ops, void *arg,
                const struct cli_common *common, int argc, char **argv);
/* The whole run through the hooks; returns the exit code: the head's
 * failure, else the base's, else 0. */
int suite_run(struct suite *s);

/* One step on each side, fn(side, order, arg) with order its place in the
 * pair (1 or 2; 0 with one side).
 * suite_pair: pair number `pair` (0-based) of a series, in that pair's
 * order: the head first in even pairs, the base first in odd ones (ABBA).
 * suite_each: unpaired, the head first, order 0 (warm-ups).
 * Both stop at the first failure and return its code; a base's failure is
 * said in the head's results ("base server: ..."). */
/* The human report: one side's as print writes it; in A/B the head's under
 * "Head: HOST port N", then the base's, when it measured anything, under
 * "Base: HOST port N (measured interleaved with the head)". */
void suite_report_human(const struct suite *s,
                        void (*print)(const struct suite_side *sd, FILE *out), FILE *out);

typedef int (*suite_step_fn)(struct suite_side *sd, unsigned order, void *arg);
int suite_pair(struct suite *s, unsigned pair, suite_step_fn fn, void *arg);
int suite_each(struct suite *s, suite_step_fn fn, void *arg);

/* A suite's command (its *_main, through suite_main): what comes before
 * and after the driver. Every suite's options start with their struct
 * cli_common; the base's options follow the head's (opts_size apart). */
struct suite_command {
    const struct suite_ops *ops;
    size_t opts_size;
    /* The command line into the head's options (the option layer, cli.h);
     * 0 or the exit code. */
    int (*parse)(int argc, char **argv, void *opts);
    /* What the options ask for instead of a run (a --list): its exit
     * code, or -1 to run. NULL: always a run. */
    int (*instead)(void *arg);
    /* Before the run, the base's options made: what the suite derives from
     * them (NULL: nothing). */
    void (*prepare)(void *arg);
    /* After the run, its JSON written and reported (NULL: nothing). */
    void (*end)(void *arg);
};

/* The suites' one entry: parse into opts (the head's, then the base's the
 * same but for the base's connection), then the whole run through the
 * driver with arg as the suite's state. Returns the exit code. */
int suite_main(const struct suite_command *cmd, void *arg, void *opts, int argc, char **argv);

#endif

/* Command lines. The option layer (cli.c) owns what every suite takes: the
 * connection (smoke's too), the run's bounds, the A/B base and --json, and
 * the getopt loop; each suite adds its own flags through a struct
 * cli_command (cli_lantest.c, cli_speedtest.c, cli_load.c). The flags are
 * afp_lantest's and afp_speedtest's; the value parsers are separate
 * functions so the unit tests can reach them. */
#ifndef AFPBENCH_CLI_H
#define AFPBENCH_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct option; /* <getopt.h> */

/* The lantest tests are the entries of lantest_defs (lantest_tests.c),
 * numbered 1..lantest_num_tests; a selection is a bitmask of them. */
#define LANTEST_MAX_TESTS 32
extern const int lantest_num_tests;
#define SPEEDTEST_MAX_SIZES 32
#define SPEEDTEST_MAX_SIZE_MIB 4096 /* a size of -d / -z */

/* Where and how to log in. The password comes from -w or $AFP_PASS and is
 * never printed. */
struct cli_conn {
    const char *host;
    uint16_t port;
    const char *user;
    const char *password;
    const char *volume;
    const char *volume2;     /* speedtest -S: second volume, or NULL */
    const char *afp_version; /* "AFP3.4", ... */
    /* A procfs showing the server's processes, for IO monitoring:
     * --proc-root, else $PROC_IO, else /proc_io. */
    const char *proc_root;
    /* --deadline SECONDS: the whole run's bound (0 = none); --timeout
     * SECONDS: one request's (0 = DSI_DEFAULT_TIMEOUT_MS). See deadline.h. */
    unsigned deadline_s;
    unsigned timeout_s;
    /* Count the server's system calls (sysmon.h): --syscalls on|off, else
     * off when AFPBENCH_SYSCALLS=off (to measure what counting costs). The
     * gate passes the flag and never the variable. */
    int syscalls;
};

/* What every suite's command line sets through the option layer: the
 * server (head), in A/B the base server (--base-*), and --json. */
struct cli_common {
    struct cli_conn conn;
    struct cli_conn base; /* A/B: the base server, when have_base */
    int have_base;
    const char *json_path;
    /* -n, 1..CLI_MAX_ITERATIONS, for the commands that take it
     * (cli_command.iterations: their default) */
    unsigned iterations;
    /* --cpu N|auto|off: the run on one CPU, server processes too (pin.h);
     * PIN_OFF (the default), PIN_AUTO or a CPU number */
    int cpu;
};
#define CLI_MAX_ITERATIONS 1000

enum { LANTEST_BY_COMMAND_AFTER = 1, LANTEST_BY_COMMAND_ONLY = 2 };

struct lantest_opts {
    struct cli_common common; /* first: the suites' main (suite.h) reads it there */
    uint32_t tests;           /* bit (n - 1) set: test n selected */
    int csv;
    int verbose;              /* -v 1, -V or -b 2 */
    uint64_t bigfile_bytes;   /* tests 2/3 */
    const char *bigfile_name; /* -F: existing file in the volume root */
    const char *server_log;   /* --server-log: afpd's log, for dircache statistics */
    const char *instr_dir;    /* --instr-dir: the instrumented server's count files */
    /* --base-instr-dir: the base's, when both sides are instrumented (A/B) */
    const char *base_instr_dir;
    /* --by-command: after the timed iterations, one untimed pass of each
     * test charging the server's calls to the AFP commands (attribution.h);
     * --by-command-only: that pass alone, no timed iterations */
    int by_command; /* 0, LANTEST_BY_COMMAND_AFTER or LANTEST_BY_COMMAND_ONLY */
    /* --trace NAME[@N]: no timed iterations; the Nth request of AFP command
     * trace_code (and the one after it) traced with strace (and gdb, at
     * the calls in --trace-calls) into --trace-dir (tracer.h) */
    int trace_code; /* 0: no tracing */
    unsigned long long trace_nth;
    const char *trace_calls;
    const char *trace_dir;
    /* --list: print the catalogue of the tests (with --json FILE, as JSON
     * into FILE, "-" standard output) and run nothing */
    int list;
};

enum speedtest_op { SPEED_READ, SPEED_WRITE, SPEED_COPY, SPEED_SERVERCOPY, SPEED_NUM_OPS };

struct speedtest_opts {
    struct cli_common common; /* first, as in every suite's options */
    unsigned warmup;
    unsigned ops; /* bit per enum speedtest_op */
    uint64_t sizes[SPEEDTEST_MAX_SIZES];
    size_t num_sizes;
    int sweep;             /* more than one size, or the default sweep */
    uint32_t quantum;      /* -q in bytes; 0 = the server's */
    unsigned window;       /* -r outstanding requests */
    int new_file_each_run; /* -y */
    int sparse;            /* -e */
    int no_flush;          /* -a */
    unsigned delay_s;      /* -t */
    int stats;             /* -T, or implied */
    int csv;
    int local;              /* -L / -P */
    const char *local_path; /* -P */
    int no_direct;          /* -D */
    const char *file_name;  /* -F */
    int verbose;
    int list_sizes; /* --list-sizes: print the sizes a run would take, no server */
};

/* afpbench load (load.c): the session-count sweep and the request mix. */
#define LOAD_MAX_STEPS 16
#define LOAD_MAX_SESSIONS 1024
#define CLI_LOAD_OPS 7 /* enum load_op (load_session.h) */
struct load_opts {
    struct cli_common common;          /* first, as in every suite's options */
    unsigned sessions[LOAD_MAX_STEPS]; /* -N */
    size_t nsteps;
    double duration_s; /* -T */
    double warmup_s;   /* --warmup (default 1, 0 with --cold) */
    double rate;       /* --rate requests/s over all sessions; 0 = closed loop */
    unsigned weights[CLI_LOAD_OPS];
    unsigned writers;     /* --writers: sessions that only touch testbed files */
    unsigned dirs, files; /* testbed: --dirs, --files (per directory) */
    uint64_t max_size;    /* --max-size MiB, in bytes */
    unsigned threads;     /* --threads (default: the online CPUs) */
    unsigned long long seed;
    int cold;       /* --cold: drop the server host's page cache before each step */
    int verify_all; /* --verify-all: check every byte read, not the first 4 KiB of each reply */
    int csv;
};
int cli_parse_load(int argc, char **argv, struct load_opts *o);

/* afpbench spotlight (spotlight.c): a search by name over FPSpotlightRPC. */
#define SPOTLIGHT_MAX_FILES 100000
#define SPOTLIGHT_MAX_QUERIES 1000
struct spotlight_opts {
    struct cli_common common; /* first, as in every suite's options */
    unsigned files;           /* --files: the files each search finds, made first */
    unsigned queries;         /* --queries: searches per iteration */
    int csv;
};
int cli_parse_spotlight(int argc, char **argv, struct spotlight_opts *o);

/* afpbench bigdir (bigdir.c): one directory of many entries, listed and
 * each entry statted, per size. */
#define BIGDIR_MAX_SIZES 4
#define BIGDIR_MAX_ENTRIES 200000
struct bigdir_opts {
    struct cli_common common;         /* first, as in every suite's options */
    unsigned sizes[BIGDIR_MAX_SIZES]; /* --entries */
    size_t nsizes;
    int csv;
};
int cli_parse_bigdir(int argc, char **argv, struct bigdir_opts *o);
/* "1,4,16,64": session counts 1..LOAD_MAX_SESSIONS. Returns the count or -1. */
int cli_parse_sessions(const char *s, unsigned *out, size_t max, char *err, size_t errlen);
/* "read:8,stat:1,enumerate": operation weights (a name alone weighs 1). */
int cli_parse_mix(const char *s, unsigned *weights, char *err, size_t errlen);

/* The connection settings of the environment, the project's convention
 * (what `scripts/local-server start` prints): AFP_HOST, AFP_USER, AFP_PASS and
 * SHARE_NAME as they are (NULL when unset), proc_root from PROC_IO (unset or
 * empty: /proc_io); port 548, AFP 3.4, no second volume. AFP_PORT is read by
 * cli_parse, which ignores a bad one (548, or -p). */
void cli_conn_from_env(struct cli_conn *c);

/* One option of a command's getopt loop, if it is a connection option:
 * -h HOST, -p PORT, -s VOLUME, -S VOLUME2, -u USER, -w PASSWORD, -1 .. -7 (AFP
 * 2.1 .. 3.4), --proc-root DIR, --deadline, --timeout and --syscalls. A command leaves out of its
 * option string what it does not take. Returns 1 when opt was one of them, 0 when not, -1 for a bad
 * port (after printing "afpbench CMD: bad port ..."). */
int cli_conn_option(struct cli_conn *c, int opt, const char *arg, const char *cmd);

/* One suite's command line, for cli_parse: what it adds to the options
 * every suite takes. */
struct cli_command {
    const char *name;              /* "lantest": messages say "afpbench lantest: ..." */
    const char *shortopts;         /* its own short options and AFP version flags */
    const struct option *longopts; /* its own, values from CLI_OPT_OWN; NULL-ended or NULL */
    /* One of its own options: 0, CLI_NOT_MINE, or the exit status after
     * printing why. ctx is cli_parse's. */
    int (*option)(void *ctx, int opt, const char *arg);
    void (*usage)(FILE *out);
    /* It may run with no argument at all when $AFP_HOST names the server
     * (smoke); the suites print their usage then. */
    int environment_only;
    /* -n's default; 0: the command takes no -n. The option layer parses
     * it (1..CLI_MAX_ITERATIONS) into cli_common.iterations. */
    unsigned iterations;
};
#define CLI_OPT_OWN 320
#define CLI_NOT_MINE (-1)

/* The A/B options' lines in every suite's usage. */
#define CLI_BASE_USAGE                                                                             \
    "  --base-host HOST  A/B: also measure this base server, interleaved with the\n"               \
    "               head (-h) test by test in alternating order; the JSON holds both\n"            \
    "               sides and their pairing. Password: $BASE_AFP_PASS, else the head's\n"          \
    "  --base-port PORT, --base-user USER, --base-volume VOLUME, --base-proc-root DIR\n"           \
    "               the base's settings (default: port 548, the rest as the head's)\n"

/* Parse argv (argv[0] = the subcommand) for cmd into common (which the
 * caller zeroed) and, through cmd->option, ctx: first the connection from
 * the environment (cli_conn_from_env, then localhost and a good $AFP_PORT),
 * then every option. No arguments (unless cmd->environment_only and
 * $AFP_HOST is set), an unknown option or a stray argument
 * print why (and usage) and return EXIT_USAGE; a bad value returns its exit
 * status; else 0. The command then settles its own options and calls
 * cli_common_finish. */
int cli_parse(const struct cli_command *cmd, int argc, char **argv, struct cli_common *common,
              void *ctx);

/* A user (default: the current one), a password and a volume for the head,
 * and the base completed from the head (--base-* without --base-host is an
 * error). Returns 0 or EXIT_USAGE after printing why. */
int cli_common_finish(struct cli_common *c, const char *cmd);

/* Start the run's bounds: --deadline from now, --timeout for every request,
 * and SIGTERM/SIGINT/SIGHUP turned into a stop that keeps the results. */
void cli_conn_apply_bounds(const struct cli_conn *c);

/* Parse argv (argv[0] = subcommand name). Returns 0 on success; otherwise
 * prints the reason (and usage) to stderr and returns the exit status. */
int cli_parse_lantest(int argc, char **argv, struct lantest_opts *o);
int cli_parse_speedtest(int argc, char **argv, struct speedtest_opts *o);

/* "134" (one digit per test, as afp_lantest), or "1,10,12" / "2-5,9"
 * (numbers and ranges; any comma or dash selects this form). Sets bit n-1
 * for test n in *mask. Returns 0, or -1 with a message in err. */
int cli_parse_test_list(const char *s, uint32_t *mask, char *err, size_t errlen);

/* Add tests that the selected ones depend on (3 needs 2 unless a -F file is
 * used; 6 and 7 need 5). Returns the bits that were added. */
uint32_t cli_add_test_dependencies(uint32_t *mask, int have_bigfile);

/* Comma-separated sizes in MiB (decimals allowed, e.g. 0.00390625 = 4 KiB),
 * each 1 byte .. 4 GiB. Returns the count, or -1 with a message in err. */
int cli_parse_sizes(const char *s, uint64_t *sizes, size_t max, char *err, size_t errlen);

/* "Read,Write,Copy,ServerCopy" (case-insensitive) into op bits. */
int cli_parse_ops(const char *s, unsigned *ops, char *err, size_t errlen);

/* Decimal integer in [min, max]. Returns 0 or -1. */
int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out);

/* Copy argv, prefixed with "afpbench", with the password (the -w value that
 * `secret` points into) replaced by "***", for the JSON results. Returns a
 * NULL-terminated array the caller frees with cli_free_argv, or NULL. */
char **cli_redacted_argv(int argc, char **argv, const char *secret);
void cli_free_argv(char **argv);

const char *speedtest_op_name(enum speedtest_op op);

/* suite_main (suite.h) finds a suite's struct cli_common at the start of
 * its options. */
_Static_assert(offsetof(struct lantest_opts, common) == 0, "common first");
_Static_assert(offsetof(struct speedtest_opts, common) == 0, "common first");
_Static_assert(offsetof(struct load_opts, common) == 0, "common first");
_Static_assert(offsetof(struct spotlight_opts, common) == 0, "common first");
_Static_assert(offsetof(struct bigdir_opts, common) == 0, "common first");

#endif

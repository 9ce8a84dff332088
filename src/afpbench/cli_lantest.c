/* afpbench lantest's command line: afp_lantest's flags, its test list, and
 * the instrumented servers' directories; the connection, --base-*, --json
 * and the bounds come from the option layer (cli.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "afp.h"
#include "cli.h"
#include "commands.h"
#include "lantest.h"

enum {
    OPT_SERVER_LOG = CLI_OPT_OWN,
    OPT_INSTR_DIR,
    OPT_BASE_INSTR_DIR,
    OPT_BY_COMMAND,
    OPT_BY_COMMAND_ONLY,
    OPT_TRACE,
    OPT_TRACE_CALLS,
    OPT_TRACE_DIR,
    OPT_LIST,
};

/* One test number or range "a-b" (a token of the comma form). */
static int add_test_token(const char *tok, size_t len, uint32_t *mask, char *err, size_t errlen)
{
    char buf[16];
    if (len == 0 || len >= sizeof buf) {
        snprintf(err, errlen, "empty or overlong entry in the test list");
        return -1;
    }
    memcpy(buf, tok, len);
    buf[len] = '\0';

    char *dash = strchr(buf, '-');
    unsigned long long lo, hi;
    if (dash != NULL) {
        *dash = '\0';
        if (cli_parse_uint(buf, 1, (unsigned)lantest_num_tests, &lo) != 0 ||
            cli_parse_uint(dash + 1, 1, (unsigned)lantest_num_tests, &hi) != 0 || lo > hi) {
            snprintf(err, errlen, "bad test range '%.*s' (tests are 1-%d)", (int)len, tok,
                     lantest_num_tests);
            return -1;
        }
    } else {
        if (cli_parse_uint(buf, 1, (unsigned)lantest_num_tests, &lo) != 0) {
            snprintf(err, errlen, "no test '%s' (tests are 1-%d)", buf, lantest_num_tests);
            return -1;
        }
        hi = lo;
    }
    for (unsigned long long t = lo; t <= hi; t++)
        *mask |= 1u << (t - 1);
    return 0;
}

int cli_parse_test_list(const char *s, uint32_t *mask, char *err, size_t errlen)
{
    *mask = 0;
    if (s == NULL || *s == '\0') {
        snprintf(err, errlen, "empty test list");
        return -1;
    }
    if (strpbrk(s, ",-") == NULL) {
        /* afp_lantest's form: every digit is one test, 1-9. */
        for (const char *p = s; *p; p++) {
            if (*p < '1' || *p > '9') {
                snprintf(err, errlen,
                         "bad test '%c' in '%s' (digits 1-9; use commas above 9, e.g. 1,10,12)", *p,
                         s);
                return -1;
            }
            *mask |= 1u << (*p - '1');
        }
        return 0;
    }
    const char *tok = s;
    for (;;) {
        const char *comma = strchr(tok, ',');
        size_t len = comma ? (size_t)(comma - tok) : strlen(tok);
        /* A trailing comma ("12,") is allowed: it selects the comma form. */
        if (!(len == 0 && comma == NULL && tok != s) &&
            add_test_token(tok, len, mask, err, errlen) != 0)
            return -1;
        if (comma == NULL)
            break;
        tok = comma + 1;
    }
    return 0;
}

uint32_t cli_add_test_dependencies(uint32_t *mask, int have_bigfile)
{
    uint32_t before = *mask;
    if ((*mask & (1u << 2)) && !have_bigfile)
        *mask |= 1u << 1; /* 3 reads the file 2 wrote */
    if (*mask & ((1u << 5) | (1u << 6)))
        *mask |= 1u << 4; /* 6 enumerates and 7 deletes the files 5 creates */
    return *mask & ~before;
}

void lantest_usage(FILE *out)
{
    fprintf(out,
            "usage: afpbench lantest [-34567bcGgKVv] [-h host] [-p port] [-s volume] [-u user]\n"
            "                        [-w password] [-n iterations] [-f tests] [-F bigfile]\n"
            "                        [--json FILE] [--proc-root DIR] [--server-log FILE]\n"
            "                        [--instr-dir DIR] [--by-command[-only]] [--trace NAME[@N]]\n"
            "       afpbench lantest --list [--json FILE|-]\n"
            "  -h HOST      server (default localhost, or $AFP_HOST)\n"
            "  -p PORT      port (default 548, or $AFP_PORT)\n"
            "  -s VOLUME    volume (or $SHARE_NAME)\n"
            "  -u USER      user (default $AFP_USER, else the current user)\n"
            "  -w PASSWORD  cleartext password, at most 8 characters (or $AFP_PASS)\n"
            "  -3 .. -7     AFP 3.0 .. 3.4 (default -7)\n"
            "  -n N         iterations, 1-1000 (default 2); more than 5 drops min and max\n"
            "  -f TESTS     tests to run: digits (\"134\") or a list (\"1,10,12\", \"2-5\")\n"
            "  -K           directory-cache tests only (the group cache of --list)\n"
            "  -g / -G      big file for tests 2/3 is 1 GiB / 10 GiB (default 100 MiB)\n"
            "  -F FILE      test 3 reads this existing file in the volume root\n"
            "  -c           CSV on stdout (progress stays on stderr)\n"
            "  -v / -V, -b  verbose / very verbose (debug)\n"
            "  --json FILE  write every raw sample and the run's metadata\n"
            "  --proc-root DIR  procfs for IO monitoring (default $PROC_IO, else /proc_io)\n"
            "  --server-log FILE  afpd's log, for its dircache statistics (default: the\n"
            "               'log file' of the server's afp.conf, both read through our\n"
            "               afpd's PROC_ROOT/PID/root)\n"
            "  --deadline SECONDS  bound on the whole run: then stop, keep what was\n"
            "               measured, exit 5 (default: none)\n"
            "  --timeout SECONDS   bound on each request, whatever the server sends\n"
            "               meanwhile (default 30)\n"
            "  --syscalls on|off  count the server's system calls (default on, or\n"
            "               $AFPBENCH_SYSCALLS)\n"
            "  --cpu N|auto|off  run on one CPU with the server processes measured\n"
            "               (each side's afpd and cnid_dbd; auto: the last CPU this\n"
            "               process may use; needs root or CAP_SYS_NICE; default off)\n"
            "  --instr-dir DIR  count afpd's instructions: the instrumented server's\n"
            "               directory (local-server's INSTR_DIR); each test iteration\n"
            "               then runs in its own session (needs IO monitoring)\n"
            "  --base-instr-dir DIR  A/B: the base's instrumented server's directory\n"
            "               (both sides are then counted; needs --instr-dir)\n"
            "  --list       the tests: number, group, the AFP commands each one's timed\n"
            "               part sends, name; with --json, as JSON (FILE, or - for standard\n"
            "               output: scripts/lantest-tests.json); runs nothing\n"
            "  --by-command after the timed iterations, run each test once more,\n"
            "               untimed, and charge the server's system calls to the AFP\n"
            "               command that made them (needs system call counting)\n"
            "  --by-command-only  that pass alone, no timed iterations (what the\n"
            "               gate's attribution runs once the verdict shows a count moved)\n"
            "  --trace NAME[@N]  diagnose instead of measuring: run each test once,\n"
            "               untimed, tracing request N (default 1) of AFP command NAME\n"
            "               with strace, and the one after it with gdb at the calls\n"
            "               of --trace-calls LIST; files in --trace-dir DIR (default .)\n"
            "               as SIDE-lantest.TEST.strace and .gdb\n" CLI_BASE_USAGE);
}

/* lantest's options, and what they leave to settle once all are read. */
struct lantest_parse {
    struct lantest_opts *o;
    int g, big_g, only_cache; /* -g, -G, -K */
    const char *test_list;    /* -f */
};

/* A directory option's value: not empty. */
static int dir_option(const char **out, const char *arg, const char *flag)
{
    if (*arg == '\0') {
        fprintf(stderr, "afpbench lantest: %s needs a directory\n", flag);
        return EXIT_USAGE;
    }
    *out = arg;
    return 0;
}

/* --trace NAME[@N]: an AFP command by its name, and which of its requests. */
static int trace_option(struct lantest_opts *o, const char *arg)
{
    char name[40];
    const char *at = strchr(arg, '@');
    size_t n = at != NULL ? (size_t)(at - arg) : strlen(arg);
    if (n == 0 || n >= sizeof name) {
        fprintf(stderr,
                "afpbench lantest: --trace needs an AFP command, e.g. FPGetFileDirParms@10\n");
        return EXIT_USAGE;
    }
    memcpy(name, arg, n);
    name[n] = '\0';
    int code = afp_command_code(name);
    if (code <= 0) {
        fprintf(stderr,
                "afpbench lantest: --trace: no AFP command '%s' (names as FPGetFileDirParms)\n",
                name);
        return EXIT_USAGE;
    }
    o->trace_code = code;
    o->trace_nth = 1;
    if (at != NULL && cli_parse_uint(at + 1, 1, 1000000, &o->trace_nth) != 0) {
        fprintf(stderr, "afpbench lantest: --trace: bad request number '%s' (1-1000000)\n", at + 1);
        return EXIT_USAGE;
    }
    return 0;
}

static int lantest_option(void *ctx, int opt, const char *arg)
{
    struct lantest_parse *p = ctx;
    struct lantest_opts *o = p->o;
    switch (opt) {
    case 'b':
    case 'V':
        o->verbose = 2;
        return 0;
    case 'v':
        if (o->verbose < 1)
            o->verbose = 1;
        return 0;
    case 'c':
        o->csv = 1;
        return 0;
    case 'g':
        p->g = 1;
        return 0;
    case 'G':
        p->big_g = 1;
        return 0;
    case 'K':
        p->only_cache = 1;
        return 0;
    case 'F':
        o->bigfile_name = arg;
        return 0;
    case 'f':
        p->test_list = arg;
        return 0;
    case OPT_SERVER_LOG:
        o->server_log = arg;
        return 0;
    case OPT_INSTR_DIR:
        return dir_option(&o->instr_dir, arg, "--instr-dir");
    case OPT_BASE_INSTR_DIR:
        return dir_option(&o->base_instr_dir, arg, "--base-instr-dir");
    case OPT_BY_COMMAND:
        o->by_command = o->by_command ? o->by_command : LANTEST_BY_COMMAND_AFTER;
        return 0;
    case OPT_BY_COMMAND_ONLY:
        o->by_command = LANTEST_BY_COMMAND_ONLY;
        return 0;
    case OPT_TRACE:
        return trace_option(o, arg);
    case OPT_TRACE_CALLS:
        if (strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_,") != strlen(arg) || *arg == '\0') {
            fprintf(stderr, "afpbench lantest: --trace-calls takes system call names, e.g. "
                            "lstat,newfstatat\n");
            return EXIT_USAGE;
        }
        o->trace_calls = arg;
        return 0;
    case OPT_TRACE_DIR:
        return dir_option(&o->trace_dir, arg, "--trace-dir");
    case OPT_LIST:
        o->list = 1;
        return 0;
    default:
        return CLI_NOT_MINE;
    }
}

/* The big file's size and the tests: -g/-G, -K or -f, and what the
 * selected tests need. */
static int settle_tests(const struct lantest_parse *p)
{
    struct lantest_opts *o = p->o;
    char err[160];
    if (p->g)
        o->bigfile_bytes *= 10;
    if (p->big_g)
        o->bigfile_bytes *= 100;
    o->tests = lantest_num_tests >= 32 ? UINT32_MAX : (1u << lantest_num_tests) - 1;
    if (p->only_cache) { /* -K: the catalogue's cache group */
        o->tests = 0;
        for (int t = 0; t < lantest_num_tests; t++)
            if (strcmp(lantest_defs[t].group, "cache") == 0)
                o->tests |= 1u << t;
    }
    if (p->test_list != NULL &&
        cli_parse_test_list(p->test_list, &o->tests, err, sizeof err) != 0) {
        fprintf(stderr, "afpbench lantest: -f: %s\n", err);
        return EXIT_USAGE;
    }
    uint32_t added = cli_add_test_dependencies(&o->tests, o->bigfile_name != NULL);
    for (int t = 0; t < lantest_num_tests; t++)
        if (added & (1u << t))
            fprintf(stderr, "afpbench lantest: also running test %d (a selected test needs it)\n",
                    t + 1);
    return 0;
}

/* Instructions in A/B: each side its own instrumented server and
 * directory, both or neither (one side under valgrind is no pair). */
static int check_instr_dirs(const struct lantest_opts *o)
{
    if (o->common.have_base && (o->instr_dir != NULL) != (o->base_instr_dir != NULL)) {
        fprintf(stderr, "afpbench lantest: in A/B give --instr-dir and --base-instr-dir "
                        "together (each side's instrumented server), or neither\n");
        return EXIT_USAGE;
    }
    if (!o->common.have_base && o->base_instr_dir != NULL) {
        fprintf(stderr, "afpbench lantest: --base-instr-dir needs --base-host\n");
        return EXIT_USAGE;
    }
    return 0;
}

static const struct option lantest_longopts[] = {
    {"server-log", required_argument, NULL, OPT_SERVER_LOG},
    {"instr-dir", required_argument, NULL, OPT_INSTR_DIR},
    {"base-instr-dir", required_argument, NULL, OPT_BASE_INSTR_DIR},
    {"by-command", no_argument, NULL, OPT_BY_COMMAND},
    {"by-command-only", no_argument, NULL, OPT_BY_COMMAND_ONLY},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"trace-calls", required_argument, NULL, OPT_TRACE_CALLS},
    {"trace-dir", required_argument, NULL, OPT_TRACE_DIR},
    {"list", no_argument, NULL, OPT_LIST},
    {NULL, 0, NULL, 0},
};

static const struct cli_command lantest_command = {
    .name = "lantest",
    .shortopts = "34567bcGgKVvF:f:",
    .longopts = lantest_longopts,
    .option = lantest_option,
    .usage = lantest_usage,
    .iterations = 2,
};

int cli_parse_lantest(int argc, char **argv, struct lantest_opts *o)
{
    struct lantest_parse p = {.o = o};
    memset(o, 0, sizeof *o);
    o->bigfile_bytes = 100ull * 1024 * 1024;
    int rc = cli_parse(&lantest_command, argc, argv, &o->common, &p);
    /* the catalogue needs no server */
    if (rc == 0 && o->list)
        return 0;
    if (rc == 0)
        rc = settle_tests(&p);
    if (rc == 0)
        rc = cli_common_finish(&o->common, "lantest");
    if (rc == 0)
        rc = check_instr_dirs(o);
    if (rc == 0 && o->trace_code != 0 && o->trace_dir == NULL)
        o->trace_dir = ".";
    if (rc == 0 && o->trace_code != 0 && o->instr_dir != NULL) {
        fprintf(stderr, "afpbench lantest: --trace and --instr-dir do not go together\n");
        rc = EXIT_USAGE;
    }
    return rc;
}

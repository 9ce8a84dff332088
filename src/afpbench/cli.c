/* Command-line parsing for the lantest and speedtest subcommands, and the
 * connection options all AFP subcommands share. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "afp.h"
#include "commands.h"
#include "deadline.h"
#include "dsi.h"
#include "load_session.h"

enum {
    OPT_JSON = 256,
    OPT_PROC_ROOT,
    OPT_SERVER_LOG,
    OPT_DEADLINE,
    OPT_TIMEOUT,
    OPT_BASE_HOST,
    OPT_BASE_PORT,
    OPT_BASE_USER,
    OPT_BASE_VOLUME,
    OPT_BASE_PROC_ROOT,
    OPT_WARMUP,
    OPT_RATE,
    OPT_MIX,
    OPT_DIRS,
    OPT_FILES,
    OPT_MAX_SIZE,
    OPT_THREADS,
    OPT_SEED,
    OPT_COLD,
    OPT_VERIFY_ALL,
    OPT_INSTR_DIR,
    OPT_BASE_INSTR_DIR,
};

/* The A/B options both suites take (getopt_long entries). */
#define BASE_LONGOPTS                                                                              \
    {"base-host", required_argument, NULL, OPT_BASE_HOST},                                         \
        {"base-port", required_argument, NULL, OPT_BASE_PORT},                                     \
        {"base-user", required_argument, NULL, OPT_BASE_USER},                                     \
        {"base-volume", required_argument, NULL, OPT_BASE_VOLUME},                                 \
    {                                                                                              \
        "base-proc-root", required_argument, NULL, OPT_BASE_PROC_ROOT                              \
    }

#define BASE_USAGE                                                                                 \
    "  --base-host HOST  A/B: also measure this base server, interleaved with the\n"               \
    "               head (-h) test by test in alternating order; the JSON holds both\n"            \
    "               sides and their pairing. Password: $BASE_AFP_PASS, else the head's\n"          \
    "  --base-port PORT, --base-user USER, --base-volume VOLUME, --base-proc-root DIR\n"           \
    "               the base's settings (default: port 548, the rest as the head's)\n"

static const char *const op_names[SPEED_NUM_OPS] = {"Read", "Write", "Copy", "ServerCopy"};

const char *speedtest_op_name(enum speedtest_op op)
{
    return op < SPEED_NUM_OPS ? op_names[op] : "?";
}

int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out)
{
    if (s == NULL || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

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
        if (cli_parse_uint(buf, 1, LANTEST_NUM_TESTS, &lo) != 0 ||
            cli_parse_uint(dash + 1, 1, LANTEST_NUM_TESTS, &hi) != 0 || lo > hi) {
            snprintf(err, errlen, "bad test range '%.*s' (tests are 1-%d)", (int)len, tok,
                     LANTEST_NUM_TESTS);
            return -1;
        }
    } else {
        if (cli_parse_uint(buf, 1, LANTEST_NUM_TESTS, &lo) != 0) {
            snprintf(err, errlen, "no test '%s' (tests are 1-%d)", buf, LANTEST_NUM_TESTS);
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
                         "bad test '%c' in '%s' (digits 1-9; use commas for 10-12, e.g. 1,10,12)",
                         *p, s);
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

int cli_parse_sizes(const char *s, uint64_t *sizes, size_t max, char *err, size_t errlen)
{
    size_t n = 0;
    const char *p = s;

    if (s == NULL || *s == '\0') {
        snprintf(err, errlen, "empty size list");
        return -1;
    }
    for (;;) {
        char *end;
        errno = 0;
        double mib = strtod(p, &end);
        uint64_t bytes = 0;
        if (end != p && errno == 0 && isfinite(mib) && mib > 0 && mib <= 4096.0)
            bytes = (uint64_t)llround(mib * 1048576.0);
        if (bytes == 0 || (*end != ',' && *end != '\0')) {
            snprintf(err, errlen, "bad size '%.*s' (MiB, e.g. 0.00390625 for 4 KiB; at most 4096)",
                     (int)strcspn(p, ","), p);
            return -1;
        }
        if (n == max) {
            snprintf(err, errlen, "too many sizes (at most %zu)", max);
            return -1;
        }
        sizes[n++] = bytes;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    return (int)n;
}

int cli_parse_ops(const char *s, unsigned *ops, char *err, size_t errlen)
{
    *ops = 0;
    const char *p = s;
    for (;;) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int op = 0; op < SPEED_NUM_OPS; op++) {
            if (strlen(op_names[op]) == len && strncasecmp(p, op_names[op], len) == 0) {
                *ops |= 1u << op;
                found = 1;
            }
        }
        if (!found) {
            snprintf(err, errlen, "unknown test '%.*s' (Read, Write, Copy, ServerCopy)", (int)len,
                     p);
            return -1;
        }
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

char **cli_redacted_argv(int argc, char **argv, const char *secret)
{
    char **out = calloc((size_t)argc + 2, sizeof *out);
    if (out == NULL)
        return NULL;
    out[0] = strdup("afpbench");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        size_t len = strlen(a);
        if (secret != NULL && secret >= a && secret <= a + len) {
            size_t keep = (size_t)(secret - a);
            out[i + 1] = malloc(keep + 4);
            if (out[i + 1] != NULL) {
                memcpy(out[i + 1], a, keep);
                memcpy(out[i + 1] + keep, "***", 4);
            }
        } else {
            out[i + 1] = strdup(a);
        }
    }
    for (int i = 0; i <= argc; i++) {
        if (out[i] == NULL) {
            cli_free_argv(out);
            return NULL;
        }
    }
    return out;
}

void cli_free_argv(char **argv)
{
    if (argv == NULL)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

void cli_conn_from_env(struct cli_conn *c)
{
    const char *env = getenv("PROC_IO");
    c->host = getenv("AFP_HOST");
    c->port = DSI_DEFAULT_PORT;
    c->user = getenv("AFP_USER");
    c->password = getenv("AFP_PASS");
    c->volume = getenv("SHARE_NAME");
    c->volume2 = NULL;
    c->afp_version = AFP_DEFAULT_VERSION;
    c->proc_root = env && *env ? env : "/proc_io";
    env = getenv("AFPBENCH_SYSCALLS");
    c->syscalls = !(env != NULL && strcmp(env, "off") == 0);
}

int cli_conn_option(struct cli_conn *c, int opt, const char *arg, const char *cmd)
{
    /* -1 .. -7: afp_speedtest's AFP version flags (afp_lantest has -3 .. -7). */
    static const char *const versions[] = {"AFPVersion 2.1", "AFP2.2", "AFPX03", "AFP3.1",
                                           "AFP3.2",         "AFP3.3", "AFP3.4"};
    unsigned long long v;
    switch (opt) {
    case 'h':
        c->host = arg;
        return 1;
    case 'p':
        if (cli_parse_uint(arg, 1, 65535, &v) != 0) {
            fprintf(stderr, "afpbench %s: bad port '%s' (1-65535)\n", cmd, arg);
            return -1;
        }
        c->port = (uint16_t)v;
        return 1;
    case 's':
        c->volume = arg;
        return 1;
    case 'S':
        c->volume2 = arg;
        return 1;
    case 'u':
        c->user = arg;
        return 1;
    case 'w':
        c->password = arg;
        return 1;
    case OPT_PROC_ROOT:
        c->proc_root = arg;
        return 1;
    case OPT_DEADLINE:
    case OPT_TIMEOUT:
        if (cli_parse_uint(arg, 1, DEADLINE_MAX_S, &v) != 0) {
            fprintf(stderr, "afpbench %s: bad %s '%s' (whole seconds, 1-%u)\n", cmd,
                    opt == OPT_DEADLINE ? "--deadline" : "--timeout", arg, DEADLINE_MAX_S);
            return -1;
        }
        if (opt == OPT_DEADLINE)
            c->deadline_s = (unsigned)v;
        else
            c->timeout_s = (unsigned)v;
        return 1;
    default:
        if (opt >= '1' && opt <= '7') {
            c->afp_version = versions[opt - '1'];
            return 1;
        }
        return 0;
    }
}

/* One A/B option (--base-*): 1 when opt was one, 0 when not, -1 for a bad
 * port (after printing why). */
static int base_option(struct cli_conn *b, int opt, const char *arg, const char *cmd)
{
    unsigned long long v;
    switch (opt) {
    case OPT_BASE_HOST:
        b->host = arg;
        return 1;
    case OPT_BASE_PORT:
        if (cli_parse_uint(arg, 1, 65535, &v) != 0) {
            fprintf(stderr, "afpbench %s: bad --base-port '%s' (1-65535)\n", cmd, arg);
            return -1;
        }
        b->port = (uint16_t)v;
        return 1;
    case OPT_BASE_USER:
        b->user = arg;
        return 1;
    case OPT_BASE_VOLUME:
        b->volume = arg;
        return 1;
    case OPT_BASE_PROC_ROOT:
        b->proc_root = arg;
        return 1;
    default:
        return 0;
    }
}

/* Complete the base's settings from the head's once both are parsed.
 * Returns 0 (no base, or a complete one) or EXIT_USAGE. */
static int base_finish(const struct cli_conn *head, struct cli_conn *b, int *have_base,
                       const char *cmd)
{
    int any = b->port != 0 || b->user != NULL || b->volume != NULL || b->proc_root != NULL;
    *have_base = b->host != NULL;
    if (!*have_base) {
        if (any) {
            fprintf(stderr, "afpbench %s: --base-* options need --base-host\n", cmd);
            return EXIT_USAGE;
        }
        return 0;
    }
    if (*b->host == '\0') {
        fprintf(stderr, "afpbench %s: --base-host is empty\n", cmd);
        return EXIT_USAGE;
    }
    if (b->port == 0)
        b->port = DSI_DEFAULT_PORT;
    if (b->user == NULL || *b->user == '\0')
        b->user = head->user;
    if (b->volume == NULL || *b->volume == '\0')
        b->volume = head->volume;
    if (b->proc_root == NULL || *b->proc_root == '\0')
        b->proc_root = head->proc_root;
    const char *pass = getenv("BASE_AFP_PASS");
    b->password = pass != NULL && *pass != '\0' ? pass : head->password;
    b->afp_version = head->afp_version;
    b->volume2 = NULL;
    b->syscalls = head->syscalls;
    if (strcmp(b->host, head->host) == 0 && b->port == head->port)
        fprintf(stderr,
                "afpbench %s: note: base and head are the same server (%s port %u): an A/A run\n",
                cmd, b->host, b->port);
    return 0;
}

void cli_conn_apply_bounds(const struct cli_conn *c)
{
    deadline_set_run(c->deadline_s);
    deadline_set_request_ms(c->timeout_s ? (int)(c->timeout_s * 1000) : 0);
    deadline_install_signals();
}

/* The suites' defaults: a host and a port even when the environment has
 * none (an empty or bad one counts as none). */
static void conn_defaults(struct cli_conn *c)
{
    cli_conn_from_env(c);
    if (c->host == NULL || *c->host == '\0')
        c->host = "localhost";
    const char *env = getenv("AFP_PORT");
    unsigned long long v;
    if (env != NULL && cli_parse_uint(env, 1, 65535, &v) == 0)
        c->port = (uint16_t)v;
}

static int conn_finish(struct cli_conn *c, const char *cmd)
{
    if (c->user == NULL || *c->user == '\0') {
        struct passwd *pw = getpwuid(geteuid());
        if (pw == NULL) {
            fprintf(stderr, "afpbench %s: no user name: give -u USER\n", cmd);
            return EXIT_USAGE;
        }
        c->user = pw->pw_name;
    }
    if (c->password == NULL || *c->password == '\0') {
        fprintf(stderr, "afpbench %s: no password: give -w PASSWORD or set AFP_PASS\n", cmd);
        return EXIT_USAGE;
    }
    if (c->volume == NULL || *c->volume == '\0') {
        fprintf(stderr, "afpbench %s: no volume: give -s VOLUME or set SHARE_NAME\n", cmd);
        return EXIT_USAGE;
    }
    return 0;
}

void lantest_usage(FILE *out)
{
    fprintf(out,
            "usage: afpbench lantest [-34567bcGgKVv] [-h host] [-p port] [-s volume] [-u user]\n"
            "                        [-w password] [-n iterations] [-f tests] [-F bigfile]\n"
            "                        [--json FILE] [--proc-root DIR] [--server-log FILE]\n"
            "                        [--instr-dir DIR]\n"
            "  -h HOST      server (default localhost, or $AFP_HOST)\n"
            "  -p PORT      port (default 548, or $AFP_PORT)\n"
            "  -s VOLUME    volume (or $SHARE_NAME)\n"
            "  -u USER      user (default $AFP_USER, else the current user)\n"
            "  -w PASSWORD  cleartext password, at most 8 characters (or $AFP_PASS)\n"
            "  -3 .. -7     AFP 3.0 .. 3.4 (default -7)\n"
            "  -n N         iterations, 1-1000 (default 2); more than 5 drops min and max\n"
            "  -f TESTS     tests to run: digits (\"134\") or a list (\"1,10,12\", \"2-5\")\n"
            "  -K           directory-cache tests only (9-12)\n"
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
            "  --instr-dir DIR  count afpd's instructions: the instrumented server's\n"
            "               directory (local-server's INSTR_DIR); each test iteration\n"
            "               then runs in its own session (needs IO monitoring)\n"
            "  --base-instr-dir DIR  A/B: the base's instrumented server's directory\n"
            "               (both sides are then counted; needs --instr-dir)\n" BASE_USAGE);
}

int cli_parse_lantest(int argc, char **argv, struct lantest_opts *o)
{
    static const struct option longopts[] = {
        {"json", required_argument, NULL, OPT_JSON},
        {"proc-root", required_argument, NULL, OPT_PROC_ROOT},
        {"server-log", required_argument, NULL, OPT_SERVER_LOG},
        {"deadline", required_argument, NULL, OPT_DEADLINE},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        BASE_LONGOPTS,
        {"instr-dir", required_argument, NULL, OPT_INSTR_DIR},
        {"base-instr-dir", required_argument, NULL, OPT_BASE_INSTR_DIR},
        {NULL, 0, NULL, 0},
    };
    char err[160];
    int g = 0, big_g = 0, only_cache = 0, rc;
    const char *test_list = NULL;

    memset(o, 0, sizeof *o);
    conn_defaults(&o->common.conn);
    o->iterations = 2;
    o->bigfile_bytes = 100ull * 1024 * 1024;

    if (argc < 2) {
        lantest_usage(stderr);
        return EXIT_USAGE;
    }
    optind = 1;
    opterr = 1;
    int c;
    while ((c = getopt_long(argc, argv, "34567bcGgKVvF:f:h:n:p:s:u:w:", longopts, NULL)) != -1) {
        int conn = cli_conn_option(&o->common.conn, c, optarg, "lantest");
        if (conn == 0)
            conn = base_option(&o->common.base, c, optarg, "lantest");
        if (conn < 0)
            return EXIT_USAGE;
        if (conn > 0)
            continue;
        unsigned long long v;
        switch (c) {
        case 'b':
        case 'V':
            o->verbose = 2;
            break;
        case 'v':
            if (o->verbose < 1)
                o->verbose = 1;
            break;
        case 'c':
            o->csv = 1;
            break;
        case 'g':
            g = 1;
            break;
        case 'G':
            big_g = 1;
            break;
        case 'K':
            only_cache = 1;
            break;
        case 'F':
            o->bigfile_name = optarg;
            break;
        case 'f':
            test_list = optarg;
            break;
        case 'n':
            if (cli_parse_uint(optarg, 1, 1000, &v) != 0) {
                fprintf(stderr, "afpbench lantest: bad iteration count '%s' (1-1000)\n", optarg);
                return EXIT_USAGE;
            }
            o->iterations = (unsigned)v;
            break;
        case OPT_JSON:
            o->common.json_path = optarg;
            break;
        case OPT_SERVER_LOG:
            o->server_log = optarg;
            break;
        case OPT_INSTR_DIR:
            if (*optarg == '\0') {
                fprintf(stderr, "afpbench lantest: --instr-dir needs a directory\n");
                return EXIT_USAGE;
            }
            o->instr_dir = optarg;
            break;
        case OPT_BASE_INSTR_DIR:
            if (*optarg == '\0') {
                fprintf(stderr, "afpbench lantest: --base-instr-dir needs a directory\n");
                return EXIT_USAGE;
            }
            o->base_instr_dir = optarg;
            break;
        default:
            lantest_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "afpbench lantest: unexpected argument '%s'\n", argv[optind]);
        return EXIT_USAGE;
    }
    if (g)
        o->bigfile_bytes *= 10;
    if (big_g)
        o->bigfile_bytes *= 100;

    o->tests = (1u << LANTEST_NUM_TESTS) - 1;
    if (only_cache)
        o->tests = 0xfu << 8;
    if (test_list != NULL) {
        if (cli_parse_test_list(test_list, &o->tests, err, sizeof err) != 0) {
            fprintf(stderr, "afpbench lantest: -f: %s\n", err);
            return EXIT_USAGE;
        }
    }
    uint32_t added = cli_add_test_dependencies(&o->tests, o->bigfile_name != NULL);
    for (int t = 0; t < LANTEST_NUM_TESTS; t++)
        if (added & (1u << t))
            fprintf(stderr, "afpbench lantest: also running test %d (a selected test needs it)\n",
                    t + 1);
    if ((rc = conn_finish(&o->common.conn, "lantest")) != 0)
        return rc;
    if ((rc = base_finish(&o->common.conn, &o->common.base, &o->common.have_base, "lantest")) != 0)
        return rc;
    /* Instructions in A/B: each side its own instrumented server and
     * directory, both or neither (one side under valgrind is no pair). */
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

void speedtest_usage(FILE *out)
{
    fprintf(
        out,
        "usage: afpbench speedtest [-1234567acDeLTVvy] [-h host] [-p port] [-s volume]\n"
        "                          [-S volume2] [-u user] [-w password] [-n iterations]\n"
        "                          [-W warmups] [-d size] [-z sizes] [-q quantum] [-r requests]\n"
        "                          [-t delay] [-F file] [-f tests] [-P path] [--json FILE]\n"
        "                          [--proc-root DIR]\n"
        "  -f TESTS     Read,Write,Copy,ServerCopy (default Write)\n"
        "  -n N         measured runs per test and size (default 1)\n"
        "  -W N         warm-up runs, not measured (default 1)\n"
        "  -d MiB       file size (default 64; without -d/-z the default sweep of 18 sizes,\n"
        "               4 KiB to 512 MiB, runs)\n"
        "  -z LIST      size sweep in MiB, e.g. 0.00390625,1,64\n"
        "  -q KiB       request size, up to 64 MiB and the server quantum (default: the\n"
        "               quantum, at most 1 MiB whatever the server advertises)\n"
        "  -r N         outstanding pipelined requests (default 1)\n"
        "  -y           a new file for every run    -e  sparse (set length, no writes)\n"
        "  -a           no FPFlushFork after writes -t S  pause S seconds between runs\n"
        "  -T           statistics (implied by -n > 1, -c and a sweep)\n"
        "  -c           CSV on stdout (progress stays on stderr)\n"
        "  -L           local mode: POSIX IO in the current directory, no server\n"
        "  -P PATH      local mode in PATH          -D  local mode without O_DIRECT\n"
        "  -1 .. -7     AFP 2.1 .. 3.4 (default -7); AFP 2.x reads and writes with\n"
        "               FPRead/FPWrite (32-bit offsets: sizes below 4 GiB)\n"
        "  -h -p -s -S -u -w  as lantest (environment AFP_HOST etc. also works)\n"
        "  --json FILE  write every raw sample and the run's metadata\n"
        "  --proc-root DIR  procfs for IO monitoring (default $PROC_IO, else /proc_io)\n"
        "  --deadline SECONDS  bound on the whole run: then stop, keep what was measured,\n"
        "               exit 5 (default: none)\n"
        "  --timeout SECONDS   bound on each request, whatever the server sends meanwhile\n"
        "               (default 30)\n" BASE_USAGE);
}

static const uint64_t default_sweep_count = 18;

int cli_parse_speedtest(int argc, char **argv, struct speedtest_opts *o)
{
    static const struct option longopts[] = {
        {"json", required_argument, NULL, OPT_JSON},
        {"proc-root", required_argument, NULL, OPT_PROC_ROOT},
        {"deadline", required_argument, NULL, OPT_DEADLINE},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        BASE_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    char err[160];
    int size_given = 0;

    memset(o, 0, sizeof *o);
    conn_defaults(&o->common.conn);
    o->iterations = 1;
    o->warmup = 1;
    o->ops = 1u << SPEED_WRITE;
    o->window = 1;

    if (argc < 2) {
        speedtest_usage(stderr);
        return EXIT_USAGE;
    }
    optind = 1;
    opterr = 1;
    int c;
    while ((c = getopt_long(argc, argv, "1234567acDeiLTVvyd:F:f:h:n:p:P:q:r:S:s:t:u:w:W:z:",
                            longopts, NULL)) != -1) {
        int conn = cli_conn_option(&o->common.conn, c, optarg, "speedtest");
        if (conn == 0)
            conn = base_option(&o->common.base, c, optarg, "speedtest");
        if (conn < 0)
            return EXIT_USAGE;
        if (conn > 0)
            continue;
        unsigned long long v;
        int n;
        switch (c) {
        case 'a':
            o->no_flush = 1;
            break;
        case 'c':
            o->csv = 1;
            break;
        case 'D':
            o->no_direct = 1;
            break;
        case 'e':
            o->sparse = 1;
            break;
        case 'i':
            break; /* interactive pauses: not supported, accepted for scripts */
        case 'L':
            o->local = 1;
            break;
        case 'P':
            o->local = 1;
            o->local_path = optarg;
            break;
        case 'T':
            o->stats = 1;
            break;
        case 'V':
            o->verbose = 2;
            break;
        case 'v':
            if (o->verbose < 1)
                o->verbose = 1;
            break;
        case 'y':
            o->new_file_each_run = 1;
            break;
        case 'd':
            n = cli_parse_sizes(optarg, o->sizes, 1, err, sizeof err);
            if (n != 1) {
                fprintf(stderr, "afpbench speedtest: -d: %s\n", n < 0 ? err : "one size");
                return EXIT_USAGE;
            }
            o->num_sizes = 1;
            size_given = 1;
            break;
        case 'z':
            n = cli_parse_sizes(optarg, o->sizes, SPEEDTEST_MAX_SIZES, err, sizeof err);
            if (n < 0) {
                fprintf(stderr, "afpbench speedtest: -z: %s\n", err);
                return EXIT_USAGE;
            }
            o->num_sizes = (size_t)n;
            o->sweep = 1;
            size_given = 1;
            break;
        case 'F':
            o->file_name = optarg;
            break;
        case 'f':
            if (cli_parse_ops(optarg, &o->ops, err, sizeof err) != 0) {
                fprintf(stderr, "afpbench speedtest: -f: %s\n", err);
                return EXIT_USAGE;
            }
            break;
        case 'n':
        case 'W':
            if (cli_parse_uint(optarg, c == 'W' ? 0 : 1, 1000, &v) != 0) {
                fprintf(stderr, "afpbench speedtest: bad -%c '%s' (%d-1000)\n", c, optarg,
                        c == 'W' ? 0 : 1);
                return EXIT_USAGE;
            }
            *(c == 'n' ? &o->iterations : &o->warmup) = (unsigned)v;
            break;
        case 'q':
            if (cli_parse_uint(optarg, 1, 65536, &v) != 0) {
                fprintf(stderr, "afpbench speedtest: bad quantum '%s' (KiB, 1-65536)\n", optarg);
                return EXIT_USAGE;
            }
            o->quantum = (uint32_t)(v * 1024);
            break;
        case 'r':
            if (cli_parse_uint(optarg, 1, 64, &v) != 0) {
                fprintf(stderr, "afpbench speedtest: bad request window '%s' (1-64)\n", optarg);
                return EXIT_USAGE;
            }
            o->window = (unsigned)v;
            break;
        case 't':
            if (cli_parse_uint(optarg, 0, 3600, &v) != 0) {
                fprintf(stderr, "afpbench speedtest: bad delay '%s' (seconds, 0-3600)\n", optarg);
                return EXIT_USAGE;
            }
            o->delay_s = (unsigned)v;
            break;
        case OPT_JSON:
            o->common.json_path = optarg;
            break;
        default:
            speedtest_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "afpbench speedtest: unexpected argument '%s'\n", argv[optind]);
        return EXIT_USAGE;
    }
    if (!size_given) {
        /* The default sweep: 4 KiB, 8 KiB, ... 512 MiB (powers of two). */
        o->num_sizes = default_sweep_count;
        for (size_t i = 0; i < o->num_sizes; i++)
            o->sizes[i] = 4096ull << i;
        o->sweep = 1;
    }
    if (o->iterations > 1 || o->csv || o->sweep)
        o->stats = 1;
    if (o->local) {
        if (o->common.base.host != NULL) {
            fprintf(stderr, "afpbench speedtest: --base-host needs a server; not in local mode\n");
            return EXIT_USAGE;
        }
        return 0;
    }
    int rc = conn_finish(&o->common.conn, "speedtest");
    if (rc != 0)
        return rc;
    return base_finish(&o->common.conn, &o->common.base, &o->common.have_base, "speedtest");
}

/* ---- afpbench load ---- */

int cli_parse_sessions(const char *s, unsigned *out, size_t max, char *err, size_t errlen)
{
    size_t n = 0;
    const char *p = s;
    if (s == NULL || *s == '\0') {
        snprintf(err, errlen, "empty session list");
        return -1;
    }
    for (;;) {
        size_t len = strcspn(p, ",");
        char tok[16];
        unsigned long long v;
        if (len == 0 || len >= sizeof tok) {
            snprintf(err, errlen, "bad session count '%.*s'", (int)len, p);
            return -1;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (cli_parse_uint(tok, 1, LOAD_MAX_SESSIONS, &v) != 0) {
            snprintf(err, errlen, "bad session count '%s' (1-%d)", tok, LOAD_MAX_SESSIONS);
            return -1;
        }
        if (n == max) {
            snprintf(err, errlen, "more than %zu session counts", max);
            return -1;
        }
        out[n++] = (unsigned)v;
        if (p[len] == '\0')
            return (int)n;
        p += len + 1;
    }
}

int cli_parse_mix(const char *s, unsigned *weights, char *err, size_t errlen)
{
    for (int op = 0; op < LOAD_NUM_OPS; op++)
        weights[op] = 0;
    if (s == NULL || *s == '\0') {
        snprintf(err, errlen, "empty mix");
        return -1;
    }
    const char *p = s;
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *colon = memchr(p, ':', len);
        size_t nlen = colon ? (size_t)(colon - p) : len;
        unsigned long long w = 1;
        if (colon != NULL) {
            char num[16];
            size_t wl = len - nlen - 1;
            if (wl == 0 || wl >= sizeof num) {
                snprintf(err, errlen, "bad weight in '%.*s'", (int)len, p);
                return -1;
            }
            memcpy(num, colon + 1, wl);
            num[wl] = '\0';
            if (cli_parse_uint(num, 0, 1000, &w) != 0) {
                snprintf(err, errlen, "bad weight in '%.*s' (0-1000)", (int)len, p);
                return -1;
            }
        }
        int found = -1;
        for (int op = 0; op < LOAD_NUM_OPS; op++)
            if (strlen(load_op_name(op)) == nlen && strncasecmp(p, load_op_name(op), nlen) == 0)
                found = op;
        if (found < 0 && nlen == 4 && strncasecmp(p, "enum", 4) == 0)
            found = LOAD_ENUM;
        if (found < 0) {
            snprintf(err, errlen,
                     "unknown operation '%.*s' (read, stat, enumerate, create, write, delete)",
                     (int)nlen, p);
            return -1;
        }
        weights[found] = (unsigned)w;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    unsigned total = 0;
    for (int op = 0; op < LOAD_NUM_OPS; op++)
        total += weights[op];
    if (total == 0) {
        snprintf(err, errlen, "every weight in the mix is 0");
        return -1;
    }
    return 0;
}

static int parse_seconds(const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

void load_usage(FILE *out)
{
    fprintf(out,
            "usage: afpbench load [-34567c] [-h host] [-p port] [-s volume] [-u user]\n"
            "                     [-w password] [-N sessions] [-T seconds] [--json FILE] ...\n"
            "  -N LIST      session counts to sweep, e.g. 1,4,16,64 (default 1,4,16,64;\n"
            "               each 1-%d); every step logs in that many sessions anew\n"
            "  -T SECONDS   measured time per step (default 10; decimals allowed)\n"
            "  --warmup SECONDS  unmeasured time before each step's window (default 1;\n"
            "               0 with --cold)\n"
            "  --rate R     fixed rate: R requests/s over all sessions, latency measured\n"
            "               from each request's intended start (coordinated omission\n"
            "               corrected); default: closed loop, each session as fast as it can\n"
            "  --mix LIST   weighted operations (default read): read (open, read the whole\n"
            "               file, close), stat, enumerate, create, write, delete; e.g.\n"
            "               read:8,stat:1,enumerate:1\n"
            "  --dirs N     testbed subdirectories a, b, ... (default 26, at most 26)\n"
            "  --files N    files per subdirectory (default 8, at most 256), sizes spread from\n"
            "               0 to --max-size: file i of n holds max >> (n-1-i) bytes, f0 none\n"
            "  --max-size MiB   the largest testbed file (default 1)\n"
            "  --threads N  event-loop threads (default: the online CPUs)\n"
            "  --seed N     the random choices' seed (default 1)\n"
            "  --cold       drop the server host's page cache before each step (only where\n"
            "               the server runs on this kernel and /proc/sys/vm/drop_caches is\n"
            "               writable; the JSON says so when it cannot)\n"
            "  --verify-all check every byte read against what the testbed holds (default:\n"
            "               the first 4 KiB of each read reply, whose stamp names the file and\n"
            "               the offset; the rest is dropped by the kernel uncopied)\n"
            "  -c           CSV on stdout (progress stays on stderr)\n"
            "  -h -p -s -u -w -3..-7 --proc-root --deadline --timeout --json  as lantest\n"
            "               (AFP 3.1 or later: -4 .. -7)\n" BASE_USAGE,
            LOAD_MAX_SESSIONS);
}

int cli_parse_load(int argc, char **argv, struct load_opts *o)
{
    static const struct option longopts[] = {
        {"json", required_argument, NULL, OPT_JSON},
        {"proc-root", required_argument, NULL, OPT_PROC_ROOT},
        {"deadline", required_argument, NULL, OPT_DEADLINE},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"rate", required_argument, NULL, OPT_RATE},
        {"mix", required_argument, NULL, OPT_MIX},
        {"dirs", required_argument, NULL, OPT_DIRS},
        {"files", required_argument, NULL, OPT_FILES},
        {"max-size", required_argument, NULL, OPT_MAX_SIZE},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"seed", required_argument, NULL, OPT_SEED},
        {"cold", no_argument, NULL, OPT_COLD},
        {"verify-all", no_argument, NULL, OPT_VERIFY_ALL},
        BASE_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    char err[160];
    int warmup_given = 0;
    memset(o, 0, sizeof *o);
    conn_defaults(&o->common.conn);
    static const unsigned default_steps[] = {1, 4, 16, 64};
    o->nsteps = 4;
    memcpy(o->sessions, default_steps, sizeof default_steps);
    o->duration_s = 10;
    o->warmup_s = 1;
    o->weights[LOAD_READ] = 1;
    o->dirs = 26;
    o->files = 8;
    o->max_size = 1u << 20;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus > 0 ? (unsigned)(cpus < 64 ? cpus : 64) : 1;
    o->seed = 1;
    if (argc < 2) {
        load_usage(stderr);
        return EXIT_USAGE;
    }
    optind = 1;
    opterr = 1;
    int c;
    while ((c = getopt_long(argc, argv, "34567cN:T:h:p:s:u:w:", longopts, NULL)) != -1) {
        int conn = cli_conn_option(&o->common.conn, c, optarg, "load");
        if (conn == 0)
            conn = base_option(&o->common.base, c, optarg, "load");
        if (conn < 0)
            return EXIT_USAGE;
        if (conn > 0)
            continue;
        unsigned long long v;
        double d;
        int n;
        switch (c) {
        case 'c':
            o->csv = 1;
            break;
        case 'N':
            n = cli_parse_sessions(optarg, o->sessions, LOAD_MAX_STEPS, err, sizeof err);
            if (n < 0) {
                fprintf(stderr, "afpbench load: -N: %s\n", err);
                return EXIT_USAGE;
            }
            o->nsteps = (size_t)n;
            break;
        case 'T':
            if (parse_seconds(optarg, 0.1, 86400, &o->duration_s) != 0) {
                fprintf(stderr, "afpbench load: bad -T '%s' (seconds, 0.1-86400)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_WARMUP:
            if (parse_seconds(optarg, 0, 3600, &o->warmup_s) != 0) {
                fprintf(stderr, "afpbench load: bad --warmup '%s' (seconds, 0-3600)\n", optarg);
                return EXIT_USAGE;
            }
            warmup_given = 1;
            break;
        case OPT_RATE:
            if (parse_seconds(optarg, 0.001, 1e7, &o->rate) != 0) {
                fprintf(stderr, "afpbench load: bad --rate '%s' (requests/s, up to 1e7)\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_MIX:
            if (cli_parse_mix(optarg, o->weights, err, sizeof err) != 0) {
                fprintf(stderr, "afpbench load: --mix: %s\n", err);
                return EXIT_USAGE;
            }
            break;
        case OPT_DIRS:
        case OPT_FILES:
        case OPT_THREADS:
            if (cli_parse_uint(optarg, 1,
                               c == OPT_DIRS    ? 26
                               : c == OPT_FILES ? 256
                                                : 64,
                               &v) != 0) {
                fprintf(stderr, "afpbench load: bad %s '%s' (1-%d)\n",
                        c == OPT_DIRS    ? "--dirs"
                        : c == OPT_FILES ? "--files"
                                         : "--threads",
                        optarg,
                        c == OPT_DIRS    ? 26
                        : c == OPT_FILES ? 256
                                         : 64);
                return EXIT_USAGE;
            }
            *(c == OPT_DIRS ? &o->dirs : c == OPT_FILES ? &o->files : &o->threads) = (unsigned)v;
            break;
        case OPT_MAX_SIZE:
            if (parse_seconds(optarg, 0, 64, &d) != 0) {
                fprintf(stderr, "afpbench load: bad --max-size '%s' (MiB, 0-64)\n", optarg);
                return EXIT_USAGE;
            }
            o->max_size = (uint64_t)llround(d * 1048576.0);
            break;
        case OPT_SEED:
            if (cli_parse_uint(optarg, 0, UINT64_MAX, &o->seed) != 0) {
                fprintf(stderr, "afpbench load: bad --seed '%s'\n", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_COLD:
            o->cold = 1;
            break;
        case OPT_VERIFY_ALL:
            o->verify_all = 1;
            break;
        case OPT_JSON:
            o->common.json_path = optarg;
            break;
        default:
            load_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "afpbench load: unexpected argument '%s'\n", argv[optind]);
        return EXIT_USAGE;
    }
    if (o->cold && !warmup_given)
        o->warmup_s = 0;
    if (strcmp(o->common.conn.afp_version, "AFP3.1") != 0 &&
        strcmp(o->common.conn.afp_version, "AFP3.2") != 0 &&
        strcmp(o->common.conn.afp_version, "AFP3.3") != 0 &&
        strcmp(o->common.conn.afp_version, "AFP3.4") != 0) {
        fprintf(stderr, "afpbench load: needs AFP 3.1 or later (-4 .. -7): it enumerates with "
                        "FPEnumerateExt2\n");
        return EXIT_USAGE;
    }
    int rc = conn_finish(&o->common.conn, "load");
    if (rc != 0)
        return rc;
    return base_finish(&o->common.conn, &o->common.base, &o->common.have_base, "load");
}

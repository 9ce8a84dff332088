/* afpbench speedtest's command line: afp_speedtest's flags, the size list
 * and the operations; the connection, --base-*, --json and the bounds come
 * from the option layer (cli.c). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"

static const char *const op_names[SPEED_NUM_OPS] = {"Read", "Write", "Copy", "ServerCopy"};

const char *speedtest_op_name(enum speedtest_op op)
{
    return op < SPEED_NUM_OPS ? op_names[op] : "?";
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
        if (end != p && errno == 0 && isfinite(mib) && mib > 0 && mib <= SPEEDTEST_MAX_SIZE_MIB)
            bytes = (uint64_t)llround(mib * 1048576.0);
        if (bytes == 0 || (*end != ',' && *end != '\0')) {
            snprintf(err, errlen, "bad size '%.*s' (MiB, e.g. 0.00390625 for 4 KiB; at most %d)",
                     (int)strcspn(p, ","), p, SPEEDTEST_MAX_SIZE_MIB);
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
        "  --list-sizes print the sizes these options run, in MiB as -z takes them, and\n"
        "               exit (no server)\n"
        "  -q KiB       request size, up to 64 MiB, and with FPWriteExt's 20 bytes of\n"
        "               parameters within the server quantum (default: the quantum less\n"
        "               those 20 bytes, at most 1 MiB whatever the server advertises)\n"
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
        "               (default 30)\n"
        "  --syscalls on|off  count the server's system calls (default on, or\n"
        "               $AFPBENCH_SYSCALLS)\n"
        "  --cpu N|auto|off  run on one CPU with the server processes measured\n"
        "               (each side's afpd and cnid_dbd; auto: the last CPU this\n"
        "               process may use; needs root or CAP_SYS_NICE; default "
        "off)\n" CLI_BASE_USAGE);
}

/* Without -d or -z: 4 KiB, 8 KiB, ... 512 MiB (powers of two). */
#define DEFAULT_SWEEP_SIZES 18

enum { OPT_LIST_SIZES = CLI_OPT_OWN }; /* --list-sizes */

/* speedtest's options, and what they leave to settle once all are read. */
struct speedtest_parse {
    struct speedtest_opts *o;
    int size_given; /* -d or -z */
};

/* -d (one size) or -z (a sweep). */
static int size_option(struct speedtest_parse *p, int opt, const char *arg)
{
    struct speedtest_opts *o = p->o;
    char err[160];
    int n = cli_parse_sizes(arg, o->sizes, opt == 'd' ? 1 : SPEEDTEST_MAX_SIZES, err, sizeof err);
    if (opt == 'd' && n != 1) {
        fprintf(stderr, "afpbench speedtest: -d: %s\n", n < 0 ? err : "one size");
        return EXIT_USAGE;
    }
    if (n < 0) {
        fprintf(stderr, "afpbench speedtest: -z: %s\n", err);
        return EXIT_USAGE;
    }
    o->num_sizes = (size_t)n;
    if (opt == 'z')
        o->sweep = 1;
    p->size_given = 1;
    return 0;
}

/* A whole number option: -W, -q, -r or -t. */
static int number_option(struct speedtest_opts *o, int opt, const char *arg)
{
    unsigned long long v;
    switch (opt) {
    case 'W':
        if (cli_parse_uint(arg, 0, CLI_MAX_ITERATIONS, &v) != 0) {
            fprintf(stderr, "afpbench speedtest: bad -W '%s' (0-%d)\n", arg, CLI_MAX_ITERATIONS);
            return EXIT_USAGE;
        }
        o->warmup = (unsigned)v;
        return 0;
    case 'q':
        if (cli_parse_uint(arg, 1, 65536, &v) != 0) {
            fprintf(stderr, "afpbench speedtest: bad quantum '%s' (KiB, 1-65536)\n", arg);
            return EXIT_USAGE;
        }
        o->quantum = (uint32_t)(v * 1024);
        return 0;
    case 'r':
        if (cli_parse_uint(arg, 1, 64, &v) != 0) {
            fprintf(stderr, "afpbench speedtest: bad request window '%s' (1-64)\n", arg);
            return EXIT_USAGE;
        }
        o->window = (unsigned)v;
        return 0;
    default: /* 't' */
        if (cli_parse_uint(arg, 0, 3600, &v) != 0) {
            fprintf(stderr, "afpbench speedtest: bad delay '%s' (seconds, 0-3600)\n", arg);
            return EXIT_USAGE;
        }
        o->delay_s = (unsigned)v;
        return 0;
    }
}

static int speedtest_option(void *ctx, int opt, const char *arg)
{
    struct speedtest_parse *p = ctx;
    struct speedtest_opts *o = p->o;
    char err[160];
    switch (opt) {
    case 'a':
        o->no_flush = 1;
        return 0;
    case 'c':
        o->csv = 1;
        return 0;
    case 'D':
        o->no_direct = 1;
        return 0;
    case 'e':
        o->sparse = 1;
        return 0;
    case 'i':
        return 0; /* interactive pauses: not supported, accepted for scripts */
    case 'L':
        o->local = 1;
        return 0;
    case 'P':
        o->local = 1;
        o->local_path = arg;
        return 0;
    case 'T':
        o->stats = 1;
        return 0;
    case 'V':
        o->verbose = 2;
        return 0;
    case 'v':
        if (o->verbose < 1)
            o->verbose = 1;
        return 0;
    case 'y':
        o->new_file_each_run = 1;
        return 0;
    case 'd':
    case 'z':
        return size_option(p, opt, arg);
    case 'F':
        o->file_name = arg;
        return 0;
    case 'f':
        if (cli_parse_ops(arg, &o->ops, err, sizeof err) != 0) {
            fprintf(stderr, "afpbench speedtest: -f: %s\n", err);
            return EXIT_USAGE;
        }
        return 0;
    case 'W':
    case 'q':
    case 'r':
    case 't':
        return number_option(o, opt, arg);
    case OPT_LIST_SIZES:
        o->list_sizes = 1;
        return 0;
    default:
        return CLI_NOT_MINE;
    }
}

static const struct option speedtest_longopts[] = {
    {"list-sizes", no_argument, NULL, OPT_LIST_SIZES},
    {NULL, 0, NULL, 0},
};

static const struct cli_command speedtest_command = {
    .name = "speedtest",
    .shortopts = "1234567acDeiLTVvyd:F:f:P:q:r:S:t:W:z:",
    .longopts = speedtest_longopts,
    .option = speedtest_option,
    .usage = speedtest_usage,
    .iterations = 1,
};

int cli_parse_speedtest(int argc, char **argv, struct speedtest_opts *o)
{
    struct speedtest_parse p = {.o = o};
    memset(o, 0, sizeof *o);
    o->warmup = 1;
    o->ops = 1u << SPEED_WRITE;
    o->window = 1;
    int rc = cli_parse(&speedtest_command, argc, argv, &o->common, &p);
    if (rc != 0)
        return rc;
    if (!p.size_given) {
        o->num_sizes = DEFAULT_SWEEP_SIZES;
        for (size_t i = 0; i < o->num_sizes; i++)
            o->sizes[i] = 4096ull << i;
        o->sweep = 1;
    }
    /* the sizes need no server (the gate holds its deadline's sweep to them) */
    if (o->list_sizes)
        return 0;
    if (o->common.iterations > 1 || o->csv || o->sweep)
        o->stats = 1;
    if (!o->local)
        return cli_common_finish(&o->common, "speedtest");
    if (o->common.base.host != NULL) {
        fprintf(stderr, "afpbench speedtest: --base-host needs a server; not in local mode\n");
        return EXIT_USAGE;
    }
    return 0;
}

/* afpbench load's command line: the session-count sweep, the request mix,
 * the testbed and the pacing; the connection, --base-*, --json and the
 * bounds come from the option layer (cli.c). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "load_session.h"

enum {
    OPT_WARMUP = CLI_OPT_OWN,
    OPT_RATE,
    OPT_MIX,
    OPT_DIRS,
    OPT_FILES,
    OPT_MAX_SIZE,
    OPT_THREADS,
    OPT_SEED,
    OPT_COLD,
    OPT_VERIFY_ALL,
    OPT_WRITERS,
};

_Static_assert(CLI_LOAD_OPS == LOAD_NUM_OPS, "cli.h's CLI_LOAD_OPS is enum load_op's count");

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
            snprintf(
                err, errlen,
                "unknown operation '%.*s' (read, stat, enumerate, create, write, delete, touch)",
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

/* A decimal number in [min, max] (seconds, a rate, MiB). Returns 0 or -1. */
static int parse_decimal(const char *s, double min, double max, double *out)
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
    fprintf(
        out,
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
        "               file, close), stat, enumerate, create, write, delete, touch\n"
        "               (a new modification date on a testbed file); e.g.\n"
        "               read:8,stat:1,enumerate:1\n"
        "  --writers N  the first N sessions of every step only touch testbed files, which\n"
        "               the others stat, list and read from their caches (default 0;\n"
        "               fewer than every step's sessions); e.g. --mix stat:8,enumerate:1\n"
        "               --writers 1 measures what keeping the caches coherent costs\n"
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
        "  -h -p -s -u -w -3..-7 --proc-root --deadline --timeout --syscalls --json  as lantest\n"
        "               (AFP 3.1 or later: -4 .. -7)\n" CLI_BASE_USAGE,
        LOAD_MAX_SESSIONS);
}

/* load's options, and what they leave to settle once all are read. */
struct load_parse {
    struct load_opts *o;
    int warmup_given;
};

/* A decimal option: -T, --warmup, --rate or --max-size. */
static int decimal_option(struct load_parse *p, int opt, const char *arg)
{
    static const struct decimal_flag {
        int opt;
        const char *flag;
        double min, max;
        const char *range;
    } flags[] = {
        {'T', "-T", 0.1, 86400, "seconds, 0.1-86400"},
        {OPT_WARMUP, "--warmup", 0, 3600, "seconds, 0-3600"},
        {OPT_RATE, "--rate", 0.001, 1e7, "requests/s, up to 1e7"},
        {OPT_MAX_SIZE, "--max-size", 0, 64, "MiB, 0-64"},
    };
    const struct decimal_flag *f = flags;
    while (f->opt != opt)
        f++;
    double d;
    if (parse_decimal(arg, f->min, f->max, &d) != 0) {
        fprintf(stderr, "afpbench load: bad %s '%s' (%s)\n", f->flag, arg, f->range);
        return EXIT_USAGE;
    }
    struct load_opts *o = p->o;
    switch (opt) {
    case 'T':
        o->duration_s = d;
        break;
    case OPT_WARMUP:
        o->warmup_s = d;
        p->warmup_given = 1;
        break;
    case OPT_RATE:
        o->rate = d;
        break;
    default: /* --max-size */
        o->max_size = (uint64_t)llround(d * 1048576.0);
        break;
    }
    return 0;
}

/* A count option: --dirs, --files or --threads. */
static int count_option(struct load_opts *o, int opt, const char *arg)
{
    const char *flag = opt == OPT_DIRS ? "--dirs" : opt == OPT_FILES ? "--files" : "--threads";
    unsigned max = opt == OPT_DIRS ? 26 : opt == OPT_FILES ? 256 : 64;
    unsigned long long v;
    if (cli_parse_uint(arg, 1, max, &v) != 0) {
        fprintf(stderr, "afpbench load: bad %s '%s' (1-%u)\n", flag, arg, max);
        return EXIT_USAGE;
    }
    *(opt == OPT_DIRS ? &o->dirs : opt == OPT_FILES ? &o->files : &o->threads) = (unsigned)v;
    return 0;
}

static int load_option(void *ctx, int opt, const char *arg)
{
    struct load_parse *p = ctx;
    struct load_opts *o = p->o;
    char err[160];
    int n;
    switch (opt) {
    case 'c':
        o->csv = 1;
        return 0;
    case 'N':
        n = cli_parse_sessions(arg, o->sessions, LOAD_MAX_STEPS, err, sizeof err);
        if (n < 0) {
            fprintf(stderr, "afpbench load: -N: %s\n", err);
            return EXIT_USAGE;
        }
        o->nsteps = (size_t)n;
        return 0;
    case 'T':
    case OPT_WARMUP:
    case OPT_RATE:
    case OPT_MAX_SIZE:
        return decimal_option(p, opt, arg);
    case OPT_MIX:
        if (cli_parse_mix(arg, o->weights, err, sizeof err) != 0) {
            fprintf(stderr, "afpbench load: --mix: %s\n", err);
            return EXIT_USAGE;
        }
        return 0;
    case OPT_DIRS:
    case OPT_FILES:
    case OPT_THREADS:
        return count_option(o, opt, arg);
    case OPT_SEED:
        if (cli_parse_uint(arg, 0, UINT64_MAX, &o->seed) != 0) {
            fprintf(stderr, "afpbench load: bad --seed '%s'\n", arg);
            return EXIT_USAGE;
        }
        return 0;
    case OPT_COLD:
        o->cold = 1;
        return 0;
    case OPT_VERIFY_ALL:
        o->verify_all = 1;
        return 0;
    case OPT_WRITERS: {
        unsigned long long v;
        if (cli_parse_uint(arg, 0, LOAD_MAX_SESSIONS - 1, &v) != 0) {
            fprintf(stderr, "afpbench load: bad --writers '%s' (0-%d)\n", arg,
                    LOAD_MAX_SESSIONS - 1);
            return EXIT_USAGE;
        }
        o->writers = (unsigned)v;
        return 0;
    }
    default:
        return CLI_NOT_MINE;
    }
}

static const struct option load_longopts[] = {
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
    {"writers", required_argument, NULL, OPT_WRITERS},
    {NULL, 0, NULL, 0},
};

static const struct cli_command load_command = {
    .name = "load",
    .shortopts = "34567cN:T:",
    .longopts = load_longopts,
    .option = load_option,
    .usage = load_usage,
};

static void load_defaults(struct load_opts *o)
{
    static const unsigned default_steps[] = {1, 4, 16, 64};
    memset(o, 0, sizeof *o);
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
}

int cli_parse_load(int argc, char **argv, struct load_opts *o)
{
    struct load_parse p = {.o = o};
    load_defaults(o);
    int rc = cli_parse(&load_command, argc, argv, &o->common, &p);
    if (rc != 0)
        return rc;
    if (o->cold && !p.warmup_given)
        o->warmup_s = 0;
    for (size_t i = 0; i < o->nsteps; i++)
        if (o->sessions[i] <= o->writers) {
            fprintf(stderr,
                    "afpbench load: --writers %u leaves no session to read at %u sessions: "
                    "every step needs more sessions than writers\n",
                    o->writers, o->sessions[i]);
            return EXIT_USAGE;
        }
    /* It enumerates with FPEnumerateExt2. */
    const char *v = o->common.conn.afp_version;
    if (strcmp(v, "AFP3.1") != 0 && strcmp(v, "AFP3.2") != 0 && strcmp(v, "AFP3.3") != 0 &&
        strcmp(v, "AFP3.4") != 0) {
        fprintf(stderr, "afpbench load: needs AFP 3.1 or later (-4 .. -7): it enumerates with "
                        "FPEnumerateExt2\n");
        return EXIT_USAGE;
    }
    return cli_common_finish(&o->common, "load");
}

/* afpbench bigdir's command line: the directory sizes; the connection,
 * --base-*, --json and the bounds come from the option layer (cli.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_ENTRIES = CLI_OPT_OWN };

void bigdir_usage(FILE *out)
{
    fprintf(
        out,
        "usage: afpbench bigdir [-4567c] [-h host] [-p port] [-s volume] [-u user]\n"
        "                      [-w password] [-n iterations] [--entries LIST] [--json FILE]\n"
        "  For each size N, makes a directory of N empty files (untimed), then each\n"
        "  iteration times two tests on it, as a Finder window of that folder does:\n"
        "  bigdir.N.enumerate lists every entry with FPEnumerateExt2 (a Finder's\n"
        "  attributes; each listing must return all N), and bigdir.N.stat asks\n"
        "  FPGetFileDirParms of every entry by name. A server's directory cache decides\n"
        "  these once N passes its size. The directory is removed before the next size.\n"
        "  -n N           iterations, 1-%d (default 3)\n"
        "  --entries LIST directory sizes, e.g. 10000,50000 (default 10000; each\n"
        "                 1-%d, at most %d sizes)\n"
        "  -c             CSV on stdout (progress stays on stderr)\n"
        "  -h -p -s -u -w -4..-7 --proc-root --deadline --timeout --syscalls --json  as lantest\n"
        "                 (AFP 3.1 or later: -4 .. -7)\n" CLI_BASE_USAGE,
        CLI_MAX_ITERATIONS, BIGDIR_MAX_ENTRIES, BIGDIR_MAX_SIZES);
}

/* "10000,50000" into o->sizes; 0, or EXIT_USAGE after saying why. */
static int parse_entries(struct bigdir_opts *o, const char *arg)
{
    o->nsizes = 0;
    const char *p = arg;
    for (;;) {
        size_t len = strcspn(p, ",");
        char tok[16];
        unsigned long long v;
        if (len == 0 || len >= sizeof tok || o->nsizes == BIGDIR_MAX_SIZES) {
            fprintf(stderr,
                    "afpbench bigdir: bad --entries '%s' (sizes 1-%d, comma-separated, at most "
                    "%d)\n",
                    arg, BIGDIR_MAX_ENTRIES, BIGDIR_MAX_SIZES);
            return EXIT_USAGE;
        }
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (cli_parse_uint(tok, 1, BIGDIR_MAX_ENTRIES, &v) != 0) {
            fprintf(stderr, "afpbench bigdir: bad --entries size '%s' (1-%d)\n", tok,
                    BIGDIR_MAX_ENTRIES);
            return EXIT_USAGE;
        }
        o->sizes[o->nsizes++] = (unsigned)v;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

static int bigdir_option(void *ctx, int opt, const char *arg)
{
    struct bigdir_opts *o = ctx;
    switch (opt) {
    case 'c':
        o->csv = 1;
        return 0;
    case OPT_ENTRIES:
        return parse_entries(o, arg);
    default:
        return CLI_NOT_MINE;
    }
}

static const struct option bigdir_longopts[] = {
    {"entries", required_argument, NULL, OPT_ENTRIES},
    {NULL, 0, NULL, 0},
};

static const struct cli_command bigdir_command = {
    .name = "bigdir",
    /* AFP 3.1 or later: it lists with FPEnumerateExt2 */
    .shortopts = "4567c",
    .longopts = bigdir_longopts,
    .option = bigdir_option,
    .usage = bigdir_usage,
    .iterations = 3,
};

int cli_parse_bigdir(int argc, char **argv, struct bigdir_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sizes[0] = 10000;
    o->nsizes = 1;
    int rc = cli_parse(&bigdir_command, argc, argv, &o->common, o);
    if (rc != 0)
        return rc;
    return cli_common_finish(&o->common, "bigdir");
}

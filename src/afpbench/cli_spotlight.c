/* afpbench spotlight's command line: how many files the search finds and how
 * many searches an iteration makes; the connection, --base-*, --json and the
 * bounds come from the option layer (cli.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

enum { OPT_FILES = CLI_OPT_OWN, OPT_QUERIES };

void spotlight_usage(FILE *out)
{
    fprintf(out,
            "usage: afpbench spotlight [-567c] [-h host] [-p port] [-s volume] [-u user]\n"
            "                          [-w password] [-n iterations] [--files N] [--queries N]\n"
            "                          [--json FILE] ...\n"
            "  Makes a directory of N files whose names share a prefix of this run's, then\n"
            "  times searches for them by name over FPSpotlightRPC, as a Mac's Finder asks:\n"
            "  open a query (kMDItemFSName==\"PREFIX*\"), fetch its results until the server\n"
            "  says it is done, close it. Each search must find all N files. Needs a server\n"
            "  with Spotlight on (netatalk 4.5 turns it on by default: the cnid backend\n"
            "  searches the CNID database).\n"
            "  -n N         iterations, 1-%d (default 3)\n"
            "  --files N    files the search finds, 1-%d (default 1000); the server's cnid\n"
            "               backend returns at most 10000 a query\n"
            "  --queries N  searches per iteration, 1-%d (default 10)\n"
            "  -c           CSV on stdout (progress stays on stderr)\n"
            "  -h -p -s -u -w --proc-root --deadline --timeout --syscalls --json  as lantest\n"
            "               (AFP 3.2 or later: -5 .. -7)\n" CLI_BASE_USAGE,
            CLI_MAX_ITERATIONS, SPOTLIGHT_MAX_FILES, SPOTLIGHT_MAX_QUERIES);
}

static int spotlight_option(void *ctx, int opt, const char *arg)
{
    struct spotlight_opts *o = ctx;
    unsigned long long v;
    switch (opt) {
    case 'c':
        o->csv = 1;
        return 0;
    case OPT_FILES:
        if (cli_parse_uint(arg, 1, SPOTLIGHT_MAX_FILES, &v) != 0) {
            fprintf(stderr, "afpbench spotlight: bad --files '%s' (1-%d)\n", arg,
                    SPOTLIGHT_MAX_FILES);
            return EXIT_USAGE;
        }
        o->files = (unsigned)v;
        return 0;
    case OPT_QUERIES:
        if (cli_parse_uint(arg, 1, SPOTLIGHT_MAX_QUERIES, &v) != 0) {
            fprintf(stderr, "afpbench spotlight: bad --queries '%s' (1-%d)\n", arg,
                    SPOTLIGHT_MAX_QUERIES);
            return EXIT_USAGE;
        }
        o->queries = (unsigned)v;
        return 0;
    default:
        return CLI_NOT_MINE;
    }
}

static const struct option spotlight_longopts[] = {
    {"files", required_argument, NULL, OPT_FILES},
    {"queries", required_argument, NULL, OPT_QUERIES},
    {NULL, 0, NULL, 0},
};

static const struct cli_command spotlight_command = {
    .name = "spotlight",
    .shortopts = "567c",
    .longopts = spotlight_longopts,
    .option = spotlight_option,
    .usage = spotlight_usage,
    .iterations = 3,
};

int cli_parse_spotlight(int argc, char **argv, struct spotlight_opts *o)
{
    memset(o, 0, sizeof *o);
    o->files = 1000;
    o->queries = 10;
    int rc = cli_parse(&spotlight_command, argc, argv, &o->common, o);
    if (rc != 0)
        return rc;
    const char *v = o->common.conn.afp_version;
    if (strcmp(v, "AFP3.2") != 0 && strcmp(v, "AFP3.3") != 0 && strcmp(v, "AFP3.4") != 0) {
        fprintf(stderr, "afpbench spotlight: needs AFP 3.2 or later (-5 .. -7): Spotlight came "
                        "with it\n");
        return EXIT_USAGE;
    }
    return cli_common_finish(&o->common, "spotlight");
}

/* afpbench: AFP-over-DSI benchmark client. Dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "version.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *out);
    const char *summary;
};

static const struct command commands[] = {
    {"lantest", lantest_main, lantest_usage, "the afp_lantest suite (its tests: lantest --list)"},
    {"speedtest", speedtest_main, speedtest_usage,
     "the afp_speedtest suite (Read, Write, Copy, ServerCopy)"},
    {"status", status_main, status_usage,
     "print a server's DSIGetStatus (the containers' health check)"},
    {"smoke", smoke_main, smoke_usage, "log in, write, read back and delete one file"},
    {"load", load_main, load_usage,
     "many concurrent sessions: requests/s and latency per session count"},
    {"spotlight", spotlight_main, spotlight_usage,
     "Spotlight searches by name (FPSpotlightRPC): time and server work per query"},
    {"bigdir", bigdir_main, bigdir_usage,
     "directories of many entries (10,000, 50,000): listed, and every entry statted"},
    {"conf-hash", conf_hash_main, conf_hash_usage,
     "the fingerprint of an afp.conf, as the results record the server's"},
    {"limits", limits_main, limits_usage, "the bounds of the suites' values, as JSON"},
};

/* "--help" anywhere among a command's arguments before "--" (never -h: that
 * is the host, as in afp_lantest). A value that is literally "--help" (a
 * password, say) reads as the flag: give such a one through the environment. */
static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0)
            return 1;
    }
    return 0;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: afpbench COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'afpbench COMMAND --help' prints a command's usage; -h names the host,\n"
                 "as in afp_lantest.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("afpbench %s\n", AFPBENCH_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0) {
            if (wants_help(argc - 1, argv + 1)) {
                commands[i].usage(stdout);
                return EXIT_OK;
            }
            return commands[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "afpbench: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}

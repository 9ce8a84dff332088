/* afpbench: AFP-over-DSI benchmark client. Dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "version.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"lantest", lantest_main, "the afp_lantest suite (tests 1-12)"},
    {"speedtest", speedtest_main, "the afp_speedtest suite (Read, Write, Copy, ServerCopy)"},
    {"status", status_main, "print a server's DSIGetStatus (the containers' health check)"},
    {"smoke", smoke_main, "log in, write, read back and delete one file"},
    {"load", load_main, "many concurrent sessions: requests/s and latency per session count"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: afpbench COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'afpbench COMMAND -h' is not a help flag (it names the host, as in\n"
                 "afp_lantest); run a command without arguments for its usage.\n");
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
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "afpbench: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return EXIT_USAGE;
}

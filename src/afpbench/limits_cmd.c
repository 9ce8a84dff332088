/* afpbench limits: the bounds the suites' parsers hold their values to, as
 * JSON, so that what drives afpbench (scripts/gate, and its tests) can be
 * checked against them rather than repeat them. */
#include <stdio.h>

#include "cli.h"
#include "commands.h"

void limits_usage(FILE *out)
{
    fputs("usage: afpbench limits\n"
          "  the bounds of the suites' values, as JSON on stdout: -n (iterations), speedtest's\n"
          "  sizes, load's session counts, spotlight's files and searches, bigdir's\n"
          "  directory sizes; a value past one is refused with exit 1\n",
          out);
}

int limits_main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        limits_usage(stderr);
        return EXIT_USAGE;
    }
    printf("{\n"
           "  \"schema\": \"afpbench-limits/1\",\n"
           "  \"iterations\": {\"min\": 1, \"max\": %d},\n"
           "  \"speedtest\": {\"size_mib\": {\"max\": %d}, \"sizes\": {\"max\": %d}},\n"
           "  \"load\": {\"sessions\": {\"min\": 1, \"max\": %d}, \"steps\": {\"max\": %d}},\n"
           "  \"spotlight\": {\"files\": {\"min\": 1, \"max\": %d},\n"
           "                \"queries\": {\"min\": 1, \"max\": %d}},\n"
           "  \"bigdir\": {\"entries\": {\"min\": 1, \"max\": %d}, \"sizes\": {\"max\": %d}}\n"
           "}\n",
           CLI_MAX_ITERATIONS, SPEEDTEST_MAX_SIZE_MIB, SPEEDTEST_MAX_SIZES, LOAD_MAX_SESSIONS,
           LOAD_MAX_STEPS, SPOTLIGHT_MAX_FILES, SPOTLIGHT_MAX_QUERIES, BIGDIR_MAX_ENTRIES,
           BIGDIR_MAX_SIZES);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_USAGE;
}

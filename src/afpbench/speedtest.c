/* Placeholder until its owner lands the real implementation. */
#include <stdio.h>

#include "commands.h"

int speedtest_main(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr, "afpbench %s: not implemented yet\n", argv[0]);
    return 1;
}

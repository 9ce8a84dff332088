/* The afpbench subcommands. Each takes its own argv (argv[0] is the subcommand
 * name) and returns the process exit status (see exit codes in main.c). */
#ifndef AFPBENCH_COMMANDS_H
#define AFPBENCH_COMMANDS_H

int status_main(int argc, char **argv);    /* status_cmd.c */
int smoke_main(int argc, char **argv);     /* smoke.c */
int lantest_main(int argc, char **argv);   /* lantest.c */
int speedtest_main(int argc, char **argv); /* speedtest.c */

#endif

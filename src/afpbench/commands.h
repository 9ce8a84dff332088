/* The afpbench subcommands. Each takes its own argv (argv[0] is the subcommand
 * name) and returns the process exit status, one of these. */
#ifndef AFPBENCH_COMMANDS_H
#define AFPBENCH_COMMANDS_H

/* Exit statuses: afp_lantest's (afp_speedtest uses the same). */
#define EXIT_OK 0
#define EXIT_USAGE 1
#define EXIT_ALLOC 2
#define EXIT_FILEDIR 3    /* file or directory operation */
#define EXIT_FORK 4       /* fork operation */
#define EXIT_NETWORK 5    /* network or protocol */
#define EXIT_VALIDATION 7 /* read-back mismatch */
#define EXIT_PARAM 8      /* bad parameter */
#define EXIT_VOLUME 9
#define EXIT_LOGIN 10

int status_main(int argc, char **argv);    /* status_cmd.c */
int smoke_main(int argc, char **argv);     /* smoke.c */
int lantest_main(int argc, char **argv);   /* lantest.c */
int speedtest_main(int argc, char **argv); /* speedtest.c */
int load_main(int argc, char **argv);      /* load.c */

#endif

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

#include <stdio.h>

int status_main(int argc, char **argv);    /* status_cmd.c */
int smoke_main(int argc, char **argv);     /* smoke.c */
int lantest_main(int argc, char **argv);   /* lantest.c */
int speedtest_main(int argc, char **argv); /* speedtest.c */
int load_main(int argc, char **argv);      /* load.c */
int spotlight_main(int argc, char **argv); /* spotlight.c */
int bigdir_main(int argc, char **argv);    /* bigdir.c */
int conf_hash_main(int argc, char **argv); /* conf_hash_cmd.c */
int limits_main(int argc, char **argv);    /* limits_cmd.c */

/* Each subcommand's usage text, for its --help (to stdout, exit 0) and its
 * usage errors (to stderr). */
void status_usage(FILE *out);
void smoke_usage(FILE *out);
void lantest_usage(FILE *out);   /* cli_lantest.c */
void speedtest_usage(FILE *out); /* cli_speedtest.c */
void load_usage(FILE *out);      /* cli_load.c */
void spotlight_usage(FILE *out); /* cli_spotlight.c */
void bigdir_usage(FILE *out);    /* cli_bigdir.c */
void conf_hash_usage(FILE *out);
void limits_usage(FILE *out);

#endif

/* afpd's "dircache statistics" log line for our session. The log is the
 * one --server-log names (a path on this machine), else the "log file" of
 * the server's afp.conf read through our afpd's proc root (srvfiles.h), so
 * it is found for a server in a chroot or in another container that shares
 * our PID namespace, not only for one on this host. */
#ifndef AFPBENCH_LANTEST_DIRCACHE_H
#define AFPBENCH_LANTEST_DIRCACHE_H

#include "srvfiles.h"

#define DIRCACHE_MAX_SCAN (256 * 1024) /* the most of the log read after a run */

struct dircache_log {
    int fd;          /* the log, open from begin to end; -1 = no usable log */
    char where[600]; /* its name, for messages */
    long long start; /* its size at begin: only later lines are ours */
    int afpd_pid;    /* our session's afpd (0 = unknown): only its line counts */
    int afpd_stat;   /* its procfs stat, open from begin: is it still running? (-1 = unknown) */
    char note[800];  /* why there is no usable log */
};

/* Open the log (server_log if not NULL, else sf's log file inside the
 * server's root) and remember where it ends now. Call after login, while
 * afpd runs; afpd_pid 0 when IO monitoring did not find it (proc_root: the
 * procfs it was found in). */
void lantest_dircache_begin(struct dircache_log *d, const char *server_log,
                            const struct srvfiles *sf, int afpd_pid, const char *proc_root);

/* After logout: our afpd's last "dircache statistics" line written since
 * begin (any afpd's when its pid is unknown), waiting up to 2 s for afpd to
 * write it, and no longer once our afpd has exited (it writes the line
 * before it exits; a server that logs below info never does). malloc'd, or
 * NULL (said on stderr). */
char *lantest_dircache_stats(const struct dircache_log *d);

/* One look for that line, without waiting (exposed for tests). */
char *lantest_dircache_find(const struct dircache_log *d);

void lantest_dircache_end(struct dircache_log *d);

#endif

/* afpd's "dircache statistics" log line for our session, when the server's
 * log file is readable from here (same host, or a shared log volume). */
#ifndef AFPBENCH_LANTEST_DIRCACHE_H
#define AFPBENCH_LANTEST_DIRCACHE_H

#include "cli.h"

struct dircache_log {
    char path[512];
    long start; /* log size when the run began: only later lines are ours */
    int usable;
};

/* Find the log (--server-log, else afp.conf's "log file" for a local
 * server) and remember where it ends now. */
void lantest_dircache_begin(struct dircache_log *d, const struct lantest_opts *o);

/* After logout: the last "dircache statistics" line written since begin,
 * waiting up to 2 s for afpd to write it. malloc'd, or NULL. */
char *lantest_dircache_stats(const struct dircache_log *d);

/* The value of "log file" in afp.conf text, or NULL (exposed for tests).
 * Writes into out. */
const char *lantest_dircache_conf_logfile(const char *conf_text, char *out, size_t outlen);

#endif

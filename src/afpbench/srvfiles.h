/* The server's own files (afp.conf, afpd's log) read through the proc root
 * of our session's afpd: PROC_ROOT/PID/root is the server's root directory
 * even when the server runs in a chroot or in another container that shares
 * our PID namespace, where its /etc/netatalk is not ours.
 *
 * Every path of the server is resolved inside that root (openat2 with
 * RESOLVE_IN_ROOT, so neither ".." nor an absolute symlink leads out of it;
 * where the kernel lacks openat2, a plain openat below the root link, with
 * ".." refused), only regular files are read, and every read is capped. */
#ifndef AFPBENCH_SRVFILES_H
#define AFPBENCH_SRVFILES_H

#include <stddef.h>

#include "sha256.h"

#define SRVFILES_DEFAULT_CONF "/etc/netatalk/afp.conf"
#define SRVFILES_CONF_MAX (1024 * 1024) /* a larger afp.conf is not hashed */
#define SRVFILES_CMDLINE_MAX 4096

struct srvfiles {
    int root_fd;                          /* PROC_ROOT/PID/root (O_PATH); -1 when not open */
    char root_path[300];                  /* PROC_ROOT/PID/root, for messages */
    char conf_path[256];                  /* afpd's -F argument, else the default; "" = unknown */
    char conf_sha256[SHA256_HEX_LEN + 1]; /* afp.conf's fingerprint (below); "" = unknown */
    char conf_settings[256];              /* its settings under test (below); "" = none */
    char log_path[256];                   /* [Global] "log file" of afp.conf; "" = none known */
    char note[700];                       /* why something above is unknown */
};

/* Nothing known yet, nothing open (safe to srvfiles_close). */
void srvfiles_init(struct srvfiles *sf);

/* Open the server's root through afpd_pid's proc entry, read afpd's command
 * line for its -F, hash that afp.conf and find its "log file". Always
 * returns; empty fields are unknown and note says why. afpd_pid <= 0 (afpd
 * not found) leaves everything unknown. The root stays open (and usable
 * after afpd has exited) until srvfiles_close. */
void srvfiles_open(struct srvfiles *sf, const char *proc_root, int afpd_pid);
void srvfiles_close(struct srvfiles *sf);

/* Open the server's file `path` (absolute, no ".." component) for reading,
 * resolved inside its root. Only a regular file: anything else is -1 with
 * errno EINVAL (bad path) or EISDIR/ENXIO (not a regular file). */
int srvfiles_open_file(const struct srvfiles *sf, const char *path);

/* (Read an opened file with procfile_read_all, procfile.h.) */

/* The afp.conf afpd was started with, from its command line (cmdline: len
 * bytes of NUL-separated arguments, as in PROC/PID/cmdline): the argument of
 * "-F PATH" or "-FPATH", else SRVFILES_DEFAULT_CONF. NULL when the value is
 * empty or does not fit in out. */
const char *srvfiles_cmdline_conf(const char *cmdline, size_t len, char *out, size_t outlen);

/* The fingerprint of afp.conf text (len bytes) as lower-case hex: the
 * SHA-256 of its settings lines, less the ones a harness sets for each
 * server it starts (afp port, afp listen, cnid listen, cnid server, vol
 * dbpath, path, server name, log file), comments and blank lines. Two servers
 * started with the same settings on other ports, in other directories, get
 * the same fingerprint. */
void srvfiles_conf_fingerprint(const char *conf, size_t len, char hex[65]);

/* The line server-entrypoint writes above the settings a run is about (its
 * AFP_EXTRA_GLOBAL and AFP_EXTRA_VOLUME, e.g. an action's afp-conf). */
#define SRVFILES_SETTINGS_MARKER "; afpbench: settings under test"

/* The settings under test in afp.conf text (len bytes): the "key = value"
 * lines below each SRVFILES_SETTINGS_MARKER up to the next section, joined
 * with "; ", values of keys that may hold a secret (pw, pass, secret, key)
 * shown as ***, bytes that are not printable ASCII as '?'. Cut with "..." at
 * outlen. NULL when there are none (no marker: a server the harness did not
 * configure). */
const char *srvfiles_conf_settings(const char *conf, size_t len, char *out, size_t outlen);

/* The [Global] section's "log file" value in afp.conf text (len bytes), or
 * NULL (not set: afpd logs to syslog). Keys compare without case; ';' and
 * '#' start comments; a value may be in double quotes. */
const char *srvfiles_conf_logfile(const char *conf, size_t len, char *out, size_t outlen);

#endif

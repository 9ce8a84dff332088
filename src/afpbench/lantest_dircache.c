/* Dircache statistics from afpd's log: afpd writes one line per session
 * when the session ends, so lantest logs out first and then reads it. The
 * log stays open from the start of the run: after logout our afpd has
 * exited and its proc root is gone. */
#include "lantest_dircache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "procfile.h"
#include "safetext.h"

#define MARKER "dircache statistics"

void lantest_dircache_begin(struct dircache_log *d, const char *server_log,
                            const struct srvfiles *sf, int afpd_pid, const char *proc_root)
{
    memset(d, 0, sizeof *d);
    d->fd = -1;
    d->afpd_stat = -1;
    d->afpd_pid = afpd_pid > 0 ? afpd_pid : 0;
    if (d->afpd_pid > 0 && proc_root != NULL) {
        /* kept open: the same process's file, even if its pid is reused */
        char path[300];
        snprintf(path, sizeof path, "%s/%d/stat", proc_root, d->afpd_pid);
        d->afpd_stat = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (server_log != NULL) {
        snprintf(d->where, sizeof d->where, "%s", server_log);
        d->fd = open(server_log, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    } else if (sf->log_path[0] != '\0') {
        snprintf(d->where, sizeof d->where, "%s (through %s)", sf->log_path, sf->root_path);
        d->fd = srvfiles_open_file(sf, sf->log_path);
    } else {
        snprintf(d->note, sizeof d->note, "server log unknown: %s",
                 sf->note[0] ? sf->note : "no --server-log");
        return;
    }
    struct stat st;
    int e = d->fd < 0 ? errno : 0;
    if (e == 0 && fstat(d->fd, &st) != 0)
        e = errno;
    else if (e == 0 && !S_ISREG(st.st_mode))
        e = ENXIO;
    if (e != 0) {
        if (d->fd >= 0)
            close(d->fd);
        d->fd = -1;
        snprintf(d->note, sizeof d->note, "server log %s is not readable: %s", d->where,
                 e == ENXIO ? "not a regular file" : strerror(e));
        return;
    }
    d->start = (long long)st.st_size;
}

/* Is the line [bol, eol) one of ours: from afpd[pid], or any when the pid
 * is unknown? */
static int line_is_ours(const struct dircache_log *d, const char *bol, size_t len)
{
    if (d->afpd_pid == 0)
        return 1;
    char tag[32];
    int n = snprintf(tag, sizeof tag, "afpd[%d]", d->afpd_pid);
    return memmem(bol, len, tag, (size_t)n) != NULL;
}

char *lantest_dircache_find(const struct dircache_log *d)
{
    struct stat st;
    if (d->fd < 0 || fstat(d->fd, &st) != 0)
        return NULL;
    long long start = d->start, end = (long long)st.st_size;
    if (end < start)
        start = 0; /* truncated */
    if (end - start > DIRCACHE_MAX_SCAN)
        start = end - DIRCACHE_MAX_SCAN;
    size_t want = (size_t)(end - start), got = 0;
    char *buf = malloc(want + 1);
    if (buf == NULL)
        return NULL;
    while (got < want) {
        ssize_t n = pread(d->fd, buf + got, want - got, (off_t)(start + (long long)got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    char *found = NULL;
    for (size_t at = 0; at < got;) {
        char *bol = buf + at;
        char *eol = memchr(bol, '\n', got - at);
        size_t len = eol ? (size_t)(eol - bol) : got - at;
        if (memmem(bol, len, MARKER, strlen(MARKER)) != NULL && line_is_ours(d, bol, len) &&
            memchr(bol, '\0', len) == NULL) {
            free(found);
            found = strndup(bol, len);
        }
        at += len + 1;
    }
    free(buf);
    if (found != NULL) {
        /* a line of the server's log: escaped before anyone prints it */
        size_t cap = strlen(found) * 4 + 1;
        char *safe = malloc(cap);
        if (safe != NULL)
            safetext(safe, cap, found);
        free(found);
        found = safe;
    }
    return found;
}

/* Has our afpd exited (gone, or a zombie its parent has not reaped)? 0
 * when that cannot be told. */
static int afpd_exited(const struct dircache_log *d)
{
    if (d->afpd_stat < 0)
        return 0;
    char buf[512];
    long n = procfile_pread(d->afpd_stat, buf, sizeof buf);
    if (n < 0)
        return 1;
    /* "pid (comm) S ...": the state follows the last ')' */
    const char *paren = memrchr(buf, ')', (size_t)n);
    return paren != NULL && paren + 2 < buf + n && (paren[2] == 'Z' || paren[2] == 'X');
}

char *lantest_dircache_stats(const struct dircache_log *d)
{
    if (d->fd < 0) {
        fprintf(stderr, "lantest: note: no dircache statistics: %s\n", d->note);
        return NULL;
    }
    for (int attempt = 0; attempt < 40; attempt++) {
        int exited = afpd_exited(d); /* before the look: a line written before exit is seen */
        char *line = lantest_dircache_find(d);
        if (line != NULL)
            return line;
        if (exited)
            break;
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    char who[40] = "afpd";
    if (d->afpd_pid > 0)
        snprintf(who, sizeof who, "afpd[%d]", d->afpd_pid);
    fprintf(stderr,
            "lantest: note: no '" MARKER "' line from %s in %s (afpd logs it at log level "
            "default:info or higher)\n",
            who, d->where);
    return NULL;
}

void lantest_dircache_end(struct dircache_log *d)
{
    if (d->fd >= 0)
        close(d->fd);
    if (d->afpd_stat >= 0)
        close(d->afpd_stat);
    d->fd = d->afpd_stat = -1;
}

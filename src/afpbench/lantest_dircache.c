/* Dircache statistics from afpd's log: afpd writes one line per session
 * when the session ends, so lantest logs out first and then reads it. */
#include "lantest_dircache.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define AFP_CONF "/etc/netatalk/afp.conf"
#define MARKER "dircache statistics"
#define MAX_SCAN (256 * 1024)

const char *lantest_dircache_conf_logfile(const char *conf_text, char *out, size_t outlen)
{
    const char *line = conf_text;
    while (line != NULL && *line != '\0') {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncasecmp(p, "log file", 8) == 0) {
            p += 8;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == '=') {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                size_t n = strcspn(p, "\r\n");
                while (n > 0 && isspace((unsigned char)p[n - 1]))
                    n--;
                if (n > 0 && n < outlen) {
                    memcpy(out, p, n);
                    out[n] = '\0';
                    return out;
                }
            }
        }
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    return NULL;
}

static int host_is_local(const char *host)
{
    return strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
           strcmp(host, "::1") == 0;
}

void lantest_dircache_begin(struct dircache_log *d, const struct lantest_opts *o)
{
    memset(d, 0, sizeof *d);
    if (o->server_log != NULL) {
        snprintf(d->path, sizeof d->path, "%s", o->server_log);
    } else {
        if (!host_is_local(o->conn.host))
            return;
        FILE *f = fopen(AFP_CONF, "re");
        if (f == NULL)
            return;
        char conf[65536];
        size_t n = fread(conf, 1, sizeof conf - 1, f);
        fclose(f);
        conf[n] = '\0';
        if (lantest_dircache_conf_logfile(conf, d->path, sizeof d->path) == NULL)
            return;
    }
    struct stat st;
    if (stat(d->path, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "lantest: note: server log %s is not readable; no dircache statistics\n",
                d->path);
        return;
    }
    d->start = (long)st.st_size;
    d->usable = 1;
}

/* The last line containing MARKER in the log after d->start, or NULL. */
static char *find_line(const struct dircache_log *d)
{
    FILE *f = fopen(d->path, "re");
    if (f == NULL)
        return NULL;
    long start = d->start;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long end = ftell(f);
    if (end < start)
        start = 0; /* rotated or truncated */
    if (end - start > MAX_SCAN)
        start = end - MAX_SCAN;
    char *buf = malloc((size_t)(end - start) + 1);
    char *found = NULL;
    if (buf != NULL && fseek(f, start, SEEK_SET) == 0) {
        size_t n = fread(buf, 1, (size_t)(end - start), f);
        buf[n] = '\0';
        for (char *p = buf; (p = strstr(p, MARKER)) != NULL; p++) {
            char *bol = p;
            while (bol > buf && bol[-1] != '\n')
                bol--;
            size_t len = strcspn(bol, "\n");
            free(found);
            found = strndup(bol, len);
        }
    }
    free(buf);
    fclose(f);
    return found;
}

char *lantest_dircache_stats(const struct dircache_log *d)
{
    if (!d->usable)
        return NULL;
    for (int attempt = 0; attempt < 20; attempt++) {
        char *line = find_line(d);
        if (line != NULL)
            return line;
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr,
            "lantest: note: no '" MARKER "' line in %s (afpd logs it at log level "
            "default:info or higher)\n",
            d->path);
    return NULL;
}

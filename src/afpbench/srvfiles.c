/* The server's files through its afpd's proc root (see srvfiles.h). */
#include "srvfiles.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procfile.h"
#include "sha256.h"

#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif
#endif

/* ---- parsers ---- */

const char *srvfiles_cmdline_conf(const char *cmdline, size_t len, char *out, size_t outlen)
{
    const char *value = SRVFILES_DEFAULT_CONF, *p = cmdline, *end = cmdline + len;
    int prev_was_f = 0;
    while (p < end) {
        size_t arglen = strnlen(p, (size_t)(end - p));
        if (prev_was_f) {
            value = p; /* may be unterminated at the very end: copied by length below */
            prev_was_f = 0;
            if (arglen >= outlen || arglen == 0)
                return NULL;
            memcpy(out, value, arglen);
            out[arglen] = '\0';
            value = out;
        } else if (arglen >= 2 && p[0] == '-' && p[1] == 'F') {
            if (arglen == 2) {
                prev_was_f = 1;
            } else {
                if (arglen - 2 >= outlen)
                    return NULL;
                memcpy(out, p + 2, arglen - 2);
                out[arglen - 2] = '\0';
                value = out;
            }
        }
        p += arglen + 1;
    }
    if (prev_was_f)
        return NULL; /* "-F" with nothing after it */
    if (value != out) {
        if (strlen(value) >= outlen)
            return NULL;
        strcpy(out, value);
    }
    return out;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static const char *trim_end(const char *start, const char *end)
{
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    return end;
}

/* Is the key at s (up to the '=' at eq) one a harness sets per server? Keys
 * compare without case, runs of blanks as one space. */
static int harness_key(const char *s, const char *eq)
{
    static const char *const keys[] = {"afp port",   "afp listen", "cnid listen", "cnid server",
                                       "vol dbpath", "path",       "server name", "log file"};
    char key[32];
    size_t n = 0;
    for (const char *p = s; p < trim_end(s, eq); p++) {
        if (n + 1 >= sizeof key)
            return 0;
        int blank = *p == ' ' || *p == '\t';
        if (blank && (n == 0 || key[n - 1] == ' '))
            continue;
        key[n++] = blank ? ' ' : (char)tolower((unsigned char)*p);
    }
    key[n] = '\0';
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strcmp(key, keys[i]) == 0)
            return 1;
    return 0;
}

void srvfiles_conf_fingerprint(const char *conf, size_t len, char hex[65])
{
    struct sha256 c;
    sha256_init(&c);
    const char *p = conf, *end = conf + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        const char *s = skip_blanks(p, eol);
        const char *eq = s < eol ? memchr(s, '=', (size_t)(eol - s)) : NULL;
        int skip =
            s == eol || *s == ';' || *s == '#' || (*s != '[' && eq != NULL && harness_key(s, eq));
        if (!skip) {
            sha256_update(&c, s, (size_t)(trim_end(s, eol) - s));
            sha256_update(&c, "\n", 1);
        }
        p = eol + 1;
    }
    uint8_t digest[SHA256_DIGEST_LEN];
    sha256_final(&c, digest);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < SHA256_DIGEST_LEN; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[64] = '\0';
}

const char *srvfiles_conf_logfile(const char *conf, size_t len, char *out, size_t outlen)
{
    const char *p = conf, *end = conf + len;
    const char *found = NULL;
    int in_global = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        const char *s = skip_blanks(p, eol);
        if (s < eol && *s == '[') {
            const char *close = memchr(s, ']', (size_t)(eol - s));
            const char *name = close ? skip_blanks(s + 1, close) : NULL;
            in_global = name != NULL && trim_end(name, close) - name == 6 &&
                        strncasecmp(name, "global", 6) == 0;
        } else if (in_global && s < eol && *s != ';' && *s != '#') {
            const char *eq = memchr(s, '=', (size_t)(eol - s));
            if (eq != NULL && trim_end(s, eq) - s == 8 && strncasecmp(s, "log file", 8) == 0) {
                const char *v = skip_blanks(eq + 1, eol), *vend;
                const char *q =
                    v < eol && *v == '"' ? memchr(v + 1, '"', (size_t)(eol - v - 1)) : NULL;
                if (q != NULL) {
                    v++;
                    vend = q;
                } else {
                    vend = v;
                    while (vend < eol && *vend != ';' && *vend != '#')
                        vend++;
                    vend = trim_end(v, vend);
                }
                size_t n = (size_t)(vend - v);
                if (n > 0 && n < outlen && memchr(v, '\0', n) == NULL) {
                    memcpy(out, v, n);
                    out[n] = '\0';
                    found = out; /* a later setting wins, as in netatalk */
                } else {
                    found = NULL;
                }
            }
        }
        p = eol + 1;
    }
    return found;
}

/* Does the key [s, e) name something that may hold a secret ("cnid mysql
 * pw")? The same rule as server-entrypoint's redact. */
static int secret_key(const char *s, const char *e)
{
    static const char *const words[] = {"pw", "pass", "secret", "key"};
    for (const char *p = s; p < e; p++)
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
            size_t n = strlen(words[i]);
            if ((size_t)(e - p) >= n && strncasecmp(p, words[i], n) == 0)
                return 1;
        }
    return 0;
}

/* Append [s, e) to out (n bytes used of outlen), unprintable bytes as '?'.
 * 0 when it did not fit: out then ends in "...". Each byte is written only
 * while four stay free, so the "..." and its NUL always fit. */
static int append_text(char *out, size_t *n, size_t outlen, const char *s, const char *e)
{
    for (const char *p = s; p < e; p++) {
        if (*n + 4 >= outlen) {
            memcpy(out + *n, "...", 4);
            *n = outlen;
            return 0;
        }
        unsigned char c = (unsigned char)*p;
        out[(*n)++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
        out[*n] = '\0';
    }
    return 1;
}

const char *srvfiles_conf_settings(const char *conf, size_t len, char *out, size_t outlen)
{
    static const char marker[] = SRVFILES_SETTINGS_MARKER, sep[] = "; ", eqs[] = " = ",
                      hidden[] = "***";
    if (outlen < 8)
        return NULL;
    out[0] = '\0';
    size_t n = 0;
    int under_test = 0;
    const char *p = conf, *end = conf + len;
    while (p < end && n < outlen) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (eol == NULL)
            eol = end;
        const char *s = skip_blanks(p, eol), *e = trim_end(s, eol);
        const char *eq = s < e ? memchr(s, '=', (size_t)(e - s)) : NULL;
        if ((size_t)(e - s) == sizeof marker - 1 && memcmp(s, marker, sizeof marker - 1) == 0) {
            under_test = 1;
        } else if (s < e && *s == '[') {
            under_test = 0;
        } else if (under_test && eq != NULL && *s != ';' && *s != '#' && trim_end(s, eq) > s) {
            const char *v = skip_blanks(eq + 1, e);
            int secret = secret_key(s, eq);
            if ((n > 0 && !append_text(out, &n, outlen, sep, sep + 2)) ||
                !append_text(out, &n, outlen, s, trim_end(s, eq)) ||
                !append_text(out, &n, outlen, eqs, eqs + 3) ||
                !append_text(out, &n, outlen, secret ? hidden : v, secret ? hidden + 3 : e))
                break;
        }
        p = eol + 1;
    }
    return n > 0 ? out : NULL;
}

/* ---- files inside the server's root ---- */

/* Absolute, and no ".." component (which could only lead upwards). */
static int path_ok(const char *path)
{
    if (path == NULL || path[0] != '/')
        return 0;
    for (const char *c = path; *c != '\0'; c += strcspn(c, "/")) {
        while (*c == '/')
            c++;
        if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
            return 0;
    }
    return 1;
}

/* openat2 with RESOLVE_IN_ROOT: "/" and ".." stop at dirfd. -1 with errno
 * ENOSYS where the kernel or the headers lack it. */
static int open_in_root(int dirfd, const char *rel, int flags)
{
#if defined(SYS_openat2) && defined(RESOLVE_IN_ROOT)
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)flags;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
#else
    (void)dirfd;
    (void)rel;
    (void)flags;
    errno = ENOSYS;
    return -1;
#endif
}

int srvfiles_open_file(const struct srvfiles *sf, const char *path)
{
    if (sf->root_fd < 0 || !path_ok(path)) {
        errno = EINVAL;
        return -1;
    }
    const char *rel = path + strspn(path, "/");
    if (*rel == '\0') {
        errno = EISDIR;
        return -1;
    }
    /* O_NONBLOCK: a FIFO planted at the path must not hang the open. */
    int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    int fd = open_in_root(sf->root_fd, rel, flags);
    if (fd < 0 && (errno == ENOSYS || errno == EPERM)) /* no openat2, or a filter blocks it */
        fd = openat(sf->root_fd, rel, flags);
    if (fd < 0)
        return -1;
    struct stat st;
    int e = 0;
    if (fstat(fd, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = S_ISDIR(st.st_mode) ? EISDIR : ENXIO;
    if (e != 0) {
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

void srvfiles_init(struct srvfiles *sf)
{
    memset(sf, 0, sizeof sf[0]);
    sf->root_fd = -1;
    snprintf(sf->note, sizeof sf->note, "no session: the server's files were not looked up");
}

void srvfiles_open(struct srvfiles *sf, const char *proc_root, int afpd_pid)
{
    srvfiles_init(sf);
    if (afpd_pid <= 0) {
        snprintf(sf->note, sizeof sf->note, "our afpd was not found under %s", proc_root);
        return;
    }
    char path[320], cmdline[SRVFILES_CMDLINE_MAX];
    snprintf(path, sizeof path, "%s/%d/cmdline", proc_root, afpd_pid);
    long n = procfile_read(path, cmdline, sizeof cmdline);
    if (n <= 0) {
        snprintf(sf->note, sizeof sf->note, "%s is not readable", path);
        return;
    }
    if (srvfiles_cmdline_conf(cmdline, (size_t)n, sf->conf_path, sizeof sf->conf_path) == NULL ||
        !path_ok(sf->conf_path)) {
        snprintf(sf->note, sizeof sf->note,
                 "afpd's -F argument is not an absolute path without '..' that fits");
        sf->conf_path[0] = '\0';
        return;
    }

    snprintf(sf->root_path, sizeof sf->root_path, "%s/%d/root", proc_root, afpd_pid);
    sf->root_fd = open(sf->root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (sf->root_fd < 0) {
        snprintf(sf->note, sizeof sf->note, "cannot open %s: %s", sf->root_path, strerror(errno));
        return;
    }
    int fd = srvfiles_open_file(sf, sf->conf_path);
    size_t len = 0;
    char *conf = fd >= 0 ? procfile_read_all(fd, SRVFILES_CONF_MAX, &len) : NULL;
    if (conf == NULL) {
        int e = errno;
        snprintf(sf->note, sizeof sf->note, "cannot read the server's %s through %s: %s",
                 sf->conf_path, sf->root_path, e == EFBIG ? "larger than 1 MiB" : strerror(e));
        if (fd >= 0)
            close(fd);
        return;
    }
    close(fd);
    srvfiles_conf_fingerprint(conf, len, sf->conf_sha256);
    if (srvfiles_conf_settings(conf, len, sf->conf_settings, sizeof sf->conf_settings) == NULL)
        sf->conf_settings[0] = '\0';
    if (srvfiles_conf_logfile(conf, len, sf->log_path, sizeof sf->log_path) == NULL)
        snprintf(sf->note, sizeof sf->note,
                 "the server's %s sets no usable \"log file\" in [Global] (afpd logs to syslog)",
                 sf->conf_path);
    else if (!path_ok(sf->log_path)) {
        snprintf(sf->note, sizeof sf->note,
                 "the server's \"log file = %s\" is not an absolute path without '..'",
                 sf->log_path);
        sf->log_path[0] = '\0';
    }
    free(conf);
}

void srvfiles_close(struct srvfiles *sf)
{
    if (sf->root_fd >= 0)
        close(sf->root_fd);
    sf->root_fd = -1;
}

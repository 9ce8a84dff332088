/* Server IO monitoring through a procfs that shows the server's processes.
 *
 * Which afpd is ours: netatalk forks one afpd per session, and every one of
 * them may run as the same user, so the user alone is ambiguous (and the
 * client's passwd file may not even know the server's uids). The socket is
 * not ambiguous: the afpd holding the server end of our TCP connection is
 * our session. Its net/tcp{,6} (the table of its own network namespace, so
 * this also works across containers that share a PID namespace) gives the
 * socket inode for our address pair, and its fd/ links name that inode. */
#include "iomon.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "instr.h"

#define MAX_CANDIDATES 1024 /* afpd processes: a load test on the same host runs hundreds */

/* Read at most size-1 bytes of a (small, procfs) file; NUL-terminates.
 * Returns the byte count or -1. */
static long read_small_file(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t n = read(fd, buf + got, size - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    return (long)got;
}

int iomon_parse_io(const char *text, uint64_t *syscr, uint64_t *syscw)
{
    int have_r = 0, have_w = 0;
    const char *line = text;
    while (line != NULL && *line != '\0') {
        unsigned long long v;
        if (sscanf(line, "syscr: %llu", &v) == 1) {
            *syscr = v;
            have_r = 1;
        } else if (sscanf(line, "syscw: %llu", &v) == 1) {
            *syscw = v;
            have_w = 1;
        }
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    return have_r && have_w ? 0 : -1;
}

/* procfs prints each 32-bit word of an address as the host-order value of
 * its in-memory (network-order) bytes; undo that word by word. */
static int parse_hex_addr(const char *hex, uint8_t out[16])
{
    size_t len = strlen(hex);
    if (len != 8 && len != 32)
        return -1;
    uint8_t raw[16];
    for (size_t w = 0; w < len / 8; w++) {
        char word[9];
        memcpy(word, hex + w * 8, 8);
        word[8] = '\0';
        for (int i = 0; i < 8; i++)
            if (!isxdigit((unsigned char)word[i]))
                return -1;
        uint32_t v = (uint32_t)strtoul(word, NULL, 16);
        memcpy(raw + w * 4, &v, 4);
    }
    if (len == 8) {
        /* IPv4 as an IPv4-mapped IPv6 address, so both tables compare alike. */
        memset(out, 0, 10);
        out[10] = out[11] = 0xff;
        memcpy(out + 12, raw, 4);
    } else {
        memcpy(out, raw, 16);
    }
    return 0;
}

int iomon_parse_tcp_line(const char *line, uint8_t local[16], uint16_t *lport, uint8_t remote[16],
                         uint16_t *rport, unsigned long *inode)
{
    char lhex[40], rhex[40];
    unsigned lp, rp, state;
    unsigned long ino;
    if (sscanf(line, " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*s %*s %*s %*s %*s %lu", lhex,
               &lp, rhex, &rp, &state, &ino) != 6)
        return -1;
    if (lp > 0xffff || rp > 0xffff || parse_hex_addr(lhex, local) != 0 ||
        parse_hex_addr(rhex, remote) != 0)
        return -1;
    *lport = (uint16_t)lp;
    *rport = (uint16_t)rp;
    *inode = ino;
    return 0;
}

int iomon_cmdline_has_user(const char *cmdline, unsigned long len, const char *user)
{
    const char *p = cmdline, *end = cmdline + len;
    int prev_was_u = 0;
    while (p < end) {
        size_t arglen = strnlen(p, (size_t)(end - p));
        if (prev_was_u && arglen == strlen(user) && memcmp(p, user, arglen) == 0)
            return 1;
        prev_was_u = arglen == 2 && memcmp(p, "-u", 2) == 0;
        p += arglen + 1;
    }
    return 0;
}

/* Our socket's two ends as 16-byte addresses (IPv4 mapped). */
static int socket_ends(int sockfd, uint8_t local[16], uint16_t *lport, uint8_t peer[16],
                       uint16_t *pport)
{
    struct sockaddr_storage ss[2];
    socklen_t len[2] = {sizeof ss[0], sizeof ss[1]};
    if (getsockname(sockfd, (struct sockaddr *)&ss[0], &len[0]) != 0 ||
        getpeername(sockfd, (struct sockaddr *)&ss[1], &len[1]) != 0)
        return -1;
    uint8_t *addr[2] = {local, peer};
    uint16_t *port[2] = {lport, pport};
    for (int i = 0; i < 2; i++) {
        if (ss[i].ss_family == AF_INET) {
            const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss[i];
            memset(addr[i], 0, 10);
            addr[i][10] = addr[i][11] = 0xff;
            memcpy(addr[i] + 12, &s4->sin_addr, 4);
            *port[i] = ntohs(s4->sin_port);
        } else if (ss[i].ss_family == AF_INET6) {
            const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss[i];
            memcpy(addr[i], &s6->sin6_addr, 16);
            *port[i] = ntohs(s6->sin6_port);
        } else {
            return -1;
        }
    }
    return 0;
}

/* The instrumented server runs afpd under valgrind, whose tools rename the
 * process ("callgrind-amd64"): then its command line names the program. */
static int valgrind_runs(const char *proc_root, const char *pid, const char *comm, const char *name)
{
    if (strncmp(comm, "callgrind-", 10) != 0 && strncmp(comm, "cachegrind-", 11) != 0)
        return 0;
    char path[512], cmdline[4096];
    snprintf(path, sizeof path, "%s/%s/cmdline", proc_root, pid);
    ssize_t n = read_small_file(path, cmdline, sizeof cmdline);
    return n > 0 && instr_valgrind_runs(cmdline, (size_t)n, name);
}

/* Numeric entries of proc_root whose comm equals name (or that run it under
 * valgrind). Returns the count. */
static int find_by_comm(const char *proc_root, const char *name, int *pids, int max)
{
    DIR *d = opendir(proc_root);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char path[512], comm[64];
        snprintf(path, sizeof path, "%s/%s/comm", proc_root, e->d_name);
        if (read_small_file(path, comm, sizeof comm) <= 0)
            continue;
        comm[strcspn(comm, "\n")] = '\0';
        if (strcmp(comm, name) == 0 || valgrind_runs(proc_root, e->d_name, comm, name))
            pids[n++] = atoi(e->d_name);
    }
    closedir(d);
    return n;
}

/* One connection of a /proc/PID/net/tcp or tcp6 table. */
struct tcp_entry {
    uint8_t la[16], ra[16]; /* local and remote address (IPv4 mapped) */
    uint16_t lp, rp;
    unsigned long ino;
};

/* pid's net/tcp (table 0) or net/tcp6 (table 1); NULL when unreadable. */
static FILE *open_tcp_table(const char *proc_root, int pid, int table)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%d/net/%s", proc_root, pid, table == 0 ? "tcp" : "tcp6");
    return fopen(path, "re");
}

/* The next connection in the table (lines that do not parse are skipped).
 * 0 at the end. */
static int next_tcp_entry(FILE *f, struct tcp_entry *e)
{
    char line[512];
    while (fgets(line, sizeof line, f) != NULL)
        if (iomon_parse_tcp_line(line, e->la, &e->lp, e->ra, &e->rp, &e->ino) == 0)
            return 1;
    return 0;
}

/* The inode of the socket in pid's network namespace whose local end is
 * `server` and remote end is `client`; 0 when none. */
static unsigned long find_server_socket(const char *proc_root, int pid, const uint8_t client[16],
                                        uint16_t cport, const uint8_t server[16], uint16_t sport)
{
    for (int t = 0; t < 2; t++) {
        FILE *f = open_tcp_table(proc_root, pid, t);
        if (f == NULL)
            continue;
        struct tcp_entry e;
        unsigned long found = 0;
        while (found == 0 && next_tcp_entry(f, &e))
            if (e.lp == sport && e.rp == cport && memcmp(e.la, server, 16) == 0 &&
                memcmp(e.ra, client, 16) == 0)
                found = e.ino;
        fclose(f);
        if (found != 0)
            return found;
    }
    return 0;
}

/* 1: pid has an fd on socket inode; 0: not; -1: fd/ unreadable. */
static int holds_socket(const char *proc_root, int pid, unsigned long inode)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%d/fd", proc_root, pid);
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    char want[64];
    snprintf(want, sizeof want, "socket:[%lu]", inode);
    int result = 0, unreadable = 0;
    struct dirent *e;
    while (result == 0 && (e = readdir(d)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char path[800], target[64];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n < 0) {
            unreadable = 1;
            continue;
        }
        target[n] = '\0';
        if (strcmp(target, want) == 0)
            result = 1;
    }
    closedir(d);
    return result == 0 && unreadable ? -1 : result;
}

/* Real or effective uid of pid, from its status file; -1 if unknown. */
static long process_uid(const char *proc_root, int pid, int effective)
{
    char path[512], buf[4096];
    snprintf(path, sizeof path, "%s/%d/status", proc_root, pid);
    if (read_small_file(path, buf, sizeof buf) <= 0)
        return -1;
    const char *line = strstr(buf, "\nUid:");
    long real, eff;
    if (line == NULL || sscanf(line + 5, "%ld %ld", &real, &eff) != 2)
        return -1;
    return effective ? eff : real;
}

static int io_readable(const char *proc_root, int pid)
{
    char path[512], buf[1024];
    uint64_t r, w;
    snprintf(path, sizeof path, "%s/%d/io", proc_root, pid);
    return read_small_file(path, buf, sizeof buf) > 0 && iomon_parse_io(buf, &r, &w) == 0;
}

static int highest(const int *pids, int n)
{
    int best = 0;
    for (int i = 0; i < n; i++)
        if (pids[i] > best)
            best = pids[i];
    return best;
}

/* The socket rule. Returns the pid, 0 when no afpd holds our connection,
 * -1 when the tables or fd/ links could not be read. */
static int afpd_by_socket(const char *proc_root, const int *afpds, int n, int sockfd)
{
    uint8_t client[16], server[16];
    uint16_t cport, sport;
    if (socket_ends(sockfd, client, &cport, server, &sport) != 0)
        return -1;
    int unreadable = 0, holders[MAX_CANDIDATES], nh = 0;
    for (int i = 0; i < n; i++) {
        unsigned long inode = find_server_socket(proc_root, afpds[i], client, cport, server, sport);
        if (inode == 0)
            continue;
        int held = holds_socket(proc_root, afpds[i], inode);
        if (held < 0)
            unreadable = 1;
        else if (held > 0)
            holders[nh++] = afpds[i];
    }
    if (nh == 0)
        return unreadable ? -1 : 0;
    /* A parent that has not closed its copy yet runs as root: prefer the
     * session child, which has switched to the logged-in user. */
    for (int i = 0; i < nh; i++)
        if (process_uid(proc_root, holders[i], 1) > 0)
            return holders[i];
    return highest(holders, nh);
}

/* The uid rule (upstream's): an afpd whose real or effective uid is the
 * user's, looked up in this machine's passwd file. */
static int afpd_by_uid(const char *proc_root, const int *afpds, int n, const char *user, int quiet)
{
    struct passwd *pw = getpwnam(user);
    if (pw == NULL)
        return 0;
    int matches[MAX_CANDIDATES], nm = 0;
    for (int i = 0; i < n; i++) {
        long r = process_uid(proc_root, afpds[i], 0), e = process_uid(proc_root, afpds[i], 1);
        if (r == (long)pw->pw_uid || e == (long)pw->pw_uid)
            matches[nm++] = afpds[i];
    }
    if (nm > 1 && !quiet)
        fprintf(stderr, "IO monitoring: warning: %d afpd processes run as '%s'; using the newest\n",
                nm, user);
    return highest(matches, nm);
}

/* Socket inodes in pid's fd/ (at most max). Returns the count, -1 when
 * unreadable. */
static int socket_inodes(const char *proc_root, int pid, unsigned long *inodes, int max)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/%d/fd", proc_root, pid);
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while (n < max && (e = readdir(d)) != NULL) {
        char path[800], target[64];
        unsigned long ino;
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (sscanf(target, "socket:[%lu]", &ino) == 1)
            inodes[n++] = ino;
    }
    closedir(d);
    return n;
}

/* The cnid_dbd at the other end of one of our afpd's TCP connections (afpd
 * connects to cnid_metad, which hands the connection to the volume's
 * cnid_dbd). Several servers on one host all run a cnid_dbd for the same
 * user; only this one serves our session. 0 when not found. */
static int cnid_by_socket(const char *proc_root, int afpd_pid, const int *cands, int ncands)
{
    unsigned long mine[64];
    int nmine = socket_inodes(proc_root, afpd_pid, mine, 64);
    if (nmine <= 0)
        return 0;
    for (int t = 0; t < 2; t++) {
        FILE *f = open_tcp_table(proc_root, afpd_pid, t);
        if (f == NULL)
            continue;
        /* Our afpd's connections. */
        struct tcp_entry conns[64], e;
        int nconns = 0;
        while (nconns < 64 && next_tcp_entry(f, &e)) {
            if (e.ino == 0)
                continue;
            for (int i = 0; i < nmine; i++) {
                if (mine[i] == e.ino) {
                    conns[nconns++] = e;
                    break;
                }
            }
        }
        /* Their far ends, and which cnid_dbd holds one. */
        rewind(f);
        int found = 0;
        while (!found && next_tcp_entry(f, &e)) {
            if (e.ino == 0)
                continue;
            for (int i = 0; i < nconns && !found; i++) {
                if (e.lp != conns[i].rp || e.rp != conns[i].lp ||
                    memcmp(e.la, conns[i].ra, 16) != 0 || memcmp(e.ra, conns[i].la, 16) != 0)
                    continue;
                for (int k = 0; k < ncands && !found; k++)
                    if (holds_socket(proc_root, cands[k], e.ino) == 1)
                        found = cands[k];
            }
        }
        fclose(f);
        if (found)
            return found;
    }
    return 0;
}

static int find_cnid_dbd(const char *proc_root, int afpd_pid, const char *user, int quiet,
                         const char **rule)
{
    int pids[MAX_CANDIDATES], matches[MAX_CANDIDATES], nm = 0;
    int n = find_by_comm(proc_root, "cnid_dbd", pids, MAX_CANDIDATES);
    if (n <= 0)
        return 0;
    int pid = cnid_by_socket(proc_root, afpd_pid, pids, n);
    if (pid > 0) {
        *rule = "socket";
        return pid;
    }
    for (int i = 0; i < n; i++) {
        char path[512], cmdline[4096];
        snprintf(path, sizeof path, "%s/%d/cmdline", proc_root, pids[i]);
        long len = read_small_file(path, cmdline, sizeof cmdline);
        if (len > 0 && iomon_cmdline_has_user(cmdline, (unsigned long)len, user))
            matches[nm++] = pids[i];
    }
    if (nm > 1 && !quiet)
        fprintf(stderr,
                "IO monitoring: warning: %d cnid_dbd processes for '%s' and none "
                "connected to our afpd; using the newest\n",
                nm, user);
    *rule = "user";
    return highest(matches, nm);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void iomon_start(struct iomon *m, const char *proc_root, int sockfd, const char *user, int quiet)
{
    memset(m, 0, sizeof *m);
    snprintf(m->proc_root, sizeof m->proc_root, "%s", proc_root);

    struct stat st;
    if (stat(proc_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(m->reason, sizeof m->reason, "%s is not a directory (mount a procfs there)",
                 proc_root);
        goto off;
    }
    int afpds[MAX_CANDIDATES];
    int n = find_by_comm(proc_root, "afpd", afpds, MAX_CANDIDATES);
    if (n <= 0) {
        snprintf(m->reason, sizeof m->reason,
                 "no afpd process visible under %s (server elsewhere, or hidepid)", proc_root);
        goto off;
    }
    int pid = afpd_by_socket(proc_root, afpds, n, sockfd);
    if (pid > 0) {
        m->rule = "socket";
    } else {
        const char *why = pid < 0 ? "its fd/ links or net/tcp are unreadable"
                                  : "no afpd holds our TCP connection (NAT or another namespace?)";
        pid = afpd_by_uid(proc_root, afpds, n, user, quiet);
        if (pid <= 0) {
            snprintf(m->reason, sizeof m->reason,
                     "our afpd not found: socket rule failed (%s) and no afpd runs as '%s'", why,
                     user);
            goto off;
        }
        m->rule = "uid";
        snprintf(m->reason, sizeof m->reason, "socket rule failed (%s); used the uid rule", why);
    }
    if (!io_readable(proc_root, pid)) {
        snprintf(m->reason, sizeof m->reason, "%s/%d/io of afpd is not readable", proc_root, pid);
        m->rule = NULL;
        goto off;
    }
    m->afpd_pid = pid;
    m->enabled = 1;

    /* cnid_dbd is started on the first volume open; give it a moment. */
    for (int attempt = 0; attempt < 3 && m->cnid_pid == 0; attempt++) {
        int c = find_cnid_dbd(proc_root, pid, user, quiet, &m->cnid_rule);
        if (c > 0 && io_readable(proc_root, c)) {
            m->cnid_pid = c;
        } else {
            m->cnid_rule = NULL;
            if (attempt < 2)
                sleep_ms(300);
        }
    }
    if (!quiet) {
        fprintf(stderr, "IO monitoring enabled (afpd: %d found by the %s rule, cnid_dbd: ", pid,
                m->rule);
        if (m->cnid_pid)
            fprintf(stderr, "%d found by the %s rule)\n", m->cnid_pid, m->cnid_rule);
        else
            fprintf(stderr, "not found)\n");
        if (m->reason[0])
            fprintf(stderr, "IO monitoring: note: %s\n", m->reason);
    }
    return;
off:
    if (!quiet)
        fprintf(stderr, "IO monitoring off: %s\n", m->reason);
}

static int sample_one(const char *proc_root, int pid, uint64_t *r, uint64_t *w)
{
    char path[512], buf[1024];
    if (pid <= 0)
        return 0;
    snprintf(path, sizeof path, "%s/%d/io", proc_root, pid);
    return read_small_file(path, buf, sizeof buf) > 0 && iomon_parse_io(buf, r, w) == 0;
}

void iomon_sample(const struct iomon *m, struct iomon_sample *s)
{
    memset(s, 0, sizeof *s);
    if (!m->enabled)
        return;
    s->afpd_ok = sample_one(m->proc_root, m->afpd_pid, &s->afpd_r, &s->afpd_w);
    s->cnid_ok = sample_one(m->proc_root, m->cnid_pid, &s->cnid_r, &s->cnid_w);
}

/* Finding the server's processes through a procfs that shows them: our
 * session's afpd, the volume's cnid_dbd, and the afpds of many sessions at
 * once (afpbench load).
 *
 * Which afpd is ours: netatalk forks one afpd per session, and every one of
 * them may run as the same user, so the user alone is ambiguous (and the
 * client's passwd file may not even know the server's uids). The socket is
 * not ambiguous: the afpd holding the server end of our TCP connection is
 * our session. Its net/tcp{,6} (the table of its own network namespace, so
 * this also works across containers that share a PID namespace) gives the
 * socket inode for our address pair, and its fd/ links name that inode. */
#include "iomon_find.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "instr.h"
#include "procfile.h"

#define MAX_CANDIDATES 1024 /* afpd processes: a load test on the same host runs hundreds */

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

/* Hex digits at *p (at most max of them, and at least one) into out as a
 * string; advances *p. -1 when there are none or too many. */
static int take_hex(const char **p, char *out, size_t max)
{
    size_t n = 0;
    while (isxdigit((unsigned char)(*p)[n])) {
        if (n == max)
            return -1;
        out[n] = (*p)[n];
        n++;
    }
    out[n] = '\0';
    *p += n;
    return n == 0 ? -1 : 0;
}

/* A hex port of at most 4 digits. */
static int take_port(const char **p, uint16_t *port)
{
    char hex[5];
    if (take_hex(p, hex, 4) != 0)
        return -1;
    *port = (uint16_t)strtoul(hex, NULL, 16);
    return 0;
}

/* Past one field and the spaces after it. */
static const char *skip_field(const char *p)
{
    while (*p != '\0' && *p != ' ')
        p++;
    while (*p == ' ')
        p++;
    return p;
}

/* By hand rather than sscanf: the start-up reads every line of the
 * machine's tables for each candidate afpd, and sscanf was most of the IO
 * monitor's start-up cost (docs/client-speed.md). */
int iomon_parse_tcp_line(const char *line, uint8_t local[16], uint16_t *lport, uint8_t remote[16],
                         uint16_t *rport, unsigned long *inode)
{
    char lhex[33], rhex[33], digits[24];
    uint16_t lp, rp;
    const char *p = line;
    while (*p == ' ')
        p++;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p++ != ':')
        return -1;
    while (*p == ' ')
        p++;
    if (take_hex(&p, lhex, 32) != 0 || *p++ != ':' || take_port(&p, &lp) != 0 || *p++ != ' ' ||
        take_hex(&p, rhex, 32) != 0 || *p++ != ':' || take_port(&p, &rp) != 0 || *p++ != ' ')
        return -1;
    /* st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, timeout, then inode */
    for (int f = 0; f < 6; f++) {
        if (*p == '\0' || *p == '\n')
            return -1;
        p = skip_field(p);
    }
    size_t n = 0;
    while (isdigit((unsigned char)p[n]) && n < sizeof digits - 1) {
        digits[n] = p[n];
        n++;
    }
    digits[n] = '\0';
    if (n == 0 || isdigit((unsigned char)p[n]))
        return -1;
    if (parse_hex_addr(lhex, local) != 0 || parse_hex_addr(rhex, remote) != 0)
        return -1;
    *lport = lp;
    *rport = rp;
    *inode = strtoul(digits, NULL, 10);
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
    ssize_t n = procfile_read(path, cmdline, sizeof cmdline);
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
        if (procfile_read(path, comm, sizeof comm) <= 0)
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
    if (procfile_read(path, buf, sizeof buf) <= 0)
        return -1;
    const char *line = strstr(buf, "\nUid:");
    long real, eff;
    if (line == NULL || sscanf(line + 5, "%ld %ld", &real, &eff) != 2)
        return -1;
    return effective ? eff : real;
}

static int highest(const int *pids, int n)
{
    int best = 0;
    for (int i = 0; i < n; i++)
        if (pids[i] > best)
            best = pids[i];
    return best;
}

/* The parent of pid, from its stat file ("pid (comm) S ppid ..."); -1 if unknown. */
static int process_ppid(const char *proc_root, int pid)
{
    char path[512], buf[1024];
    snprintf(path, sizeof path, "%s/%d/stat", proc_root, pid);
    long n = procfile_read(path, buf, sizeof buf);
    if (n <= 0)
        return -1;
    const char *paren = memrchr(buf, ')', (size_t)n);
    int ppid;
    char state;
    if (paren == NULL || sscanf(paren + 1, " %c %d", &state, &ppid) != 2)
        return -1;
    return ppid;
}

/* Which of the afpds holding one connection serves it. A parent that has not
 * closed its copy yet runs as root; the session child has switched to the
 * logged-in user. A process the session child forks inherits the socket and
 * runs as the user too, and may exit at any time: the holder whose parent
 * holds no copy is the session's (measured: a load step of 8 sessions beside
 * two busy loops mapped 3 of them to such short-lived children, whose
 * counters were gone by the step's end). */
static int session_holder(const char *proc_root, const int *holders, int nh)
{
    int as_user = 0;
    for (int i = 0; i < nh; i++) {
        if (process_uid(proc_root, holders[i], 1) <= 0)
            continue;
        if (as_user == 0)
            as_user = holders[i];
        int parent = process_ppid(proc_root, holders[i]), child_of_holder = 0;
        for (int k = 0; k < nh && !child_of_holder; k++)
            child_of_holder = holders[k] == parent;
        if (!child_of_holder)
            return holders[i];
    }
    return as_user != 0 ? as_user : highest(holders, nh);
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
    return session_holder(proc_root, holders, nh);
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
/* The cnid_dbd at the far end of one of our afpd's TCP connections; 0 when
 * none is (a CNID backend inside afpd, such as SQLite, has no cnid_dbd), -1
 * when afpd's sockets or TCP tables could not be read. */
static int cnid_by_socket(const char *proc_root, int afpd_pid, const int *cands, int ncands)
{
    unsigned long mine[64];
    int nmine = socket_inodes(proc_root, afpd_pid, mine, 64);
    if (nmine <= 0)
        return -1;
    int tables = 0;
    for (int t = 0; t < 2; t++) {
        FILE *f = open_tcp_table(proc_root, afpd_pid, t);
        if (f == NULL)
            continue;
        tables++;
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
    return tables > 0 ? 0 : -1;
}

int iomon_find_cnid_dbd(const char *proc_root, int afpd_pid, const char *user, int quiet,
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
    /* The tables were read and no cnid_dbd serves our afpd: another server's
     * (there may be several on this host) is not ours to count. */
    if (pid == 0)
        return 0;
    for (int i = 0; i < n; i++) {
        char path[512], cmdline[4096];
        snprintf(path, sizeof path, "%s/%d/cmdline", proc_root, pids[i]);
        long len = procfile_read(path, cmdline, sizeof cmdline);
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

int iomon_find_afpd(const char *proc_root, int sockfd, const char *user, int quiet,
                    const char **rule, char *note, size_t notelen)
{
    int afpds[MAX_CANDIDATES];
    *rule = NULL;
    note[0] = '\0';
    int n = find_by_comm(proc_root, "afpd", afpds, MAX_CANDIDATES);
    if (n <= 0) {
        snprintf(note, notelen, "no afpd process visible under %s (server elsewhere, or hidepid)",
                 proc_root);
        return 0;
    }
    int pid = afpd_by_socket(proc_root, afpds, n, sockfd);
    if (pid > 0) {
        *rule = "socket";
        return pid;
    }
    const char *why = pid < 0 ? "its fd/ links or net/tcp are unreadable"
                              : "no afpd holds our TCP connection (NAT or another namespace?)";
    pid = afpd_by_uid(proc_root, afpds, n, user, quiet);
    if (pid <= 0) {
        snprintf(note, notelen,
                 "our afpd not found: socket rule failed (%s) and no afpd runs as '%s'", why, user);
        return 0;
    }
    *rule = "uid";
    snprintf(note, notelen, "socket rule failed (%s); used the uid rule", why);
    return pid;
}

struct inode_pid {
    unsigned long ino;
    int pid;
};

static int cmp_inode_pid(const void *a, const void *b)
{
    unsigned long x = ((const struct inode_pid *)a)->ino, y = ((const struct inode_pid *)b)->ino;
    return x < y ? -1 : x > y;
}

#define MAP_MAX_AFPD 4096
#define MAP_MAX_FDS 8192

/* The net namespace of pid as its link text ("net:[4026531840]"); "" if unreadable. */
static void net_ns(const char *proc_root, int pid, char *buf, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%d/ns/net", proc_root, pid);
    ssize_t n = readlink(path, buf, len - 1);
    buf[n > 0 ? n : 0] = '\0';
}

int iomon_map_sessions(const char *proc_root, const int *fds, int n, int *pids, char *why,
                       size_t whylen)
{
    for (int i = 0; i < n; i++)
        pids[i] = 0;
    int *afpds = malloc(MAP_MAX_AFPD * sizeof *afpds);
    unsigned long *inodes = malloc(MAP_MAX_FDS * sizeof *inodes);
    struct inode_pid *map = NULL;
    int *by_port = calloc(65536, sizeof *by_port); /* client port -> index + 1 */
    uint8_t(*ends)[2][16] = calloc((size_t)(n > 0 ? n : 1), sizeof *ends);
    uint16_t(*ports)[2] = calloc((size_t)(n > 0 ? n : 1), sizeof *ports);
    int mapped = -1, nmap = 0, cap = 0;
    if (!afpds || !inodes || !by_port || !ends || !ports) {
        snprintf(why, whylen, "out of memory");
        goto out;
    }
    int na = find_by_comm(proc_root, "afpd", afpds, MAP_MAX_AFPD);
    if (na <= 0) {
        snprintf(why, whylen, "no afpd process visible under %s (server elsewhere, or hidepid)",
                 proc_root);
        goto out;
    }
    mapped = 0;
    /* Every afpd's sockets. */
    for (int a = 0; a < na; a++) {
        int k = socket_inodes(proc_root, afpds[a], inodes, MAP_MAX_FDS);
        for (int j = 0; j < k; j++) {
            if (nmap == cap) {
                int ncap = cap ? cap * 2 : 1024;
                struct inode_pid *m = realloc(map, (size_t)ncap * sizeof *m);
                if (m == NULL)
                    goto out;
                map = m;
                cap = ncap;
            }
            map[nmap].ino = inodes[j];
            map[nmap++].pid = afpds[a];
        }
    }
    if (nmap > 0)
        qsort(map, (size_t)nmap, sizeof *map, cmp_inode_pid);
    /* Our sockets by client port. */
    int want = 0;
    for (int i = 0; i < n; i++) {
        if (fds[i] < 0 || socket_ends(fds[i], ends[i][0], &ports[i][0], ends[i][1], &ports[i][1]))
            continue;
        by_port[ports[i][0]] = i + 1;
        want++;
    }
    /* One TCP table per network namespace the afpds live in. The kernel
     * lists a table a page at a time, so a read while other connections come
     * and go can skip one of ours: the sessions left out get up to two more
     * reads. A namespace counts as read once one of its tables opened (an
     * afpd may exit between the listing and here). */
    for (int pass = 0; pass < 3 && mapped < want; pass++) {
        char seen[16][64];
        int nseen = 0;
        for (int a = 0; a < na && nseen < 16; a++) {
            char ns[64];
            net_ns(proc_root, afpds[a], ns, sizeof ns);
            int dup = 0;
            for (int k = 0; k < nseen; k++)
                dup |= strcmp(seen[k], ns) == 0;
            if (dup)
                continue;
            int opened = 0;
            for (int t = 0; t < 2; t++) {
                FILE *f = open_tcp_table(proc_root, afpds[a], t);
                if (f == NULL)
                    continue;
                opened = 1;
                struct tcp_entry e;
                while (next_tcp_entry(f, &e)) {
                    int i = by_port[e.rp] - 1;
                    if (i < 0 || pids[i] != 0 || e.lp != ports[i][1] ||
                        memcmp(e.la, ends[i][1], 16) != 0 || memcmp(e.ra, ends[i][0], 16) != 0)
                        continue;
                    struct inode_pid key = {.ino = e.ino};
                    struct inode_pid *hit =
                        nmap ? bsearch(&key, map, (size_t)nmap, sizeof *map, cmp_inode_pid) : NULL;
                    if (hit == NULL)
                        continue;
                    /* Several holders: the session's (session_holder) */
                    while (hit > map && hit[-1].ino == e.ino)
                        hit--;
                    int holders[MAX_CANDIDATES], nh = 0;
                    for (struct inode_pid *h = hit;
                         h < map + nmap && h->ino == e.ino && nh < MAX_CANDIDATES; h++)
                        holders[nh++] = h->pid;
                    pids[i] = nh == 1 ? holders[0] : session_holder(proc_root, holders, nh);
                    mapped++;
                }
                fclose(f);
            }
            if (opened)
                snprintf(seen[nseen++], sizeof seen[0], "%s", ns);
        }
    }
    if (mapped == 0)
        snprintf(why, whylen, "no afpd under %s holds one of our connections", proc_root);
out:
    free(afpds);
    free(inodes);
    free(map);
    free(by_port);
    free(ends);
    free(ports);
    return mapped;
}

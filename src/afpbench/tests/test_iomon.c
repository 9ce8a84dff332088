/* iomon.c: parsers, and process discovery on a fake proc root.
 *
 * The fake proc root (a temporary directory) stands in for the server's
 * procfs, which cannot be made to order: it holds two afpd sessions of the
 * same user and two cnid_dbd processes. The TCP connection is real (a
 * loopback socket pair made here), so the socket rule is exercised with the
 * addresses getsockname/getpeername really return. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "iomon.h"
#include "iomon_find.h"
#include "iomon_group.h"

static void test_parse_io(void)
{
    struct iomon_io io = {0};
    CHECK_INT(iomon_parse_io("rchar: 1\nwchar: 2\nsyscr: 345\nsyscw: 678\nread_bytes: 0\n", &io),
              0);
    CHECK_INT(io.syscr, 345);
    CHECK_INT(io.syscw, 678);
    CHECK_INT(io.rchar, 1);
    CHECK_INT(io.wchar, 2);
    CHECK_INT(iomon_parse_io("syscr: 1\nsyscw: 2\n", &io), -1); /* no byte counts */
    CHECK_INT(iomon_parse_io("", &io), -1);
}

static void test_parse_schedstat(void)
{
    uint64_t ns = 0, wait = 0;
    CHECK_INT(iomon_parse_schedstat("751844 272478 8\n", &ns, &wait), 0);
    CHECK_INT(ns, 751844);
    CHECK_INT(wait, 272478);
    CHECK_INT(iomon_parse_schedstat("18446744073709551615 0 0\n", &ns, &wait), 0);
    CHECK(ns == UINT64_MAX);
    CHECK_INT(iomon_parse_schedstat("", &ns, &wait), -1);
    CHECK_INT(iomon_parse_schedstat("-5 0 0", &ns, &wait), -1);
    CHECK_INT(iomon_parse_schedstat("12x 0 0", &ns, &wait), -1);
    CHECK_INT(iomon_parse_schedstat("12 x 0", &ns, &wait), -1); /* no wait field */
    CHECK_INT(iomon_parse_schedstat("12", &ns, &wait), -1);
}

static void test_parse_hwm(void)
{
    uint64_t kb = 0;
    CHECK_INT(iomon_parse_hwm("Name:\tafpd\nVmPeak:\t  251220 kB\nVmSize:\t  251156 kB\n"
                              "VmHWM:\t    7492 kB\nVmRSS:\t    7404 kB\n",
                              &kb),
              0);
    CHECK_INT(kb, 7492);
    /* VmPeak is virtual memory: never taken for the peak resident size */
    CHECK_INT(iomon_parse_hwm("Name:\tafpd\nVmPeak:\t  251220 kB\n", &kb), -1);
    CHECK_INT(iomon_parse_hwm("VmHWM:\t7492 kB\n", &kb), -1); /* never the first line */
    CHECK_INT(iomon_parse_hwm("Name:\tx\nVmHWM:\t -1 kB\n", &kb), -1);
    CHECK_INT(iomon_parse_hwm("Name:\tx\nVmHWM:\t 12 MB\n", &kb), -1);
    CHECK_INT(iomon_parse_hwm("Name:\tx\nVmHWM:\t 99999999999999999999999 kB\n", &kb), -1);
    CHECK_INT(iomon_parse_hwm("", &kb), -1);
}

static void test_parse_tcp_lines(void)
{
    uint8_t la[16], ra[16];
    uint16_t lp, rp;
    unsigned long ino;
    /* 127.0.0.1:10570 <- 127.0.0.1:45768 (x86 procfs byte order) */
    const char *v4 = "   3: 0100007F:294A 0100007F:B2C8 01 00000000:00000000 00:00000000 "
                     "00000000  1548        0 76543 1 0000000000000000 20 4 30 10 -1\n";
    CHECK_INT(iomon_parse_tcp_line(v4, la, &lp, ra, &rp, &ino), 0);
    CHECK_INT(lp, 10570);
    CHECK_INT(rp, 45768);
    CHECK_INT(ino, 76543);
    struct in_addr lo;
    inet_pton(AF_INET, "127.0.0.1", &lo);
    CHECK(la[10] == 0xff && la[11] == 0xff && memcmp(la + 12, &lo, 4) == 0);
    /* ::1 port 548 */
    const char *v6 = "   0: 00000000000000000000000001000000:0224 "
                     "00000000000000000000000001000000:D431 01 00000000:00000000 00:00000000 "
                     "00000000     0        0 999 1 0000000000000000 20 4 1 10 -1\n";
    CHECK_INT(iomon_parse_tcp_line(v6, la, &lp, ra, &rp, &ino), 0);
    struct in6_addr lo6;
    inet_pton(AF_INET6, "::1", &lo6);
    CHECK(memcmp(la, &lo6, 16) == 0);
    CHECK_INT(lp, 548);
    CHECK_INT(ino, 999);
    /* header and junk */
    CHECK_INT(iomon_parse_tcp_line("  sl  local_address rem_address   st tx_queue", la, &lp, ra,
                                   &rp, &ino),
              -1);
    CHECK_INT(iomon_parse_tcp_line("   1: 0100007F:FFFFF 0100007F:0001 01 x x x x x 5", la, &lp, ra,
                                   &rp, &ino),
              -1);
    CHECK_INT(iomon_parse_tcp_line("   1: 0100:0001 0100007F:0001 01 x x x x x 5", la, &lp, ra, &rp,
                                   &ino),
              -1);
    /* cut short before the inode, or no fields at all after the addresses */
    CHECK_INT(iomon_parse_tcp_line("   1: 0100007F:0001 0100007F:0001 01 x x x x\n", la, &lp, ra,
                                   &rp, &ino),
              -1);
    CHECK_INT(iomon_parse_tcp_line("   1: 0100007F:0001 0100007F:0001", la, &lp, ra, &rp, &ino),
              -1);
    /* an inode of more digits than any unsigned long */
    CHECK_INT(iomon_parse_tcp_line("   1: 0100007F:0001 0100007F:0001 01 x x x x x "
                                   "123456789012345678901234567890",
                                   la, &lp, ra, &rp, &ino),
              -1);
    /* no row number, or a 33-digit address */
    CHECK_INT(iomon_parse_tcp_line(": 0100007F:0001 0100007F:0001 01 x x x x x 5", la, &lp, ra, &rp,
                                   &ino),
              -1);
    CHECK_INT(iomon_parse_tcp_line("   1: 000000000000000000000000010000000:0001 0100007F:0001 01 "
                                   "x x x x x 5",
                                   la, &lp, ra, &rp, &ino),
              -1);
    CHECK_INT(iomon_parse_tcp_line("   1: 0100007F:0001 0100007F:0001 01 x x x x x 5", la, &lp, ra,
                                   &rp, &ino),
              0);
    CHECK_INT(ino, 5);
}

static void test_cmdline_user(void)
{
    static const char cmd[] = "/usr/sbin/cnid_dbd\0-F\0/etc/afp.conf\0-u\0afpbench\0-d";
    CHECK(iomon_cmdline_has_user(cmd, sizeof cmd, "afpbench"));
    CHECK(!iomon_cmdline_has_user(cmd, sizeof cmd, "afpben"));
    CHECK(!iomon_cmdline_has_user(cmd, sizeof cmd, "-d"));
    static const char tail[] = "cnid_dbd\0-u";
    CHECK(!iomon_cmdline_has_user(tail, sizeof tail - 1, "afpbench"));
}

/* ---- the fake proc root ---- */

static char root[] = "/tmp/afpbench-iomon-XXXXXX";

static void put(const char *rel, const char *text, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
}

static void mkproc(int pid, const char *comm, long uid, const char *cmdline, size_t cmdlen,
                   unsigned long long syscr)
{
    char rel[128], text[256];
    snprintf(rel, sizeof rel, "%s/%d", root, pid);
    mkdir(rel, 0755);
    snprintf(rel, sizeof rel, "%s/%d/fd", root, pid);
    mkdir(rel, 0755);
    snprintf(rel, sizeof rel, "%s/%d/net", root, pid);
    mkdir(rel, 0755);
    snprintf(rel, sizeof rel, "%d/comm", pid);
    snprintf(text, sizeof text, "%s\n", comm);
    put(rel, text, strlen(text));
    snprintf(rel, sizeof rel, "%d/status", pid);
    snprintf(text, sizeof text, "Name:\t%s\nUid:\t%ld\t%ld\t%ld\t%ld\n", comm, uid, uid, uid, uid);
    put(rel, text, strlen(text));
    snprintf(rel, sizeof rel, "%d/io", pid);
    snprintf(text, sizeof text, "rchar: %llu\nwchar: 1\nsyscr: %llu\nsyscw: %llu\n", syscr * 10,
             syscr, syscr + 1);
    put(rel, text, strlen(text));
    snprintf(rel, sizeof rel, "%d/schedstat", pid);
    snprintf(text, sizeof text, "%llu 5 7\n", syscr * 1000);
    put(rel, text, strlen(text));
    snprintf(rel, sizeof rel, "%d/cmdline", pid);
    put(rel, cmdline, cmdlen);
}

static void fd_link(int pid, int fd, unsigned long inode)
{
    char path[512], target[64];
    snprintf(path, sizeof path, "%s/%d/fd/%d", root, pid, fd);
    snprintf(target, sizeof target, "socket:[%lu]", inode);
    if (symlink(target, path) != 0)
        perror("symlink");
}

/* A /proc/net/tcp line for an IPv4 pair (addresses in network order). */
static void tcp_line(char *out, size_t len, int slot, struct sockaddr_in *l, struct sockaddr_in *r,
                     unsigned long inode)
{
    uint32_t la, ra;
    memcpy(&la, &l->sin_addr, 4);
    memcpy(&ra, &r->sin_addr, 4);
    snprintf(out, len,
             "%4d: %08X:%04X %08X:%04X 01 00000000:00000000 00:00000000 00000000  1548 0 %lu "
             "1 0000000000000000 20 4 30 10 -1\n",
             slot, la, ntohs(l->sin_port), ra, ntohs(r->sin_port), inode);
}

static void test_discovery_socket_rule(void)
{
    CHECK(mkdtemp(root) != NULL);

    /* Our connection: a real loopback pair. */
    int lsn = socket(AF_INET, SOCK_STREAM, 0), cli = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    CHECK_INT(bind(lsn, (struct sockaddr *)&a, sizeof a), 0);
    CHECK_INT(listen(lsn, 1), 0);
    CHECK_INT(getsockname(lsn, (struct sockaddr *)&a, &alen), 0);
    CHECK_INT(connect(cli, (struct sockaddr *)&a, sizeof a), 0);
    struct sockaddr_in me, srv;
    alen = sizeof me;
    getsockname(cli, (struct sockaddr *)&me, &alen);
    alen = sizeof srv;
    getpeername(cli, (struct sockaddr *)&srv, &alen);

    /* Two sessions of the same user: 300 is ours, 400 (newer) is not. A
     * cnid_metad-style port 14570 connects afpd 300 to cnid_dbd 500; the
     * decoy cnid_dbd 600 runs for the same user on another server. */
    static const char afpd_cmd[] = "afpd\0-d";
    static const char cnid_cmd[] = "cnid_dbd\0-F\0x\0-u\0someone\0-d";
    mkproc(1, "netatalk", 0, afpd_cmd, sizeof afpd_cmd, 1);
    mkproc(300, "afpd", 1548, afpd_cmd, sizeof afpd_cmd, 1000);
    mkproc(400, "afpd", 1548, afpd_cmd, sizeof afpd_cmd, 2000);
    mkproc(500, "cnid_dbd", 0, cnid_cmd, sizeof cnid_cmd, 3000);
    mkproc(600, "cnid_dbd", 0, cnid_cmd, sizeof cnid_cmd, 4000);

    struct sockaddr_in other = me, cnid_srv = srv, cnid_cli = me;
    other.sin_port = htons(40000);
    cnid_srv.sin_port = htons(14570);
    cnid_cli.sin_port = htons(52584);
    char tcp[2048], line[256];
    tcp[0] = '\0';
    strcat(tcp, "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt"
                "   uid  timeout inode\n");
    tcp_line(line, sizeof line, 0, &srv, &me, 111); /* server end of OUR connection */
    strcat(tcp, line);
    tcp_line(line, sizeof line, 1, &srv, &other, 222); /* the other session */
    strcat(tcp, line);
    tcp_line(line, sizeof line, 2, &cnid_cli, &cnid_srv, 333); /* afpd 300 -> cnid */
    strcat(tcp, line);
    tcp_line(line, sizeof line, 3, &cnid_srv, &cnid_cli, 444); /* cnid_dbd 500's end */
    strcat(tcp, line);
    static const int pids[] = {300, 400, 500, 600};
    for (size_t i = 0; i < 4; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "%d/net/tcp", pids[i]);
        put(rel, tcp, strlen(tcp));
    }
    fd_link(300, 4, 333);
    fd_link(300, 6, 111);
    fd_link(400, 6, 222);
    fd_link(500, 5, 444);
    fd_link(600, 5, 555);

    struct iomon m;
    iomon_start(&m, root, cli, "someone", 1);
    CHECK(m.enabled);
    CHECK_INT(m.afpd_pid, 300);
    CHECK_STR(m.rule, "socket");
    CHECK_INT(m.cnid_pid, 500);
    CHECK_STR(m.cnid_rule, "socket");

    struct iomon_sample smp;
    iomon_sample(&m, &smp);
    CHECK(smp.afpd_ok && smp.cnid_ok);
    CHECK_INT(smp.afpd_r, 1000);
    CHECK_INT(smp.afpd_w, 1001);
    CHECK_INT(smp.afpd_rchar, 10000);
    CHECK_INT(smp.cnid_r, 3000);
    CHECK(smp.afpd_cpu_ok && smp.cnid_cpu_ok);
    CHECK_INT(smp.afpd_cpu_ns, 1000000);
    CHECK_INT(smp.afpd_wait_ns, 5);
    CHECK_INT(smp.cnid_cpu_ns, 3000000);
    iomon_stop(&m);
    iomon_stop(&m);         /* twice is harmless */
    iomon_sample(&m, &smp); /* stopped: nothing read */
    CHECK(!smp.afpd_ok && !smp.afpd_cpu_ok);

    /* Our afpd without a connection to any cnid_dbd (a SQLite volume: the
     * CNID work is afpd's own), its tables readable: no cnid_dbd, though two
     * of the user's run for other servers. */
    char fdpath[512];
    snprintf(fdpath, sizeof fdpath, "%s/300/fd/4", root);
    CHECK_INT(unlink(fdpath), 0);
    iomon_start(&m, root, cli, "someone", 1);
    CHECK(m.enabled);
    CHECK_INT(m.afpd_pid, 300);
    CHECK_INT(m.cnid_pid, 0);
    CHECK(m.cnid_rule == NULL);
    iomon_stop(&m);
    fd_link(300, 4, 333);

    /* Without the socket tables: the uid rule (user root = uid 0 here, so
     * make the sessions root's) and the -u rule for cnid_dbd. */
    for (size_t i = 0; i < 4; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%d/net/tcp", root, pids[i]);
        unlink(path);
    }
    mkproc(300, "afpd", 0, afpd_cmd, sizeof afpd_cmd, 1000);
    mkproc(400, "afpd", 0, afpd_cmd, sizeof afpd_cmd, 2000);
    static const char root_cnid[] = "cnid_dbd\0-u\0root";
    mkproc(500, "cnid_dbd", 0, root_cnid, sizeof root_cnid, 3000);
    iomon_start(&m, root, cli, "root", 1);
    CHECK(m.enabled);
    CHECK_STR(m.rule, "uid");
    CHECK_INT(m.afpd_pid, 400); /* ambiguous: the newest, with a warning */
    CHECK(strstr(m.reason, "socket rule failed") != NULL);
    CHECK_INT(m.cnid_pid, 500);
    CHECK_STR(m.cnid_rule, "user");

    /* Our afpd's process gone: its counters are marked unknown. The files
     * stay open while monitoring runs; a dead process's files read empty
     * (here: truncated) or fail. */
    char path[512];
    snprintf(path, sizeof path, "%s/400/io", root);
    CHECK_INT(truncate(path, 0), 0);
    snprintf(path, sizeof path, "%s/400/schedstat", root);
    CHECK_INT(truncate(path, 0), 0);
    iomon_sample(&m, &smp);
    CHECK(!smp.afpd_ok && !smp.afpd_cpu_ok);
    CHECK(smp.cnid_ok && smp.cnid_cpu_ok);
    iomon_stop(&m);
    snprintf(path, sizeof path, "%s/400/io", root);

    /* No such proc root: off, with the reason. */
    iomon_start(&m, "/nonexistent-proc", cli, "root", 1);
    CHECK(!m.enabled);
    CHECK(strstr(m.reason, "/nonexistent-proc") != NULL);

    close(cli);
    close(lsn);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

/* A group over three real processes: one that runs on, one that ends and
 * is left a zombie (its parent has not reaped it: its counters still read),
 * one that ends and is reaped. The first is sampled, the other two lost. */
static void test_group_lost(void)
{
    int pids[3];
    for (int i = 0; i < 3; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            pause();
            _exit(0);
        }
        CHECK(pids[i] > 0);
    }
    struct iomon_group g;
    CHECK_INT(iomon_group_open(&g, "/proc", pids, 3), 0);
    iomon_group_start(&g);
    kill(pids[1], SIGKILL);
    kill(pids[2], SIGKILL);
    CHECK_INT(waitpid(pids[2], NULL, 0), pids[2]);
    /* pids[1] is a zombie once its stat says so */
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", pids[1]);
    for (int k = 0; k < 1000; k++) {
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        if (p != NULL && p[1] == ' ' && p[2] == 'Z')
            break;
        usleep(1000);
    }
    struct iomon_group_delta d;
    iomon_group_end(&g, &d);
    CHECK_INT(d.sampled, 1);
    CHECK_INT(d.lost, 2);
    iomon_group_close(&g);
    kill(pids[0], SIGKILL);
    waitpid(pids[0], NULL, 0);
    waitpid(pids[1], NULL, 0);
}

int main(void)
{
    RUN(test_parse_io);
    RUN(test_parse_schedstat);
    RUN(test_parse_hwm);
    RUN(test_parse_tcp_lines);
    RUN(test_cmdline_user);
    RUN(test_discovery_socket_rule);
    RUN(test_group_lost);
    return harness_report();
}

/* sysmon.c: the parsers, the delta, and counting a real process's system
 * calls through the kernel (a child of this test stands in for afpd).
 *
 * The counting tests need what afpbench needs for it: root (or CAP_BPF and
 * CAP_PERFMON) and a kernel with bpf(). Where they are missing the tests
 * say so and fail, unless AFPBENCH_TEST_NO_BPF=1 says this machine cannot
 * count (then they check the refusal names its cause). */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "sysmon.h"

static void test_parse_nspid(void)
{
    CHECK_INT(sysmon_parse_nspid("Name:\tafpd\nNSpid:\t4242\t17\nNSpgid:\t1\n"), 17);
    CHECK_INT(sysmon_parse_nspid("Name:\tafpd\nNSpid:\t4242\n"), 4242);
    CHECK_INT(sysmon_parse_nspid("NSpid:\t4242"), 4242);
    CHECK_INT(sysmon_parse_nspid("Name:\tafpd\n"), 0);
    CHECK_INT(sysmon_parse_nspid("NSpid:\t-3\n"), 0);
    CHECK_INT(sysmon_parse_nspid("NSpid:\t12x\n"), 0);
    CHECK_INT(sysmon_parse_nspid("NSpid:\t99999999999999999999\n"), 0);
    CHECK_INT(sysmon_parse_nspid(""), 0);
}

static void test_kernel_dev(void)
{
    /* major 0 minor 4 (nsfs): the same in both encodings */
    CHECK_INT(sysmon_kernel_dev(4), 4);
    /* makedev(8, 1) in glibc's encoding is 0x801; the kernel's is 8 << 20 | 1 */
    CHECK_INT(sysmon_kernel_dev(0x801), (8 << 20) | 1);
    /* a minor above 255: glibc splits it around the major */
    CHECK_INT(sysmon_kernel_dev(makedev(1, 0x12345)), (1 << 20) | 0x12345);
}

static void test_call_names(void)
{
    CHECK_STR(sysmon_call_name(SYS_getppid), "getppid");
#ifdef SYS_newfstatat
    CHECK_STR(sysmon_call_name(SYS_newfstatat), "newfstatat");
#endif
    CHECK(sysmon_call_name(SYSMON_CALLS + 5) == NULL);
}

static void test_delta(void)
{
    static uint64_t a[SYSMON_CALLS], b[SYSMON_CALLS];
    struct sysmon_delta d;
    memset(a, 0, sizeof a);
    memcpy(b, a, sizeof b);
    b[3] = 7;
    b[262] = 80415;
    a[100] = 5; /* went backwards: not counted */
    sysmon_delta(a, b, &d);
    CHECK_INT(d.n, 2);
    CHECK_INT(d.nr[0], 3);
    CHECK_INT(d.count[0], 7);
    CHECK_INT(d.nr[1], 262);
    CHECK_INT(d.count[1], 80415);
    /* more calls than the delta holds: the rest add up in the last entry */
    for (unsigned i = 0; i < SYSMON_CALLS; i++)
        b[i] = a[i] + 1;
    sysmon_delta(a, b, &d);
    CHECK_INT(d.n, SYSMON_DELTA_MAX);
    CHECK_INT(d.nr[SYSMON_DELTA_MAX - 1], SYSMON_CALLS - 1);
    CHECK_INT(d.count[SYSMON_DELTA_MAX - 1], SYSMON_CALLS - (SYSMON_DELTA_MAX - 1));
}

static int no_bpf_expected(void)
{
    const char *v = getenv("AFPBENCH_TEST_NO_BPF");
    return v != NULL && strcmp(v, "1") == 0;
}

/* A child that says it is ready on `done`, waits for a byte on `go`, makes
 * `n` fstatat calls (and one getppid per 10), answers on `done`, then waits
 * to be killed. Returns once it is ready. */
static pid_t spawn_caller(int n, int *go_w, int *done_r)
{
    int go[2], done[2];
    if (pipe(go) != 0 || pipe(done) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(go[1]);
        close(done[0]);
        if (write(done[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(1);
        struct stat st;
        for (int i = 0; i < n; i++) {
            fstatat(AT_FDCWD, "/", &st, 0);
            if (i % 10 == 0)
                getppid();
        }
        if (write(done[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(go[0]);
    close(done[1]);
    char c;
    if (pid < 0 || read(done[0], &c, 1) != 1)
        return -1;
    *go_w = go[1];
    *done_r = done[0];
    return pid;
}

static void test_counts_a_process(void)
{
    struct sysmon m = {0};
    int go, done;
    pid_t child = spawn_caller(1000, &go, &done);
    CHECK(child > 0);
    pid_t other = spawn_caller(300, &(int){0}, &(int){0}); /* not watched */
    int rc = sysmon_watch(&m, "/proc", child, SYSMON_AFPD);
    if (no_bpf_expected()) {
        CHECK_INT(rc, -1);
        CHECK(strstr(m.reason, "system call counting off") != NULL);
        printf("  (AFPBENCH_TEST_NO_BPF=1: refused as expected: %s)\n", m.reason);
    } else {
        if (rc != 0)
            printf("  sysmon_watch failed: %s\n", m.reason);
        CHECK_INT(rc, 0);
        static uint64_t before[SYSMON_CALLS], after[SYSMON_CALLS], cnid[SYSMON_CALLS];
        sysmon_read(&m, SYSMON_AFPD, before);
        char c;
        CHECK_INT(write(go, "x", 1), 1);
        CHECK_INT(read(done, &c, 1), 1);
        sysmon_read(&m, SYSMON_AFPD, after);
        sysmon_read(&m, SYSMON_CNID, cnid);
        struct sysmon_delta d;
        sysmon_delta(before, after, &d);
        uint64_t stats = 0, ppid = 0, total = 0;
        for (unsigned i = 0; i < d.n; i++) {
            const char *name = sysmon_call_name(d.nr[i]);
            total += d.count[i];
            if (name != NULL && strcmp(name, "newfstatat") == 0)
                stats += d.count[i];
            if (name != NULL && strcmp(name, "getppid") == 0)
                ppid += d.count[i];
        }
        /* exactly the calls made and the write that answers; the pause after
         * it only if the child reached it before we read (a busy machine can
         * run us first), and the read that waited for `go` if the child had
         * not entered it yet */
        CHECK_INT(stats, 1000);
        CHECK_INT(ppid, 100);
        if (!CHECK(total >= 1101 && total <= 1103))
            for (unsigned i = 0; i < d.n; i++)
                printf("  %s %llu\n", sysmon_call_name(d.nr[i]), (unsigned long long)d.count[i]);
        uint64_t cnid_total = 0;
        for (unsigned i = 0; i < SYSMON_CALLS; i++)
            cnid_total += cnid[i];
        CHECK_INT(cnid_total, 0);
        /* a second process of the same namespace into the other slot */
        CHECK_INT(sysmon_watch(&m, "/proc", other, SYSMON_CNID), 0);
        CHECK_INT(m.watched, 2);
    }
    sysmon_stop(&m);
    sysmon_stop(&m); /* twice is safe */
    CHECK(m.counts == NULL);
    kill(child, SIGKILL);
    kill(other, SIGKILL);
    waitpid(child, NULL, 0);
    waitpid(other, NULL, 0);
    close(go);
    close(done);
}

/* A connected TCP pair on the loopback: fds[0] the client's end. */
static int tcp_pair(int fds[2])
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0 ||
        getsockname(l, (struct sockaddr *)&a, &len) != 0)
        return -1;
    fds[0] = socket(AF_INET, SOCK_STREAM, 0);
    if (fds[0] < 0 || connect(fds[0], (struct sockaddr *)&a, sizeof a) != 0)
        return -1;
    fds[1] = accept(l, NULL, NULL);
    close(l);
    return fds[1] < 0 ? -1 : 0;
}

/* A child that, on a byte on `go`, reads and writes through each kind of
 * descriptor a known number of times (the counts below), then answers on
 * `done` and waits to be killed. */
static pid_t spawn_io_caller(const char *file, int *go_w, int *done_r)
{
    int go[2], done[2], pp[2], sp[2], tcp[2];
    if (pipe(go) != 0 || pipe(done) != 0 || pipe(pp) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0 || tcp_pair(tcp) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char c, buf[64] = {0};
        close(go[1]);
        close(done[0]);
        int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || write(done[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(1);
        int ok = 1;
        for (int i = 0; i < 3; i++) /* 3 file writes, 2 file reads */
            ok &= pwrite(fd, buf, 16, i * 16) == 16;
        ok &= pread(fd, buf, 8, 0) == 8;
        struct iovec v = {buf, 8};
        ok &= preadv(fd, &v, 1, 8) == 8;
        for (int i = 0; i < 4; i++) /* 4 pipe writes, 4 pipe reads */
            ok &= write(pp[1], "x", 1) == 1 && read(pp[0], buf, 1) == 1;
        for (int i = 0; i < 5; i++) /* 5 local socket writes (writev), 5 reads */
            ok &= writev(sp[0], &v, 1) == 8 && read(sp[1], buf, 8) == 8;
        /* one sendfile: a file read and a local socket write */
        off_t off = 0;
        ok &= sendfile(sp[0], fd, &off, 8) == 8;
        ok &= read(sp[1], buf, 8) == 8; /* a 6th local socket read */
        for (int i = 0; i < 2; i++)     /* 2 network writes, 2 network reads (TCP) */
            ok &= write(tcp[0], "y", 1) == 1 && read(tcp[1], buf, 1) == 1;
        ok &= read(-1, buf, 1) < 0;    /* a closed descriptor: other */
        ok &= read(12345, buf, 1) < 0; /* beyond the table: other */
        if (!ok || write(done[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(go[0]);
    close(done[1]);
    close(pp[0]);
    close(pp[1]);
    close(sp[0]);
    close(sp[1]);
    close(tcp[0]);
    close(tcp[1]);
    char c;
    if (pid < 0 || read(done[0], &c, 1) != 1)
        return -1;
    *go_w = go[1];
    *done_r = done[0];
    return pid;
}

static void test_counts_by_descriptor(void)
{
    if (no_bpf_expected())
        return;
    char file[] = "/tmp/afpbench-sysmon-XXXXXX";
    int tmp = mkstemp(file);
    CHECK(tmp >= 0);
    close(tmp);
    struct sysmon m = {0};
    int go, done;
    pid_t child = spawn_io_caller(file, &go, &done);
    CHECK(child > 0);
    CHECK_INT(sysmon_watch(&m, "/proc", child, SYSMON_AFPD), 0);
    if (!m.fdio_on)
        printf("  not counted by descriptor: %s\n", m.fdio_reason);
    CHECK(m.fdio_on);
    uint64_t before[SYSMON_FDIO], after[SYSMON_FDIO];
    sysmon_read_fdio(&m, SYSMON_AFPD, before);
    char c;
    CHECK_INT(write(go, "x", 1), 1);
    CHECK_INT(read(done, &c, 1), 1);
    sysmon_read_fdio(&m, SYSMON_AFPD, after);
    uint64_t d[SYSMON_FDIO];
    for (int i = 0; i < SYSMON_FDIO; i++)
        d[i] = after[i] - before[i];
    /* file: 2 reads + sendfile's input, 3 writes; the answer on `done` is a
     * pipe write, and the wait for `go` a pipe read if the child had not
     * entered it yet when counting began */
    CHECK_INT(d[SYSMON_FD_FILE * 2], 3);
    CHECK_INT(d[SYSMON_FD_FILE * 2 + 1], 3);
    CHECK_INT(d[SYSMON_FD_UNIX * 2], 6);
    CHECK_INT(d[SYSMON_FD_UNIX * 2 + 1], 6);
    CHECK_INT(d[SYSMON_FD_NET * 2], 2);
    CHECK_INT(d[SYSMON_FD_NET * 2 + 1], 2);
    CHECK(d[SYSMON_FD_PIPE * 2] >= 4 && d[SYSMON_FD_PIPE * 2] <= 5);
    CHECK_INT(d[SYSMON_FD_PIPE * 2 + 1], 5);
    CHECK_INT(d[SYSMON_FD_OTHER * 2], 2);
    CHECK_INT(d[SYSMON_FD_OTHER * 2 + 1], 0);
    CHECK_STR(sysmon_fd_kind_name(SYSMON_FD_UNIX), "unix");
    CHECK_STR(sysmon_fd_kind_name(SYSMON_FD_NET), "net");
    CHECK_STR(sysmon_fd_kind_name(99), "other");
    sysmon_stop(&m);
    uint64_t off[SYSMON_FDIO] = {7};
    sysmon_read_fdio(&m, SYSMON_AFPD, off); /* off: zeros */
    CHECK_INT(off[0], 0);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    close(go);
    close(done);
    unlink(file);
}

static void test_missing_process(void)
{
    struct sysmon m = {0};
    CHECK_INT(sysmon_watch(&m, "/nonexistent-proc", 12345, SYSMON_AFPD), -1);
    CHECK(strstr(m.reason, "PID namespace of process 12345") != NULL);
    CHECK_INT(sysmon_watch(&m, "/proc", getpid(), SYSMON_SLOTS), -1); /* no such slot */
    sysmon_stop(&m);
    static uint64_t out[SYSMON_CALLS];
    out[5] = 9;
    sysmon_read(&m, SYSMON_AFPD, out); /* off: zeros */
    CHECK_INT(out[5], 0);
}

int main(void)
{
    RUN(test_parse_nspid);
    RUN(test_kernel_dev);
    RUN(test_call_names);
    RUN(test_delta);
    RUN(test_counts_a_process);
    RUN(test_counts_by_descriptor);
    RUN(test_missing_process);
    return harness_report();
}

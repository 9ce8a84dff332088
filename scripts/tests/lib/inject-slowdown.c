/* TEST ONLY — never built into an image. A slowdown injector for the
 * verdict's ground truth: preloaded into a local netatalk server
 * (scripts/local-server start --preload), it burns CPU in afpd before every
 * reply it sends on a socket, so the server gets slower by a known amount
 * while its IO (syscall counts, bytes) stays the same.
 *
 *   AFPBENCH_INJECT_US=N     burn N microseconds of this thread's CPU time
 *                            per reply (wall time grows by at least that)
 *   AFPBENCH_INJECT_LOOPS=N  or run N iterations of a fixed loop per reply
 *                            (a fixed amount of work: the same instruction
 *                            count on every machine)
 *
 * Only processes named afpd are slowed; the rest of the server is untouched.
 * A reply is a write(), writev(), send() or sendmsg() on a socket. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static long inject_us = -1; /* -1: not read yet */
static long inject_loops;
static int is_afpd;
static volatile uint64_t sink;

static void read_settings(void)
{
    const char *us = getenv("AFPBENCH_INJECT_US");
    const char *loops = getenv("AFPBENCH_INJECT_LOOPS");
    inject_us = us != NULL ? strtol(us, NULL, 10) : 0;
    inject_loops = loops != NULL ? strtol(loops, NULL, 10) : 0;
    /* prctl, not /proc/self/comm: a read() would add to afpd's IO counts */
    char comm[17] = "";
    prctl(PR_GET_NAME, comm, 0, 0, 0);
    is_afpd = strncmp(comm, "afpd", 4) == 0;
}

/* The injected work; a named function so that profiles can point at it. */
__attribute__((noinline)) void afpbench_injected_work(long loops, long us)
{
    uint64_t x = sink;
    for (long i = 0; i < loops; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    if (us > 0) {
        struct timespec t0, t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        do {
            for (int i = 0; i < 64; i++)
                x = x * 6364136223846793005ull + 1442695040888963407ull;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
    }
    sink = x;
}

static void before_send(int fd)
{
    if (inject_us < 0)
        read_settings();
    if (!is_afpd || (inject_us == 0 && inject_loops == 0))
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode))
        afpbench_injected_work(inject_loops, inject_us);
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*send_fn)(int, const void *, size_t, int);
typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);

ssize_t write(int fd, const void *buf, size_t n)
{
    static write_fn real;
    if (real == NULL)
        real = (write_fn)dlsym(RTLD_NEXT, "write");
    before_send(fd);
    return real(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    static writev_fn real;
    if (real == NULL)
        real = (writev_fn)dlsym(RTLD_NEXT, "writev");
    before_send(fd);
    return real(fd, iov, cnt);
}

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    static send_fn real;
    if (real == NULL)
        real = (send_fn)dlsym(RTLD_NEXT, "send");
    before_send(fd);
    return real(fd, buf, n, flags);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    static sendmsg_fn real;
    if (real == NULL)
        real = (sendmsg_fn)dlsym(RTLD_NEXT, "sendmsg");
    before_send(fd);
    return real(fd, msg, flags);
}

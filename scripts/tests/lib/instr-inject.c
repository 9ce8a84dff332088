/* TEST ONLY (scripts/tests/instr.bats): a preload for the instrumented
 * server's afpd that adds a fixed amount of work to every reply, so that the
 * gate's instruction rows have a known rise to find. Never in an image:
 * the test builds it and scripts/local-server preloads it when
 * LOCAL_SERVER_TEST_PRELOAD names it.
 *
 * afpd sends every DSI reply header with writev(); each call first runs
 * afpbench_injected_work(), INJECT_LOOPS iterations of a loop the compiler
 * must keep (a volatile counter), then the real writev. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/uio.h>

#ifndef INJECT_LOOPS
#error "build with -DINJECT_LOOPS=N"
#endif

static volatile unsigned long sink;

__attribute__((noinline)) void afpbench_injected_work(void);
__attribute__((noinline)) void afpbench_injected_work(void)
{
    for (unsigned long i = 0; i < (unsigned long)INJECT_LOOPS; i++)
        sink += i;
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
    static ssize_t (*real)(int, const struct iovec *, int);
    if (real == NULL)
        real = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    afpbench_injected_work();
    return real(fd, iov, iovcnt);
}

/*
 * Preload library for the netatalk server: scripts/local-server always loads
 * it; in the Dockerfile.server image (/usr/local/lib/afpbench/rlimit-cap.so)
 * scripts/server-entrypoint.sh loads it only where the hard limit of open files
 * is below what cnid_metad asks for, and logs that it does.
 *
 * cnid_metad asks for a fixed RLIMIT_NOFILE at start and exits when the kernel
 * refuses, which it does when the request exceeds the hard limit and the
 * process lacks CAP_SYS_RESOURCE (sandboxes, some CI machines). Without
 * cnid_metad every FPOpenVol fails. This library lowers RLIMIT_NOFILE requests
 * to the current hard limit, so the call succeeds with the most the machine
 * allows. Every other request passes through unchanged.
 *
 * Build: gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o cap.so this.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/resource.h>

typedef int (*setrlimit_fn)(__rlimit_resource_t, const struct rlimit *);
typedef int (*setrlimit64_fn)(__rlimit_resource_t, const struct rlimit64 *);

/* Lower *cur and *max to the current hard limit of open files. */
static void cap_to_hard_limit(rlim64_t *cur, rlim64_t *max)
{
    struct rlimit64 now;

    if (getrlimit64(RLIMIT_NOFILE, &now) != 0)
        return;
    if (*max > now.rlim_max)
        *max = now.rlim_max;
    if (*cur > *max)
        *cur = *max;
}

static void *next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

int setrlimit(__rlimit_resource_t resource, const struct rlimit *limit)
{
    static setrlimit_fn real;

    if (real == NULL)
        real = (setrlimit_fn)next_symbol("setrlimit");
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (resource != RLIMIT_NOFILE)
        return real(resource, limit);

    rlim64_t cur = limit->rlim_cur, max = limit->rlim_max;
    cap_to_hard_limit(&cur, &max);
    struct rlimit capped = { .rlim_cur = (rlim_t)cur, .rlim_max = (rlim_t)max };
    return real(resource, &capped);
}

int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *limit)
{
    static setrlimit64_fn real;

    if (real == NULL)
        real = (setrlimit64_fn)next_symbol("setrlimit64");
    if (real == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (resource != RLIMIT_NOFILE)
        return real(resource, limit);

    struct rlimit64 capped = *limit;
    cap_to_hard_limit(&capped.rlim_cur, &capped.rlim_max);
    return real(resource, &capped);
}

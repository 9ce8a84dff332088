/* Monotonic and CPU clocks, UTC timestamps (see clock.h). */
#include "clock.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

uint64_t clock_now_us(void)
{
    struct timespec ts;

    /* CLOCK_MONOTONIC cannot fail on Linux with a valid pointer. */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int64_t clock_now_ms(void)
{
    /* Timeouts and keep-alives need milliseconds, not the precise clock:
     * the coarse one (a few ms of resolution) costs no hardware clock read,
     * and every request reads this clock several times. The timed regions
     * use clock_now_us. */
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void clock_cpu_us(uint64_t *user_us, uint64_t *sys_us)
{
    struct rusage ru;

    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        *user_us = 0;
        *sys_us = 0;
        return;
    }
    *user_us = (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec;
    *sys_us = (uint64_t)ru.ru_stime.tv_sec * 1000000u + (uint64_t)ru.ru_stime.tv_usec;
}

void clock_utc_iso8601(char *buf, unsigned long size)
{
    time_t now = time(NULL);
    struct tm tm;

    if (size == 0)
        return;
    if (gmtime_r(&now, &tm) == NULL || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        buf[0] = '\0';
}

/* The client's one clock module: monotonic time in microseconds for the
 * timed regions and in milliseconds for timeouts and deadlines, the
 * process's CPU time, UTC timestamps. */
#ifndef AFPBENCH_CLOCK_H
#define AFPBENCH_CLOCK_H

#include <stdint.h>

/* Microseconds on CLOCK_MONOTONIC: never jumps with NTP or date changes. */
uint64_t clock_now_us(void);

/* Milliseconds on the monotonic clock, for timeouts, deadlines and
 * keep-alives: the coarse clock where there is one (a few ms of resolution,
 * no hardware clock read), so reading it on every request costs little. */
int64_t clock_now_ms(void);

/* Client CPU time of this process so far (getrusage RUSAGE_SELF), in µs. */
void clock_cpu_us(uint64_t *user_us, uint64_t *sys_us);

/* Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into buf (at least 21 bytes). */
void clock_utc_iso8601(char *buf, unsigned long size);

#endif

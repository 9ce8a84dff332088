/* The counters of the afpds of many sessions and a cnid_dbd over a measured
 * window (afpbench load), read through their procfs files. */
#ifndef AFPBENCH_IOMON_GROUP_H
#define AFPBENCH_IOMON_GROUP_H

#include <stdint.h>

#include "iomon.h"

/* The counters of a set of processes (the afpds of many sessions and a
 * cnid_dbd), summed over the processes that could be read at both ends of a
 * measured window: one that exits in between (a killed session) drops out of
 * both, and is counted in `lost`. */
struct iomon_group {
    char proc_root[256];
    int n;
    int *pids, *io_fd, *sched_fd, *stat_fd, *status_fd;
    struct iomon_io *io0;
    uint64_t *cpu0;
    unsigned char *ok0; /* bit 0: io read at the start, bit 1: schedstat */
};
struct iomon_group_delta {
    int sampled; /* processes read at both ends */
    int lost;    /* processes read at the start that ended before the end (a
                  * zombie too: its counters still read, but it is gone) */
    uint64_t r, w, rchar, wchar, cpu_ns;
    /* the peak resident memory (VmHWM) of the sampled processes: the
     * largest and the sum, KiB, over hwm_n of them (0: none read) */
    uint64_t hwm_kb_max, hwm_kb_sum;
    int hwm_n;
};
/* Open the counter files of the processes (pids may repeat: each counts
 * once). 0, or -1 when out of memory. */
int iomon_group_open(struct iomon_group *g, const char *proc_root, const int *pids, int n);
/* The window starts: remember every process's counters. */
void iomon_group_start(struct iomon_group *g);
/* The window ends: the sums of the changes since iomon_group_start. */
void iomon_group_end(struct iomon_group *g, struct iomon_group_delta *d);
void iomon_group_close(struct iomon_group *g);

#endif

/* Counting the server's system calls, call by call, from the kernel.
 *
 * An eBPF program on the raw tracepoint sys_enter adds one to a counter per
 * (watched process, system call number) in a memory-mapped array, so reading
 * every counter of a process is a copy of that array: no system call per
 * sample, no ptrace, nothing in the measured process. Processes are named by
 * their thread-group id in their own PID namespace (the program asks the
 * kernel for it with bpf_get_ns_current_pid_tgid), so the pids a procfs of a
 * container shows are the ones counted.
 *
 * Needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN in containers whose
 * seccomp profile allows bpf() only with it). Where the kernel refuses,
 * sysmon_watch says why and the caller goes on without system call counts. */
#ifndef AFPBENCH_SYSMON_H
#define AFPBENCH_SYSMON_H

#include <stddef.h>
#include <stdint.h>

/* Counters per slot: one per system call number; numbers from
 * SYSMON_CALLS - 1 up (and x32's) share the last counter. */
#define SYSMON_CALLS 512
/* A slot is what one row of counts is kept for: a side's afpd (or all the
 * afpds of a load step) and its cnid_dbd. */
enum { SYSMON_AFPD = 0, SYSMON_CNID = 1, SYSMON_SLOTS = 2 };

struct sysmon {
    int on;           /* the program runs and counts */
    int failed;       /* tried and refused: reason says why */
    char reason[768]; /* why counting is off */
    int prog_fd, link_fd, targets_fd, counts_fd;
    const volatile uint64_t *counts; /* SYSMON_SLOTS x SYSMON_CALLS, mapped */
    size_t map_len;
    uint64_t ns_dev, ns_ino; /* the PID namespace the program counts in */
    unsigned watched;        /* processes added */
};

/* Start counting process pid (as the procfs at proc_root names it) into
 * slot. The first call loads the program for that process's PID namespace;
 * a process of another namespace is refused. 0, or -1 with m->reason set
 * (the first refusal of the kernel turns the monitor off for good). */
int sysmon_watch(struct sysmon *m, const char *proc_root, int pid, int slot);

/* Copy slot's counters now. All zero when the monitor is off. */
void sysmon_read(const struct sysmon *m, int slot, uint64_t out[SYSMON_CALLS]);

/* Detach the program and free everything (safe on a zeroed monitor, and
 * twice). */
void sysmon_stop(struct sysmon *m);

/* The name of system call number nr on this architecture ("newfstatat"),
 * or NULL when this build does not know it. */
const char *sysmon_call_name(unsigned nr);

/* The changes of one slot's counters over a timed region, the calls that
 * moved only, at most SYSMON_DELTA_MAX of them (the rest summed under the
 * last counter's number). */
#define SYSMON_DELTA_MAX 64
struct sysmon_delta {
    unsigned n;
    uint16_t nr[SYSMON_DELTA_MAX];
    uint64_t count[SYSMON_DELTA_MAX];
};
void sysmon_delta(const uint64_t before[SYSMON_CALLS], const uint64_t after[SYSMON_CALLS],
                  struct sysmon_delta *d);

/* The kernel's dev_t of a device number as stat() reports it (the helper
 * compares against the kernel's own encoding). Exposed for the tests. */
uint64_t sysmon_kernel_dev(uint64_t st_dev);

/* The last pid of a status file's "NSpid:" line (the pid in the process's
 * own namespace), or 0. Exposed for the tests. */
int sysmon_parse_nspid(const char *status);

#endif

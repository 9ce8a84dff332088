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
/* Calls the kernel counts as reads and writes (syscr and syscw in
 * /proc/PID/io: read, readv, pread64, preadv, preadv2, sendfile,
 * copy_file_range; their write twins) are also counted by what their
 * descriptor is, so that a message on a socket or a pipe is not taken for
 * a file's IO. Counter kind * 2 + dir (dir 0: read, 1: write). */
enum {
    SYSMON_FD_FILE,  /* a regular file */
    SYSMON_FD_NET,   /* a socket of any family but AF_UNIX: the client, cnid_dbd over TCP */
    SYSMON_FD_UNIX,  /* an AF_UNIX socket: between the server's own processes */
    SYSMON_FD_PIPE,  /* a pipe or FIFO */
    SYSMON_FD_OTHER, /* anything else: a device, an eventfd, a descriptor not open */
    SYSMON_FD_KINDS
};
#define SYSMON_FDIO (SYSMON_FD_KINDS * 2)
/* A slot's row in the kernel's array: the calls, then the descriptor kinds. */
#define SYSMON_ROW 1024
/* The most instructions the counting program has. */
#define SYSMON_MAX_INSNS 320

/* Where the running kernel keeps what the program follows from a process
 * to a descriptor's kind (from its BTF, btf.h); pt_regs: the offsets of a
 * call's first three arguments. */
struct sysmon_offsets {
    int task_files, files_fdt, fdt_max_fds, fdt_fd, file_inode, inode_mode;
    int file_private, socket_sk, sock_family; /* a socket's family */
};

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
    int fdio_on;             /* reads and writes were counted by descriptor kind too */
    char fdio_reason[768];   /* why not, when fdio_on is 0 */
    int io_fd;               /* the map of calls that read or write */
};

/* Start counting process pid (as the procfs at proc_root names it) into
 * slot. The first call loads the program for that process's PID namespace;
 * a process of another namespace is refused. 0, or -1 with m->reason set
 * (the first refusal of the kernel turns the monitor off for good). */
int sysmon_watch(struct sysmon *m, const char *proc_root, int pid, int slot);

/* Copy slot's counters now. All zero when the monitor is off. */
void sysmon_read(const struct sysmon *m, int slot, uint64_t out[SYSMON_CALLS]);

/* Copy slot's reads and writes by descriptor kind now (SYSMON_FD_* * 2 +
 * dir). All zero when they are not counted (m->fdio_on 0). */
void sysmon_read_fdio(const struct sysmon *m, int slot, uint64_t out[SYSMON_FDIO]);

/* The name of a descriptor kind as the results name it ("file", "net",
 * "unix", "pipe", "other"). */
const char *sysmon_fd_kind_name(int kind);

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

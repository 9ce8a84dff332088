/* Server IO monitoring of our session: read()/write()-family syscall counts and bytes
 * (syscr/syscw, rchar/wchar in PROC_ROOT/PID/io) and CPU time on the clock
 * (PROC_ROOT/PID/schedstat, nanoseconds) of our session's afpd and of the
 * volume's cnid_dbd.
 * Needs the server's processes visible under a procfs (PROC_ROOT, e.g. a
 * second procfs mounted at /proc_io with hidepid=0). */
#ifndef AFPBENCH_IOMON_H
#define AFPBENCH_IOMON_H

#include <stddef.h>
#include <stdint.h>

#include "sysmon.h"

struct iomon {
    int enabled;      /* afpd found and its io file readable */
    const char *rule; /* how afpd was found: "socket", "uid", or NULL */
    char proc_root[256];
    int afpd_pid;          /* 0 when not found */
    int cnid_pid;          /* 0 when not found (then cnid counts are unknown) */
    const char *cnid_rule; /* "socket" (connected to our afpd), "user" (-u USER), or NULL */
    char reason[200];      /* why monitoring is off, or a note on the choice */
    /* The counter files stay open while monitoring runs, so a sample costs
     * one pread each (no open/close around every timed region). -1: none. */
    int fds_open;
    int afpd_io_fd, afpd_sched_fd, cnid_io_fd, cnid_sched_fd;
    /* Peak memory: status (VmHWM) and clear_refs (writing "5" resets the
     * peak to the current resident size, Linux 4.0 on); -1: none. */
    int afpd_status_fd, afpd_clear_fd, cnid_status_fd, cnid_clear_fd;
    /* Every system call of afpd and cnid_dbd, by call (sysmon.h); sys.on
     * says whether they are counted, sys.reason why not. */
    struct sysmon sys;
    int sys_counted;   /* counting started (stays set once sysmon_stop ran) */
    int sys_cnid;      /* cnid_dbd's calls are counted too */
    char share_fs[32]; /* the filesystem type afpd works in ("ext4"), or "" */
};

struct iomon_sample {
    int afpd_ok, cnid_ok;         /* io counters read */
    int afpd_cpu_ok, cnid_cpu_ok; /* schedstat read */
    uint64_t afpd_r, afpd_w, cnid_r, cnid_w;
    uint64_t afpd_rchar, afpd_wchar;   /* bytes through read()/write()-family calls */
    uint64_t afpd_cpu_ns, cnid_cpu_ns; /* time on a CPU, user and system */
    uint64_t afpd_wait_ns;             /* afpd's time runnable, waiting for a CPU */
    int sys_ok, sys_cnid_ok;           /* the system call counters were read */
    int afpd_hwm_ok, cnid_hwm_ok;      /* VmHWM read */
    uint64_t afpd_hwm_kb, cnid_hwm_kb; /* peak resident memory since the last reset, KiB */
    uint64_t afpd_sys[SYSMON_CALLS], cnid_sys[SYSMON_CALLS];
    int fdio_ok; /* reads and writes by descriptor kind were read too */
    uint64_t afpd_fdio[SYSMON_FDIO], cnid_fdio[SYSMON_FDIO];
};

/* Find our afpd and the volume's cnid_dbd (iomon_find.h: by the socket we
 * hold, else by the user) and open their counter files. Progress and the
 * outcome go to stderr unless quiet. Always returns; m->enabled says whether
 * it worked. */
void iomon_start(struct iomon *m, const char *proc_root, int sockfd, const char *user, int quiet);

/* Count every system call of the afpd and cnid_dbd iomon_start found
 * (sysmon.h), and note the filesystem afpd works in. Says on stderr, unless
 * quiet, whether counting is on and why not: a run without it goes on. */
void iomon_count_syscalls(struct iomon *m, int quiet);

/* Snapshot the counters now. Fields whose process is gone are marked !ok. */
void iomon_sample(const struct iomon *m, struct iomon_sample *s);

/* Reset afpd's and cnid_dbd's peak resident memory to what they hold now,
 * so that the next sample's VmHWM is the peak of what came between. Bit 0:
 * afpd's was reset, bit 1: cnid_dbd's (a kernel or a procfs that refuses
 * leaves the peak unknown, never a figure since the process started). */
int iomon_reset_peaks(const struct iomon *m);

/* Parse VmHWM (KiB) from the text of a PROC/PID/status file. Returns 0 when
 * found. Exposed for the unit tests. */
int iomon_parse_hwm(const char *text, uint64_t *kb);

/* Open the counter files of m's afpd_pid and cnid_pid (iomon_start does it
 * once it found them; exposed for the unit tests). */
void iomon_open_counters(struct iomon *m);

/* Close the counter files and stop counting system calls (safe on a
 * monitor that never started, once memset to zero, or twice). */
void iomon_stop(struct iomon *m);

/* The counters of one PROC/PID/io file. */
struct iomon_io {
    uint64_t syscr, syscw, rchar, wchar;
};

/* Parse the text of a PROC/PID/io file. Returns 0 when syscr, syscw, rchar
 * and wchar were all found. Exposed for the unit tests. */
int iomon_parse_io(const char *text, struct iomon_io *io);

/* Parse PROC/PID/schedstat ("<ns on cpu> <ns waiting> <timeslices>"): the
 * time on a CPU and the time spent runnable but waiting for one. Returns 0,
 * or -1 for anything else. */
int iomon_parse_schedstat(const char *text, uint64_t *cpu_ns, uint64_t *wait_ns);

/* The sampling primitives, for iomon_group.c: PROC_ROOT/PID/NAME opened
 * read-only (-1 without a pid or when it cannot be), and one pread of an
 * open io, schedstat or status file parsed (1 when it read and parsed). */
int iomon_open_counter(const char *proc_root, int pid, const char *name);
int iomon_read_io(int fd, struct iomon_io *io);
int iomon_read_cpu(int fd, uint64_t *ns, uint64_t *wait_ns);
int iomon_read_hwm(int fd, uint64_t *kb);

/* The volume's cnid_dbd for one of our afpds (as iomon_start finds it,
 * iomon_find.h) whose io counters read: its pid and *rule ("socket" or
 * "user"), or 0. */
int iomon_find_cnid(const char *proc_root, int afpd_pid, const char *user, const char **rule);

#endif

/* Server IO monitoring: read()/write()-family syscall counts and bytes
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

/* Find the processes. sockfd is our connected TCP socket to the server:
 * the afpd whose fd/ holds the server end of that connection (looked up in
 * its own net/tcp and net/tcp6) is ours ("socket" rule). If that cannot be
 * read, fall back to an afpd running as `user` ("uid" rule). cnid_dbd is the
 * one with "-u USER" in its command line. Progress and the outcome go to
 * stderr unless quiet. Always returns; m->enabled says whether it worked.
 * cnid_dbd: the one at the far end of one of our afpd's TCP connections
 * ("socket" rule), else one with "-u USER" in its command line ("user"). */
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

/* ---- Many sessions (afpbench load) ----
 * Which afpd serves each of our connections, found in one pass: the socket
 * inodes every afpd holds, and the TCP tables of each network namespace they
 * live in (the socket rule above, for all sockets at once). pids[i] gets the
 * afpd of fds[i], 0 when none was found. Returns how many were mapped, or -1
 * with the reason in why when the procfs shows no afpd at all. */
int iomon_map_sessions(const char *proc_root, const int *fds, int n, int *pids, char *why,
                       size_t whylen);
/* The volume's cnid_dbd for one of our afpds (as iomon_start finds it):
 * its pid and *rule ("socket" or "user"), or 0. */
int iomon_find_cnid(const char *proc_root, int afpd_pid, const char *user, const char **rule);

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

/* Parse one line of PROC/net/tcp or tcp6 into 16-byte addresses (IPv4 as
 * ::ffff:a.b.c.d), host-order ports and the socket inode. Returns 0 for a
 * data line, -1 for the header or a malformed line. */
int iomon_parse_tcp_line(const char *line, uint8_t local[16], uint16_t *lport, uint8_t remote[16],
                         uint16_t *rport, unsigned long *inode);

/* Is argv (NUL-separated, len bytes, as in PROC/PID/cmdline) carrying
 * "-u" followed by exactly `user`? */
int iomon_cmdline_has_user(const char *cmdline, unsigned long len, const char *user);

#endif

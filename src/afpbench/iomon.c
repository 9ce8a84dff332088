/* Server IO monitoring of our session: its afpd and the volume's cnid_dbd
 * (found by iomon_find.c), their counter files kept open and sampled
 * around each timed region, and their system calls counted (sysmon.c). */
#include "iomon.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "iomon_find.h"
#include "procfile.h"

/* "name: <number>" at the start of line; 1 and *v set when it is. */
static int io_field(const char *line, const char *name, uint64_t *v)
{
    size_t len = strlen(name);
    unsigned long long x;
    if (strncmp(line, name, len) != 0 || line[len] != ':' ||
        sscanf(line + len + 1, " %llu", &x) != 1)
        return 0;
    *v = x;
    return 1;
}

int iomon_parse_io(const char *text, struct iomon_io *io)
{
    unsigned have = 0;
    const char *line = text;
    while (line != NULL && *line != '\0') {
        if (io_field(line, "syscr", &io->syscr))
            have |= 1u;
        else if (io_field(line, "syscw", &io->syscw))
            have |= 2u;
        else if (io_field(line, "rchar", &io->rchar))
            have |= 4u;
        else if (io_field(line, "wchar", &io->wchar))
            have |= 8u;
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : NULL;
    }
    return have == 0xfu ? 0 : -1;
}

int iomon_parse_schedstat(const char *text, uint64_t *cpu_ns, uint64_t *wait_ns)
{
    unsigned long long cpu, wait;
    int used = 0;
    if (text == NULL || !isdigit((unsigned char)text[0]) ||
        sscanf(text, "%llu %llu%n", &cpu, &wait, &used) != 2 ||
        (text[used] != ' ' && text[used] != '\n'))
        return -1;
    *cpu_ns = cpu;
    *wait_ns = wait;
    return 0;
}

static int io_readable(const char *proc_root, int pid)
{
    char path[512], buf[1024];
    struct iomon_io io;
    snprintf(path, sizeof path, "%s/%d/io", proc_root, pid);
    return procfile_read(path, buf, sizeof buf) > 0 && iomon_parse_io(buf, &io) == 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* PROC_ROOT/PID/NAME opened with flags (O_RDONLY: a counter; O_WRONLY:
 * clear_refs); -1 without a pid. */
static int open_proc_file(const char *proc_root, int pid, const char *name, int flags)
{
    char path[512];
    if (pid <= 0)
        return -1;
    snprintf(path, sizeof path, "%s/%d/%s", proc_root, pid, name);
    return open(path, flags | O_CLOEXEC);
}

int iomon_open_counter(const char *proc_root, int pid, const char *name)
{
    return open_proc_file(proc_root, pid, name, O_RDONLY);
}

void iomon_open_counters(struct iomon *m)
{
    m->afpd_io_fd = iomon_open_counter(m->proc_root, m->afpd_pid, "io");
    m->afpd_sched_fd = iomon_open_counter(m->proc_root, m->afpd_pid, "schedstat");
    m->cnid_io_fd = iomon_open_counter(m->proc_root, m->cnid_pid, "io");
    m->cnid_sched_fd = iomon_open_counter(m->proc_root, m->cnid_pid, "schedstat");
    m->afpd_status_fd = iomon_open_counter(m->proc_root, m->afpd_pid, "status");
    m->cnid_status_fd = iomon_open_counter(m->proc_root, m->cnid_pid, "status");
    m->afpd_clear_fd = open_proc_file(m->proc_root, m->afpd_pid, "clear_refs", O_WRONLY);
    m->cnid_clear_fd = open_proc_file(m->proc_root, m->cnid_pid, "clear_refs", O_WRONLY);
    m->fds_open = 1;
}

void iomon_stop(struct iomon *m)
{
    sysmon_stop(&m->sys);
    if (!m->fds_open)
        return;
    int *fds[8] = {&m->afpd_io_fd,     &m->afpd_sched_fd,  &m->cnid_io_fd,    &m->cnid_sched_fd,
                   &m->afpd_status_fd, &m->cnid_status_fd, &m->afpd_clear_fd, &m->cnid_clear_fd};
    for (int i = 0; i < 8; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    m->fds_open = 0;
}

void iomon_start(struct iomon *m, const char *proc_root, int sockfd, const char *user, int quiet)
{
    memset(m, 0, sizeof *m);
    snprintf(m->proc_root, sizeof m->proc_root, "%s", proc_root);

    struct stat st;
    if (stat(proc_root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(m->reason, sizeof m->reason, "%s is not a directory (mount a procfs there)",
                 proc_root);
        goto off;
    }
    int pid =
        iomon_find_afpd(proc_root, sockfd, user, quiet, &m->rule, m->reason, sizeof m->reason);
    if (pid <= 0)
        goto off;
    if (!io_readable(proc_root, pid)) {
        snprintf(m->reason, sizeof m->reason, "%s/%d/io of afpd is not readable", proc_root, pid);
        m->rule = NULL;
        goto off;
    }
    m->afpd_pid = pid;
    m->enabled = 1;

    /* cnid_dbd is started on the first volume open; give it a moment. */
    for (int attempt = 0; attempt < 3 && m->cnid_pid == 0; attempt++) {
        int c = iomon_find_cnid_dbd(proc_root, pid, user, quiet, &m->cnid_rule);
        if (c > 0 && io_readable(proc_root, c)) {
            m->cnid_pid = c;
        } else {
            m->cnid_rule = NULL;
            if (attempt < 2)
                sleep_ms(300);
        }
    }
    iomon_open_counters(m);
    if (!quiet) {
        fprintf(stderr, "IO monitoring enabled (afpd: %d found by the %s rule, cnid_dbd: ", pid,
                m->rule);
        if (m->cnid_pid)
            fprintf(stderr, "%d found by the %s rule)\n", m->cnid_pid, m->cnid_rule);
        else
            fprintf(stderr, "not found)\n");
        if (m->reason[0])
            fprintf(stderr, "IO monitoring: note: %s\n", m->reason);
    }
    return;
off:
    if (!quiet)
        fprintf(stderr, "IO monitoring off: %s\n", m->reason);
}

int iomon_read_io(int fd, struct iomon_io *io)
{
    char buf[1024];
    return fd >= 0 && procfile_pread(fd, buf, sizeof buf) > 0 && iomon_parse_io(buf, io) == 0;
}

int iomon_read_cpu(int fd, uint64_t *ns, uint64_t *wait_ns)
{
    char buf[128];
    return fd >= 0 && procfile_pread(fd, buf, sizeof buf) > 0 &&
           iomon_parse_schedstat(buf, ns, wait_ns) == 0;
}

int iomon_read_hwm(int fd, uint64_t *kb)
{
    char buf[4096];
    return fd >= 0 && procfile_pread(fd, buf, sizeof buf) > 0 && iomon_parse_hwm(buf, kb) == 0;
}

int iomon_parse_hwm(const char *text, uint64_t *kb)
{
    const char *at = strstr(text, "\nVmHWM:");
    if (at == NULL)
        return -1;
    at += strlen("\nVmHWM:");
    while (*at == ' ' || *at == '\t')
        at++;
    if (*at < '0' || *at > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(at, &end, 10);
    if (errno != 0 || strncmp(end, " kB", 3) != 0)
        return -1;
    *kb = v;
    return 0;
}

static int reset_peak(int fd)
{
    return fd >= 0 && pwrite(fd, "5", 1, 0) == 1;
}

int iomon_reset_peaks(const struct iomon *m)
{
    if (!m->enabled || !m->fds_open)
        return 0;
    return reset_peak(m->afpd_clear_fd) | reset_peak(m->cnid_clear_fd) << 1;
}

void iomon_sample(const struct iomon *m, struct iomon_sample *s)
{
    memset(s, 0, sizeof *s);
    if (!m->enabled || !m->fds_open)
        return;
    struct iomon_io io;
    if ((s->afpd_ok = iomon_read_io(m->afpd_io_fd, &io)) != 0) {
        s->afpd_r = io.syscr;
        s->afpd_w = io.syscw;
        s->afpd_rchar = io.rchar;
        s->afpd_wchar = io.wchar;
    }
    if ((s->cnid_ok = iomon_read_io(m->cnid_io_fd, &io)) != 0) {
        s->cnid_r = io.syscr;
        s->cnid_w = io.syscw;
    }
    uint64_t cnid_wait_ns;
    s->afpd_cpu_ok = iomon_read_cpu(m->afpd_sched_fd, &s->afpd_cpu_ns, &s->afpd_wait_ns);
    s->cnid_cpu_ok = iomon_read_cpu(m->cnid_sched_fd, &s->cnid_cpu_ns, &cnid_wait_ns);
    s->afpd_hwm_ok = iomon_read_hwm(m->afpd_status_fd, &s->afpd_hwm_kb);
    s->cnid_hwm_ok = iomon_read_hwm(m->cnid_status_fd, &s->cnid_hwm_kb);
    s->sys_cnid_ok = m->sys.on && m->sys_cnid;
    if ((s->sys_ok = m->sys.on) != 0) {
        sysmon_read(&m->sys, SYSMON_AFPD, s->afpd_sys);
        sysmon_read(&m->sys, SYSMON_CNID, s->cnid_sys);
        if ((s->fdio_ok = m->sys.fdio_on) != 0) {
            sysmon_read_fdio(&m->sys, SYSMON_AFPD, s->afpd_fdio);
            sysmon_read_fdio(&m->sys, SYSMON_CNID, s->cnid_fdio);
        }
    }
}

/* The names of the filesystems a share is likely on, by statfs magic. */
static const char *fs_name(unsigned long magic)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } known[] = {
        {0xEF53, "ext4"},        {0x58465342, "xfs"},  {0x9123683E, "btrfs"}, {0x01021994, "tmpfs"},
        {0x794c7630, "overlay"}, {0x2FC12FC1, "zfs"},  {0x6969, "nfs"},       {0xFF534D42, "cifs"},
        {0x65735546, "fuse"},    {0xF2F52010, "f2fs"}, {0x5346414F, "afs"},   {0x858458f6, "ramfs"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].magic == magic)
            return known[i].name;
    return NULL;
}

void iomon_count_syscalls(struct iomon *m, int quiet)
{
    if (!m->enabled)
        return;
    /* The filesystem decides what some calls cost and how many there are
     * (xattrs, ACLs): recorded beside the counts. afpd's cwd is in the
     * volume once it has been opened. */
    char path[512];
    struct statfs sf;
    snprintf(path, sizeof path, "%s/%d/cwd", m->proc_root, m->afpd_pid);
    if (statfs(path, &sf) == 0) {
        const char *name = fs_name((unsigned long)sf.f_type);
        if (name != NULL)
            snprintf(m->share_fs, sizeof m->share_fs, "%s", name);
        else
            snprintf(m->share_fs, sizeof m->share_fs, "0x%lx", (unsigned long)sf.f_type);
    }
    if (sysmon_watch(&m->sys, m->proc_root, m->afpd_pid, SYSMON_AFPD) != 0) {
        if (!quiet)
            fprintf(stderr, "%s\n", m->sys.reason);
        return;
    }
    m->sys_counted = 1;
    if (m->cnid_pid > 0) {
        if (sysmon_watch(&m->sys, m->proc_root, m->cnid_pid, SYSMON_CNID) == 0)
            m->sys_cnid = 1;
        else if (!quiet)
            fprintf(stderr, "cnid_dbd's %s\n", m->sys.reason);
    }
    if (!quiet)
        fprintf(stderr, "System call counting on (eBPF, sys_enter): afpd %d%s\n", m->afpd_pid,
                m->sys_cnid ? " and cnid_dbd" : "");
}

int iomon_find_cnid(const char *proc_root, int afpd_pid, const char *user, const char **rule)
{
    *rule = NULL;
    int pid = iomon_find_cnid_dbd(proc_root, afpd_pid, user, 1, rule);
    if (pid <= 0 || !io_readable(proc_root, pid)) {
        *rule = NULL;
        return 0;
    }
    return pid;
}

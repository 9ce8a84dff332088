/* System call counts of the server's processes (sysmon.h).
 *
 * Why eBPF and not one perf counter per system call tracepoint: a process
 * carrying a few hundred per-task perf events pays for scheduling each of
 * them in and out at every context switch, and afpd switches at every AFP
 * request. One program on the raw sys_enter tracepoint costs a map lookup
 * per system call instead, and needs no tracefs. The program is a dozen
 * instructions, assembled here so that afpbench keeps to libc. */
#include "sysmon.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "procfile.h"
#include "syscall_names.h"

#define MAX_TARGETS 4096 /* processes one monitor can count (a load test's afpds) */

/* ---- the program ---------------------------------------------------------
 * struct bpf_insn builders, named after the instructions' assembly. */
#define INSN(c, d, s, o, i)                                                                        \
    ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})
#define MOV_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ADD_REG(d, s) INSN(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0)
#define LSH_IMM(d, i) INSN(BPF_ALU64 | BPF_LSH | BPF_K, d, 0, 0, i)
#define LD_IMM64(d, v)                                                                             \
    INSN(BPF_LD | BPF_DW | BPF_IMM, d, 0, 0, (int32_t)(uint32_t)(v)),                              \
        INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)(v) >> 32))
#define LD_MAP(d, fd)                                                                              \
    INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)
#define LDX(size, d, s, o) INSN(BPF_LDX | (size) | BPF_MEM, d, s, o, 0)
#define STX(size, d, s, o) INSN(BPF_STX | (size) | BPF_MEM, d, s, o, 0)
#define ATOMIC_ADD64(d, s, o) INSN(BPF_STX | BPF_DW | BPF_ATOMIC, d, s, o, BPF_ADD)
#define JNE_IMM(d, i, o) INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define JLT_IMM(d, i, o) INSN(BPF_JMP | BPF_JLT | BPF_K, d, 0, o, i)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

enum { R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 };

/* On each system call entry: if the calling process (its tgid in the
 * namespace dev/ino) is a target, add one to counts[slot * CALLS + nr].
 * The raw tracepoint's context is its arguments: (struct pt_regs *, long nr).
 * Stack: -8 struct bpf_pidns_info {pid, tgid}, -12 the targets key, -16 the
 * counts key. Jumps to OUT (the last two instructions) are patched to
 * their offsets once the program is laid out. */
#define OUT INT16_MAX
static size_t assemble(struct bpf_insn *p, uint64_t dev, uint64_t ino, int targets, int counts)
{
    struct bpf_insn prog[] = {
        MOV_REG(R6, R1),
        LD_IMM64(R1, dev),
        LD_IMM64(R2, ino),
        MOV_REG(R3, R10),
        ADD_IMM(R3, -8),
        MOV_IMM(R4, 8),
        CALL(BPF_FUNC_get_ns_current_pid_tgid),
        JNE_IMM(R0, 0, OUT), /* not in that namespace */
        LDX(BPF_W, R1, R10, -4),
        STX(BPF_W, R10, R1, -12),
        LD_MAP(R1, targets),
        MOV_REG(R2, R10),
        ADD_IMM(R2, -12),
        CALL(BPF_FUNC_map_lookup_elem),
        JEQ_IMM(R0, 0, OUT), /* not a target */
        LDX(BPF_W, R7, R0, 0),
        LDX(BPF_DW, R2, R6, 8),
        JLT_IMM(R2, SYSMON_CALLS - 1, 1),
        MOV_IMM(R2, SYSMON_CALLS - 1),
        LSH_IMM(R7, 9), /* slot * SYSMON_CALLS */
        ADD_REG(R7, R2),
        STX(BPF_W, R10, R7, -16),
        LD_MAP(R1, counts),
        MOV_REG(R2, R10),
        ADD_IMM(R2, -16),
        CALL(BPF_FUNC_map_lookup_elem),
        JEQ_IMM(R0, 0, OUT),
        MOV_IMM(R1, 1),
        ATOMIC_ADD64(R0, R1, 0),
        MOV_IMM(R0, 0),
        EXIT(),
    };
    _Static_assert(SYSMON_CALLS == 1 << 9, "the shift above multiplies by SYSMON_CALLS");
    size_t n = sizeof prog / sizeof prog[0], out = n - 2;
    for (size_t i = 0; i < n; i++)
        if (BPF_CLASS(prog[i].code) == BPF_JMP && prog[i].off == OUT)
            prog[i].off = (int16_t)(out - i - 1);
    memcpy(p, prog, sizeof prog);
    return n;
}

static long bpf(int cmd, union bpf_attr *attr)
{
    return syscall(SYS_bpf, cmd, attr, sizeof *attr);
}

static int map_create(enum bpf_map_type type, unsigned key, unsigned value, unsigned entries,
                      unsigned flags)
{
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_type = type;
    a.key_size = key;
    a.value_size = value;
    a.max_entries = entries;
    a.map_flags = flags;
    return (int)bpf(BPF_MAP_CREATE, &a);
}

/* "needs root" beats "Operation not permitted" for the usual refusal. */
static void refused(struct sysmon *m, const char *what, int err)
{
    const char *hint = "";
    if (err == EPERM || err == EACCES)
        hint = " (needs root, or CAP_BPF and CAP_PERFMON; in a container also a seccomp "
               "profile that allows bpf(), as Docker's does with CAP_SYS_ADMIN)";
    else if (err == ENOSYS)
        hint = " (this kernel has no bpf())";
    snprintf(m->reason, sizeof m->reason, "system call counting off: %s: %s%s", what, strerror(err),
             hint);
    m->failed = 1;
}

static int load(struct sysmon *m, uint64_t dev, uint64_t ino)
{
    m->targets_fd = m->counts_fd = m->prog_fd = m->link_fd = -1;
    m->targets_fd = map_create(BPF_MAP_TYPE_HASH, 4, 4, MAX_TARGETS, 0);
    if (m->targets_fd < 0) {
        refused(m, "creating a BPF map", errno);
        return -1;
    }
    m->counts_fd =
        map_create(BPF_MAP_TYPE_ARRAY, 4, 8, SYSMON_SLOTS * SYSMON_CALLS, BPF_F_MMAPABLE);
    if (m->counts_fd < 0) {
        refused(m, "creating a memory-mapped BPF array", errno);
        return -1;
    }
    m->map_len = SYSMON_SLOTS * SYSMON_CALLS * sizeof(uint64_t);
    void *p = mmap(NULL, m->map_len, PROT_READ, MAP_SHARED, m->counts_fd, 0);
    if (p == MAP_FAILED) {
        refused(m, "mapping the counters", errno);
        return -1;
    }
    m->counts = p;

    struct bpf_insn insns[64];
    size_t n = assemble(insns, dev, ino, m->targets_fd, m->counts_fd);
    static char log[65536];
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
    a.insns = (uint64_t)(uintptr_t)insns;
    a.insn_cnt = (uint32_t)n;
    a.license = (uint64_t)(uintptr_t) "Dual MIT/GPL";
    m->prog_fd = (int)bpf(BPF_PROG_LOAD, &a);
    if (m->prog_fd < 0 && (errno == EINVAL || errno == EACCES)) {
        /* load again only to hear the verifier's reason */
        a.log_buf = (uint64_t)(uintptr_t)log;
        a.log_size = sizeof log;
        a.log_level = 1;
        log[0] = '\0';
        m->prog_fd = (int)bpf(BPF_PROG_LOAD, &a);
        if (m->prog_fd < 0) {
            char *last = strrchr(log, '\n');
            while (last != NULL && last > log && last[1] == '\0') {
                *last = '\0';
                last = strrchr(log, '\n');
            }
            snprintf(m->reason, sizeof m->reason,
                     "system call counting off: the kernel refused the counting program: %s",
                     last != NULL ? last + 1 : log);
            m->failed = 1;
            return -1;
        }
    }
    if (m->prog_fd < 0) {
        refused(m, "loading the counting program", errno);
        return -1;
    }
    memset(&a, 0, sizeof a);
    a.raw_tracepoint.name = (uint64_t)(uintptr_t) "sys_enter";
    a.raw_tracepoint.prog_fd = (uint32_t)m->prog_fd;
    m->link_fd = (int)bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
    if (m->link_fd < 0) {
        refused(m, "attaching to the sys_enter tracepoint", errno);
        return -1;
    }
    m->ns_dev = dev;
    m->ns_ino = ino;
    m->on = 1;
    return 0;
}

uint64_t sysmon_kernel_dev(uint64_t st_dev)
{
    /* the kernel's MKDEV: 12 bits of major above 20 bits of minor */
    return ((uint64_t)major((dev_t)st_dev) << 20) | minor((dev_t)st_dev);
}

int sysmon_parse_nspid(const char *status)
{
    const char *line = status;
    while (line != NULL && *line != '\0') {
        if (strncmp(line, "NSpid:", 6) == 0) {
            long last = 0;
            const char *p = line + 6;
            for (;;) {
                while (*p == ' ' || *p == '\t')
                    p++;
                if (*p < '0' || *p > '9')
                    break;
                char *end;
                long v = strtol(p, &end, 10);
                if (v <= 0 || v > 0x3fffffff)
                    return 0;
                last = v;
                p = end;
            }
            return *p == '\n' || *p == '\0' ? (int)last : 0;
        }
        const char *nl = strchr(line, '\n');
        line = nl != NULL ? nl + 1 : NULL;
    }
    return 0;
}

int sysmon_watch(struct sysmon *m, const char *proc_root, int pid, int slot)
{
    if (m->failed)
        return -1;
    if (slot < 0 || slot >= SYSMON_SLOTS || pid <= 0)
        return -1;
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%d/ns/pid", proc_root, pid);
    if (stat(path, &st) != 0) {
        snprintf(m->reason, sizeof m->reason,
                 "system call counting off: cannot see the PID namespace of process %d (%s: %s)",
                 pid, path, strerror(errno));
        return -1;
    }
    char status[4096];
    snprintf(path, sizeof path, "%s/%d/status", proc_root, pid);
    int nspid = procfile_read(path, status, sizeof status) > 0 ? sysmon_parse_nspid(status) : 0;
    if (nspid == 0)
        nspid = pid; /* a kernel without NSpid lines: one namespace */
    uint64_t dev = sysmon_kernel_dev(st.st_dev), ino = st.st_ino;
    if (!m->on) {
        if (load(m, dev, ino) != 0) {
            sysmon_stop(m);
            m->failed = 1;
            return -1;
        }
    } else if (dev != m->ns_dev || ino != m->ns_ino) {
        snprintf(m->reason, sizeof m->reason,
                 "system call counting off for process %d: another PID namespace than the "
                 "first process counted",
                 pid);
        return -1;
    }
    uint32_t key = (uint32_t)nspid, value = (uint32_t)slot;
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.map_fd = (uint32_t)m->targets_fd;
    a.key = (uint64_t)(uintptr_t)&key;
    a.value = (uint64_t)(uintptr_t)&value;
    a.flags = BPF_ANY;
    if (bpf(BPF_MAP_UPDATE_ELEM, &a) != 0) {
        snprintf(m->reason, sizeof m->reason,
                 "system call counting off for process %d: adding it failed: %s", pid,
                 strerror(errno));
        return -1;
    }
    m->watched++;
    return 0;
}

void sysmon_read(const struct sysmon *m, int slot, uint64_t out[SYSMON_CALLS])
{
    if (!m->on || slot < 0 || slot >= SYSMON_SLOTS) {
        memset(out, 0, SYSMON_CALLS * sizeof out[0]);
        return;
    }
    const volatile uint64_t *row = m->counts + (size_t)slot * SYSMON_CALLS;
    for (unsigned i = 0; i < SYSMON_CALLS; i++)
        out[i] = row[i];
}

void sysmon_stop(struct sysmon *m)
{
    if (m->counts != NULL)
        munmap((void *)(uintptr_t)m->counts, m->map_len);
    m->counts = NULL;
    int *fds[] = {&m->link_fd, &m->prog_fd, &m->counts_fd, &m->targets_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        /* a zeroed monitor holds fd 0, which is not ours */
        if (m->on || m->failed) {
            if (*fds[i] > 0)
                close(*fds[i]);
        }
        *fds[i] = -1;
    }
    m->on = 0;
}

const char *sysmon_call_name(unsigned nr)
{
    if (nr >= sizeof syscall_names / sizeof syscall_names[0])
        return NULL;
    return syscall_names[nr];
}

void sysmon_delta(const uint64_t before[SYSMON_CALLS], const uint64_t after[SYSMON_CALLS],
                  struct sysmon_delta *d)
{
    d->n = 0;
    for (unsigned nr = 0; nr < SYSMON_CALLS; nr++) {
        if (after[nr] <= before[nr])
            continue;
        uint64_t v = after[nr] - before[nr];
        if (d->n == SYSMON_DELTA_MAX) {
            d->nr[d->n - 1] = SYSMON_CALLS - 1;
            d->count[d->n - 1] += v;
            continue;
        }
        d->nr[d->n] = (uint16_t)nr;
        d->count[d->n] = v;
        d->n++;
    }
}

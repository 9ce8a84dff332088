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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "btf.h"
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

#define AND_IMM(d, i) INSN(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define JGE_REG(d, s, o) INSN(BPF_JMP | BPF_JGE | BPF_X, d, s, o, 0)
#define JA(o) INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)

/* A jump's offset is a label (LABEL(n)) until the program is laid out. */
enum { L_OUT, L_WRITE, L_R_OTHER, L_R_NET, L_R_COUNT, L_W_OTHER, L_W_NET, L_W_COUNT, LABELS };
#define LABEL_BASE (INT16_MAX - LABELS)
#define LABEL(n) (LABEL_BASE + (n))

struct prog {
    struct bpf_insn insn[SYSMON_MAX_INSNS];
    size_t n;
    long at[LABELS]; /* where each label is, -1 until placed */
    int overflow;
};

static void emit(struct prog *p, const struct bpf_insn *insns, size_t n)
{
    if (p->n + n > SYSMON_MAX_INSNS) {
        p->overflow = 1;
        return;
    }
    memcpy(p->insn + p->n, insns, n * sizeof insns[0]);
    p->n += n;
}
#define EMIT(p, ...)                                                                               \
    emit(p, (const struct bpf_insn[]){__VA_ARGS__},                                                \
         sizeof((const struct bpf_insn[]){__VA_ARGS__}) / sizeof(struct bpf_insn))

static void place(struct prog *p, int label)
{
    p->at[label] = (long)p->n;
}

/* Registers the program keeps: R6 the context, R8 the slot, R9 the call. */
static void count_key(struct prog *p, int key_reg, int counts)
{
    /* counts[key] += 1, key in key_reg: a slot's row starts at slot << 10 */
    EMIT(p, STX(BPF_W, R10, key_reg, -16), LD_MAP(R1, counts), MOV_REG(R2, R10), ADD_IMM(R2, -16),
         CALL(BPF_FUNC_map_lookup_elem));
}

/* kernel_read(dst stack offset, size, from the address in R3): R0 != 0 on a
 * fault, and the jump to `fail` takes it. */
static void kread(struct prog *p, int16_t stack, int size, int fail)
{
    EMIT(p, MOV_REG(R1, R10), ADD_IMM(R1, stack), MOV_IMM(R2, size),
         CALL(BPF_FUNC_probe_read_kernel), JNE_IMM(R0, 0, LABEL(fail)));
}

/* Where a call's descriptor points, as the kernel sees it: the argument at
 * byte offset R7 - 1 of the caller's pt_regs, through current->files, its
 * fdtable and the file's inode, to the kind of i_mode, and for a socket
 * (file->private_data, a struct socket) its sock's family; then
 * counts[slot's row + SYSMON_CALLS + kind * 2 + dir] += 1. A descriptor
 * that is not open (or any read that faults) counts as SYSMON_FD_OTHER, a
 * socket whose family cannot be read as SYSMON_FD_NET. */
static void classify(struct prog *p, const struct sysmon_offsets *o, int dir, int other, int net,
                     int count, int done, int counts)
{
    EMIT(p, LDX(BPF_DW, R3, R6, 0), ADD_REG(R3, R7), ADD_IMM(R3, -1));
    kread(p, -32, 8, other);
    EMIT(p, LDX(BPF_DW, R7, R10, -32), /* R7: the descriptor */
         CALL(BPF_FUNC_get_current_task), MOV_REG(R3, R0), ADD_IMM(R3, o->task_files));
    kread(p, -40, 8, other);
    EMIT(p, LDX(BPF_DW, R3, R10, -40), ADD_IMM(R3, o->files_fdt));
    kread(p, -48, 8, other);
    EMIT(p, LDX(BPF_DW, R3, R10, -48), ADD_IMM(R3, o->fdt_max_fds));
    kread(p, -40, 4, other);
    EMIT(p, LDX(BPF_W, R1, R10, -40), JGE_REG(R7, R1, LABEL(other)), LDX(BPF_DW, R3, R10, -48),
         ADD_IMM(R3, o->fdt_fd));
    kread(p, -40, 8, other);
    EMIT(p, LDX(BPF_DW, R3, R10, -40), LSH_IMM(R7, 3), ADD_REG(R3, R7));
    kread(p, -40, 8, other);
    EMIT(p, LDX(BPF_DW, R3, R10, -40), JEQ_IMM(R3, 0, LABEL(other)), STX(BPF_DW, R10, R3, -56),
         ADD_IMM(R3, o->file_inode));
    kread(p, -40, 8, other);
    EMIT(p, LDX(BPF_DW, R3, R10, -40), JEQ_IMM(R3, 0, LABEL(other)), ADD_IMM(R3, o->inode_mode));
    kread(p, -40, 2, other);
    EMIT(p, LDX(BPF_H, R1, R10, -40), AND_IMM(R1, S_IFMT), MOV_IMM(R2, SYSMON_FD_OTHER),
         JNE_IMM(R1, S_IFREG, 1), MOV_IMM(R2, SYSMON_FD_FILE), JNE_IMM(R1, S_IFIFO, 1),
         MOV_IMM(R2, SYSMON_FD_PIPE), JNE_IMM(R1, S_IFSOCK, LABEL(count)),
         /* a socket: file->private_data->sk->__sk_common.skc_family */
         LDX(BPF_DW, R3, R10, -56), ADD_IMM(R3, o->file_private));
    kread(p, -40, 8, net);
    EMIT(p, LDX(BPF_DW, R3, R10, -40), JEQ_IMM(R3, 0, LABEL(net)), ADD_IMM(R3, o->socket_sk));
    kread(p, -40, 8, net);
    EMIT(p, LDX(BPF_DW, R3, R10, -40), JEQ_IMM(R3, 0, LABEL(net)), ADD_IMM(R3, o->sock_family));
    kread(p, -40, 2, net);
    EMIT(p, LDX(BPF_H, R1, R10, -40), MOV_IMM(R2, SYSMON_FD_NET),
         JNE_IMM(R1, AF_UNIX, LABEL(count)), MOV_IMM(R2, SYSMON_FD_UNIX), JA(LABEL(count)));
    place(p, net);
    EMIT(p, MOV_IMM(R2, SYSMON_FD_NET), JA(LABEL(count)));
    place(p, other);
    EMIT(p, MOV_IMM(R2, SYSMON_FD_OTHER));
    place(p, count);
    EMIT(p, LSH_IMM(R2, 1), ADD_IMM(R2, SYSMON_CALLS + dir), MOV_REG(R1, R8), LSH_IMM(R1, 10),
         ADD_REG(R2, R1));
    count_key(p, R2, counts);
    EMIT(p, JEQ_IMM(R0, 0, LABEL(done)), MOV_IMM(R1, 1), ATOMIC_ADD64(R0, R1, 0));
}

/* On each system call entry: if the calling process (its tgid in the
 * namespace dev/ino) is a target, add one to counts[slot's row + nr]. When
 * o is given and the call is one the kernel counts as a read or a write
 * (the io map: the pt_regs offset of the descriptor it reads, plus one, and
 * of the one it writes), also count it by what that descriptor is. The raw
 * tracepoint's context is its arguments: (struct pt_regs *, long nr).
 * Stack: -8 struct bpf_pidns_info {pid, tgid}, -12 the targets key, -16 a
 * counts key, -20 the io key, -24 the write offset, -32..-48 kernel reads,
 * -56 the file. */
static size_t assemble(struct prog *p, uint64_t dev, uint64_t ino, int targets, int counts,
                       const struct sysmon_offsets *o, int io)
{
    memset(p, 0, sizeof *p);
    for (int i = 0; i < LABELS; i++)
        p->at[i] = -1;
    EMIT(p, MOV_REG(R6, R1), LD_IMM64(R1, dev), LD_IMM64(R2, ino), MOV_REG(R3, R10),
         ADD_IMM(R3, -8), MOV_IMM(R4, 8), CALL(BPF_FUNC_get_ns_current_pid_tgid),
         JNE_IMM(R0, 0, LABEL(L_OUT)), /* not in that namespace */
         LDX(BPF_W, R1, R10, -4), STX(BPF_W, R10, R1, -12), LD_MAP(R1, targets), MOV_REG(R2, R10),
         ADD_IMM(R2, -12), CALL(BPF_FUNC_map_lookup_elem),
         JEQ_IMM(R0, 0, LABEL(L_OUT)), /* not a target */
         LDX(BPF_W, R8, R0, 0), LDX(BPF_DW, R9, R6, 8), JLT_IMM(R9, SYSMON_CALLS - 1, 1),
         MOV_IMM(R9, SYSMON_CALLS - 1), MOV_REG(R2, R8), LSH_IMM(R2, 10), ADD_REG(R2, R9));
    count_key(p, R2, counts);
    EMIT(p, JEQ_IMM(R0, 0, LABEL(L_OUT)), MOV_IMM(R1, 1), ATOMIC_ADD64(R0, R1, 0));
    if (o != NULL) {
        EMIT(p, STX(BPF_W, R10, R9, -20), LD_MAP(R1, io), MOV_REG(R2, R10), ADD_IMM(R2, -20),
             CALL(BPF_FUNC_map_lookup_elem), JEQ_IMM(R0, 0, LABEL(L_OUT)), LDX(BPF_W, R7, R0, 0),
             LDX(BPF_W, R1, R0, 4), STX(BPF_W, R10, R1, -24), JEQ_IMM(R7, 0, LABEL(L_WRITE)));
        classify(p, o, 0, L_R_OTHER, L_R_NET, L_R_COUNT, L_WRITE, counts);
        place(p, L_WRITE);
        EMIT(p, LDX(BPF_W, R7, R10, -24), JEQ_IMM(R7, 0, LABEL(L_OUT)));
        classify(p, o, 1, L_W_OTHER, L_W_NET, L_W_COUNT, L_OUT, counts);
    }
    place(p, L_OUT);
    EMIT(p, MOV_IMM(R0, 0), EXIT());
    for (size_t i = 0; i < p->n; i++) {
        struct bpf_insn *in = &p->insn[i];
        if (BPF_CLASS(in->code) == BPF_JMP && in->code != (BPF_JMP | BPF_CALL) &&
            in->off >= LABEL_BASE) {
            long to = p->at[in->off - LABEL_BASE];
            if (to < 0)
                p->overflow = 1;
            in->off = (int16_t)(to - (long)i - 1);
        }
    }
    _Static_assert(SYSMON_ROW == 1 << 10, "the shifts above multiply by SYSMON_ROW");
    return p->overflow ? 0 : p->n;
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

/* Load a program; on a refusal, why (the verifier's last line) in why. */
static int load_prog(const struct prog *p, char *why, size_t why_len)
{
    static char log[65536];
    union bpf_attr a;
    memset(&a, 0, sizeof a);
    a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
    a.insns = (uint64_t)(uintptr_t)p->insn;
    a.insn_cnt = (uint32_t)p->n;
    a.license = (uint64_t)(uintptr_t) "Dual MIT/GPL";
    why[0] = '\0';
    int fd = (int)bpf(BPF_PROG_LOAD, &a);
    if (fd < 0 && (errno == EINVAL || errno == EACCES)) {
        int err = errno;
        /* load again only to hear the verifier's reason */
        a.log_buf = (uint64_t)(uintptr_t)log;
        a.log_size = sizeof log;
        a.log_level = 1;
        log[0] = '\0';
        fd = (int)bpf(BPF_PROG_LOAD, &a);
        if (fd < 0) {
            char *last = strrchr(log, '\n');
            while (last != NULL && last > log && last[1] == '\0') {
                *last = '\0';
                last = strrchr(log, '\n');
            }
            snprintf(why, why_len, "the kernel refused the counting program: %s",
                     last != NULL     ? last + 1
                     : log[0] != '\0' ? log
                                      : strerror(err));
            errno = err;
        }
    }
    return fd;
}

/* The kernel's layout of what the program follows, from its BTF; -1 with
 * the reason in m->fdio_reason. */
static int kernel_offsets(struct sysmon *m, struct sysmon_offsets *o)
{
    static const char path[] = "/sys/kernel/btf/vmlinux";
    size_t len = 0;
    unsigned char *btf = (unsigned char *)procfile_slurp(path, 64u << 20, &len);
    if (btf == NULL) {
        snprintf(m->fdio_reason, sizeof m->fdio_reason, "no kernel BTF (%s: %s)", path,
                 strerror(errno));
        return -1;
    }
    struct btf_field f[] = {
        {"task_struct", "files", -1}, {"files_struct", "fdt", -1},
        {"fdtable", "max_fds", -1},   {"fdtable", "fd", -1},
        {"file", "f_inode", -1},      {"inode", "i_mode", -1},
        {"file", "private_data", -1}, {"socket", "sk", -1},
        {"sock", "__sk_common", -1},  {"sock_common", "skc_family", -1},
    };
    int missing = btf_find_fields(btf, len, f, sizeof f / sizeof f[0]);
    free(btf);
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].offset < 0 || f[i].offset > 65535) {
            snprintf(m->fdio_reason, sizeof m->fdio_reason, "%s: no %s.%s in the kernel's BTF",
                     missing < 0 ? "damaged BTF" : path, f[i].type, f[i].member);
            return -1;
        }
    *o = (struct sysmon_offsets){
        (int)f[0].offset, (int)f[1].offset, (int)f[2].offset,
        (int)f[3].offset, (int)f[4].offset, (int)f[5].offset,
        (int)f[6].offset, (int)f[7].offset, (int)(f[8].offset + f[9].offset)};
    return 0;
}

/* The calls the kernel counts in syscr and syscw, and the pt_regs offset
 * of the descriptor each reads from and writes to (plus one; 0: none). */
static int fill_io_map(struct sysmon *m)
{
#if defined(__x86_64__)
    const uint32_t arg[3] = {112 + 1, 104 + 1, 96 + 1}; /* di, si, dx */
#elif defined(__aarch64__)
    const uint32_t arg[3] = {0 + 1, 8 + 1, 16 + 1}; /* x0, x1, x2 */
#else
    snprintf(m->fdio_reason, sizeof m->fdio_reason, "not on this architecture");
    return -1;
#endif
#if defined(__x86_64__) || defined(__aarch64__)
    static const struct {
        long nr;
        int read_arg, write_arg; /* -1: none */
    } calls[] = {
        {SYS_read, 0, -1},     {SYS_readv, 0, -1},    {SYS_pread64, 0, -1},
        {SYS_preadv, 0, -1},   {SYS_preadv2, 0, -1},  {SYS_write, -1, 0},
        {SYS_writev, -1, 0},   {SYS_pwrite64, -1, 0}, {SYS_pwritev, -1, 0},
        {SYS_pwritev2, -1, 0}, {SYS_sendfile, 1, 0},  {SYS_copy_file_range, 0, 2},
    };
    m->io_fd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, SYSMON_CALLS, 0);
    if (m->io_fd < 0) {
        snprintf(m->fdio_reason, sizeof m->fdio_reason, "creating its BPF map: %s",
                 strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        uint32_t key = (uint32_t)calls[i].nr;
        uint32_t value[2] = {calls[i].read_arg < 0 ? 0 : arg[calls[i].read_arg],
                             calls[i].write_arg < 0 ? 0 : arg[calls[i].write_arg]};
        union bpf_attr a;
        memset(&a, 0, sizeof a);
        a.map_fd = (uint32_t)m->io_fd;
        a.key = (uint64_t)(uintptr_t)&key;
        a.value = (uint64_t)(uintptr_t)value;
        a.flags = BPF_ANY;
        if (key >= SYSMON_CALLS || bpf(BPF_MAP_UPDATE_ELEM, &a) != 0) {
            snprintf(m->fdio_reason, sizeof m->fdio_reason, "filling its BPF map: %s",
                     strerror(errno));
            return -1;
        }
    }
    return 0;
#endif
}

static int load(struct sysmon *m, uint64_t dev, uint64_t ino)
{
    m->targets_fd = m->counts_fd = m->prog_fd = m->link_fd = m->io_fd = -1;
    m->targets_fd = map_create(BPF_MAP_TYPE_HASH, 4, 4, MAX_TARGETS, 0);
    if (m->targets_fd < 0) {
        refused(m, "creating a BPF map", errno);
        return -1;
    }
    m->counts_fd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, SYSMON_SLOTS * SYSMON_ROW, BPF_F_MMAPABLE);
    if (m->counts_fd < 0) {
        refused(m, "creating a memory-mapped BPF array", errno);
        return -1;
    }
    m->map_len = SYSMON_SLOTS * SYSMON_ROW * sizeof(uint64_t);
    void *mapped = mmap(NULL, m->map_len, PROT_READ, MAP_SHARED, m->counts_fd, 0);
    if (mapped == MAP_FAILED) {
        refused(m, "mapping the counters", errno);
        return -1;
    }
    m->counts = mapped;

    /* Counting by descriptor kind is a part the kernel may refuse (no BTF,
     * an older kernel's helpers): then the calls are counted without it. */
    static struct prog p;
    struct sysmon_offsets o;
    char why[600];
    m->fdio_on = 0;
    if (kernel_offsets(m, &o) == 0 && fill_io_map(m) == 0) {
        if (assemble(&p, dev, ino, m->targets_fd, m->counts_fd, &o, m->io_fd) == 0)
            snprintf(m->fdio_reason, sizeof m->fdio_reason, "its program is too long (a bug)");
        else if ((m->prog_fd = load_prog(&p, why, sizeof why)) >= 0)
            m->fdio_on = 1;
        else
            snprintf(m->fdio_reason, sizeof m->fdio_reason, "%s",
                     why[0] != '\0' ? why : strerror(errno));
    }
    if (!m->fdio_on) {
        assemble(&p, dev, ino, m->targets_fd, m->counts_fd, NULL, -1);
        m->prog_fd = load_prog(&p, why, sizeof why);
        if (m->prog_fd < 0 && why[0] != '\0') {
            snprintf(m->reason, sizeof m->reason, "system call counting off: %s", why);
            m->failed = 1;
            return -1;
        }
    }
    if (m->prog_fd < 0) {
        refused(m, "loading the counting program", errno);
        return -1;
    }
    union bpf_attr a;
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
    const volatile uint64_t *row = m->counts + (size_t)slot * SYSMON_ROW;
    for (unsigned i = 0; i < SYSMON_CALLS; i++)
        out[i] = row[i];
}

void sysmon_read_fdio(const struct sysmon *m, int slot, uint64_t out[SYSMON_FDIO])
{
    if (!m->on || !m->fdio_on || slot < 0 || slot >= SYSMON_SLOTS) {
        memset(out, 0, SYSMON_FDIO * sizeof out[0]);
        return;
    }
    const volatile uint64_t *row = m->counts + (size_t)slot * SYSMON_ROW + SYSMON_CALLS;
    for (unsigned i = 0; i < SYSMON_FDIO; i++)
        out[i] = row[i];
}

const char *sysmon_fd_kind_name(int kind)
{
    static const char *const names[SYSMON_FD_KINDS] = {"file", "net", "unix", "pipe", "other"};
    return kind >= 0 && kind < SYSMON_FD_KINDS ? names[kind] : "other";
}

void sysmon_stop(struct sysmon *m)
{
    if (m->counts != NULL)
        munmap((void *)(uintptr_t)m->counts, m->map_len);
    m->counts = NULL;
    int *fds[] = {&m->link_fd, &m->prog_fd, &m->counts_fd, &m->targets_fd, &m->io_fd};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
        /* a zeroed monitor holds fd 0, which is not ours */
        if (m->on || m->failed) {
            if (*fds[i] > 0)
                close(*fds[i]);
        }
        *fds[i] = -1;
    }
    m->on = 0; /* fdio_on stays: it says what was counted */
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

/* Instruction counts of the server's afpd sessions, from the files valgrind
 * leaves when an afpd session process ends (the instrumented server:
 * scripts/local-server start --instrument, docs/server.md):
 * DIR/callgrind.out.PID or DIR/cachegrind.out.PID. The files come from the
 * server side and are parsed as untrusted input: every line, name, number
 * and count is bounded, and a file that does not add up is refused. */
#ifndef AFPBENCH_INSTR_H
#define AFPBENCH_INSTR_H

#include <stddef.h>
#include <stdint.h>

/* Limits on what a file may hold. */
#define INSTR_MAX_FILE_BYTES (512ull << 20)
#define INSTR_MAX_LINE 65536
#define INSTR_MAX_FUNCS 200000u
#define INSTR_MAX_NAME_IDS 4000000u

/* Self cost (Ir) per function name. */
struct instr_func {
    char *name;
    uint64_t ir;
};

struct instr_profile {
    char tool[16];            /* "callgrind" or "cachegrind" */
    uint64_t total;           /* the file's totals/summary Ir */
    long pid;                 /* the file's "pid:" header; 0 when absent */
    struct instr_func *funcs; /* hash table, cap slots (name NULL = empty) */
    size_t nfuncs, cap;
};

void instr_profile_init(struct instr_profile *p);
void instr_profile_free(struct instr_profile *p);

/* Parse the text of a callgrind or cachegrind output file (len bytes, need
 * not be NUL-terminated). The total is the file's "totals:" (callgrind) or
 * "summary:" line; the per-function self costs must add up to it. Returns 0,
 * or -1 with a reason in err. */
int instr_parse(const char *text, size_t len, struct instr_profile *p, char *err, size_t errlen);

/* Read and parse a file (at most INSTR_MAX_FILE_BYTES). 0 or -1 with err. */
int instr_parse_file(const char *path, struct instr_profile *p, char *err, size_t errlen);

/* Wait up to timeout_ms for the file afpd session `pid` leaves in dir
 * (callgrind.out.PID or cachegrind.out.PID), complete: the process is gone
 * from proc_root (when given and readable) and the file parses. Then
 * parse it into p. 0, or -1 with err (timed out, unreadable, malformed). */
int instr_wait_profile(const char *dir, const char *proc_root, int pid, int timeout_ms,
                       struct instr_profile *p, char *err, size_t errlen);

/* The self cost of one function, 0 when it is not there. */
uint64_t instr_func_ir(const struct instr_profile *p, const char *name);

/* A signed per-function sum over several profiles (e.g. a test's sessions
 * minus as many empty sessions). */
struct instr_acc_entry {
    char *name;
    int64_t ir;
};
struct instr_acc {
    struct instr_acc_entry *e; /* hash table, cap slots */
    size_t n, cap;
};
void instr_acc_free(struct instr_acc *a);
/* Add mult times every function of src. -1 when out of memory, beyond
 * INSTR_MAX_FUNCS, or a sum would overflow. */
int instr_acc_add(struct instr_acc *a, const struct instr_profile *src, int64_t mult);

/* Is the process described by cmdline (NUL-separated argv, len bytes, as in
 * /proc/PID/cmdline) a valgrind tool running a program whose file name is
 * `name`? (valgrind's tools rename the process: comm is then e.g.
 * "callgrind-amd64".) */
int instr_valgrind_runs(const char *cmdline, size_t len, const char *name);

/* The CPU's feature flags (the "flags" line of /proc/cpuinfo), which select
 * glibc's string routines and so change counts; "" when unknown. */
void instr_cpu_flags(char *buf, size_t len);

#endif

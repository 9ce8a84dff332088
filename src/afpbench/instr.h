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
#include <stdio.h>

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

/* ---- an instrumented run (lantest --instr-dir) ---- */

#define INSTR_EMPTY_SESSIONS 3
#define INSTR_WAIT_MS 60000
/* Per-test function tables keep functions that moved at least this share of
 * a session's instructions (and at most INSTR_TABLE_MAX of them). */
#define INSTR_TABLE_SHARE 1e-4
#define INSTR_TABLE_MAX 400

struct instr_run {
    const char *dir;
    char tool[16];
    uint64_t empty_ir[INSTR_EMPTY_SESSIONS]; /* the empty sessions measured */
    unsigned n_empty;
    uint64_t empty_median;      /* subtracted from every session */
    uint64_t empty_ops;         /* AFP ops of an empty session */
    struct instr_profile empty; /* the median empty session's functions */
    uint64_t sessions_ops;      /* AFP ops of every measured session (client CPU) */
    char cpu_flags[4096];
};

/* The run's "instr" object (docs/results-format.md), without a trailing
 * comma or newline. */
void instr_run_print_json(const struct instr_run *run, FILE *f);
/* A test's "instr_functions" object: acc / sessions per function, the
 * INSTR_TABLE_MAX largest by magnitude at least INSTR_TABLE_SHARE of
 * per_session_total. */
void instr_print_functions(FILE *f, const struct instr_acc *acc, unsigned sessions,
                           uint64_t per_session_total);

/* The CPU's feature flags (the "flags" line of /proc/cpuinfo), which select
 * glibc's string routines and so change counts; "" when unknown. */
void instr_cpu_flags(char *buf, size_t len);

#endif

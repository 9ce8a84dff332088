/* The measured results of one afpbench run, and its JSON form
 * (schema "afpbench-results/1", docs/results-format.md). Both suites fill
 * this; the JSON writer and the human/CSV reports read it. */
#ifndef AFPBENCH_RESULTS_H
#define AFPBENCH_RESULTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iomon.h"

struct attribution_result;
struct instr_acc;
struct instr_run;

#define RESULTS_SCHEMA "afpbench-results/1"
#define RESULTS_UNKNOWN UINT64_MAX /* a count that is null in the JSON */

struct result_sample {
    unsigned iteration;                      /* 1-based, warm-ups excluded */
    unsigned order;                          /* A/B: 1 or 2, its place in the pair; 0 = unpaired */
    uint64_t us;                             /* wall time of the timed region, monotonic clock */
    uint64_t afpd_r, afpd_w, cnid_r, cnid_w; /* RESULTS_UNKNOWN when not monitored */
    uint64_t afpd_rchar, afpd_wchar;         /* afpd's read/written bytes (all fds); or UNKNOWN */
    uint64_t afpd_cpu_us, cnid_cpu_us;       /* server CPU time (user + system); or UNKNOWN */
    uint64_t afpd_wait_us; /* afpd's time runnable but waiting for a CPU; or UNKNOWN */
    /* the peak resident memory of afpd and cnid_dbd in the timed region
     * (VmHWM, reset at its start), KiB; or UNKNOWN */
    uint64_t afpd_hwm_kb, cnid_hwm_kb;
    /* every system call of afpd and cnid_dbd in the timed region, by call;
     * valid when sys_known (cnid_sys when cnid_sys_known) */
    int sys_known, cnid_sys_known;
    struct sysmon_delta afpd_sys, cnid_sys;
    /* their read and write calls by descriptor kind (SYSMON_FD_* * 2 + dir),
     * valid when fdio_known (and cnid_sys_known for cnid_dbd's) */
    int fdio_known;
    uint64_t afpd_fdio[SYSMON_FDIO], cnid_fdio[SYSMON_FDIO];
    uint64_t bytes;   /* payload bytes moved in the timed region */
    uint64_t afp_ops; /* AFP requests issued in the timed region */
    /* Instrumented runs (instr.h): the session's afpd instructions and AFP
     * ops, each minus an empty session's; valid when instr_known. */
    int instr_known;
    uint64_t afpd_instr, instr_afp_ops;
};

struct result_test {
    char key[64];      /* "lantest.<n>" or "speedtest.<Op>.<size>" */
    const char *suite; /* "lantest" | "speedtest" */
    int id;            /* lantest number; 0 = null (speedtest) */
    char name[128];
    const char *op;           /* speedtest op name, or NULL */
    uint64_t size_bytes;      /* RESULTS_UNKNOWN = null */
    uint64_t afp_ops;         /* per timed region as really run; RESULTS_UNKNOWN until known */
    uint64_t afp_ops_nominal; /* the upstream label's number; RESULTS_UNKNOWN = null */
    int failed;
    char error[512];
    struct result_sample *samples;
    size_t nsamples, cap;
    /* Instrumented runs: per-function instructions over instr_sessions
     * sessions (minus as many empty ones); owned. */
    int instr;
    struct instr_acc *instr_funcs;
    unsigned instr_sessions;
    /* The per-command pass (attribution.h): the server's calls by AFP command;
     * owned, NULL when it did not run. */
    struct attribution_result *commands;
};

struct results_server {
    int known; /* DSIGetStatus answered */
    char name[256], machine_type[256];
    char versions[16][32];
    unsigned n_versions;
    char uams[16][64];
    unsigned n_uams;
    char afp_version[32];        /* logged in with; "" = null */
    uint32_t quantum;            /* 0 = null */
    char afp_conf_sha256[65];    /* of the server's afp.conf (srvfiles.h); "" = null */
    char afp_conf_settings[256]; /* its settings under test (srvfiles.h); "" = null */
};

struct results {
    const char *suite; /* "lantest" | "speedtest" */
    const char *suite_version;
    int failed;
    int exit_code;
    char error[512];
    char started_at[32], finished_at[32];
    char **argv; /* redacted, NULL-terminated (see cli_redacted_argv) */
    const char *host;
    unsigned port;
    const char *volume;
    struct results_server server;
    unsigned iterations;
    uint32_t lantest_tests; /* bit n-1 = test n ran/selected */
    uint64_t bigfile_bytes; /* RESULTS_UNKNOWN = null */
    unsigned window;
    const struct iomon *io; /* NULL = never started (reason below) */
    const char *io_reason;  /* when io is NULL; default "not started: no session" */
    int cpu_known;
    uint64_t cpu_user_us, cpu_sys_us, cpu_afp_ops;
    /* --cpu (pin.h): what was asked (PIN_OFF: nothing), the CPU the run and
     * the servers' processes ran on (-1: none), and why not */
    int cpu_asked, cpu_pinned;
    char cpu_note[200];
    const char *dircache_stats; /* server log line, or NULL */
    int by_command;             /* the per-command pass was asked for */
    char commands_note[400];    /* why it could not run, or "" */
    /* speedtest only (printed in "config" when suite is "speedtest") */
    unsigned warmup;
    uint32_t request_bytes; /* bytes per FPReadExt/FPWriteExt or read()/write() */
    int local_mode, direct_io;
    const char *tcp_metrics_json;  /* a JSON object, or NULL */
    const char *load_json;         /* afpbench load: the "load" object, or NULL */
    const char *spotlight_json;    /* afpbench spotlight: the "spotlight" object, or NULL */
    const struct instr_run *instr; /* instrumented run (instr.h), or NULL */
    struct result_test *tests;
    size_t ntests, cap;
    /* A/B: the base server's results, measured in this run interleaved with
     * these (the head's); written as "base" with a "pairing". NULL: none. */
    const struct results *base;
};

void results_init(struct results *r, const char *suite, const char *suite_version);
void results_free(struct results *r);
/* A new test entry (zeroed, unknown sizes/ops); NULL when out of memory. The
 * pointer stays valid until the next results_add_test. */
struct result_test *results_add_test(struct results *r, const char *key, const char *name);
struct result_test *results_find_test(struct results *r, const char *key);
/* Append a sample; -1 when out of memory. */
int results_add_sample(struct result_test *t, const struct result_sample *s);
/* Mark the run failed with an exit code and message (first failure wins). */
void results_fail(struct results *r, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A failure of test t (NULL: of no test): t is marked failed and keeps its
 * first message, the run gets results_fail. Returns exit_code. */
int results_fail_test(struct results *r, struct result_test *t, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The run is over: its client CPU time so far and its end time. */
void results_finish(struct results *r);
/* A/B: one process drove both sessions, so each side's client CPU is the
 * process's over both sides' AFP ops (after results_finish of both). */
void results_share_cpu(struct results *head, struct results *base);
/* Say the run's error on stderr ("afpbench SUITE: error: ..."), then write
 * the JSON to json_path unless it is NULL: what was measured before a
 * failure is kept. A failed write is said too and, when nothing failed
 * before, fails the run (EXIT_FILEDIR). */
void results_save(struct results *r, const char *json_path);

/* Write the JSON document to path (through a temporary file renamed into
 * place, so a reader never sees half a file). 0, or -1 with errno set. */
int results_write_json(const struct results *r, const char *path);
/* The same document to a stream. */
void results_print_json(const struct results *r, FILE *f);

/* For the human reports: which afpd and cnid_dbd were monitored and how
 * they were found, or why IO monitoring is off. One or two lines. */
void results_print_io_status(const struct results *r, FILE *out);

/* Environment of the client machine, for the JSON. */
struct results_env {
    char hostname[256], kernel[256], cpu_model[256];
    long cores;
    int container;
};
void results_probe_env(struct results_env *e);

/* JSON string with escaping (exposed for tests). */
void json_write_string(FILE *f, const char *s);

#endif

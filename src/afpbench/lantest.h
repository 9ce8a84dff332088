/* afpbench lantest: the 12 tests of afp_lantest's 12-test generation.
 * Shared between the runner (lantest.c), the tests (lantest_tests.c) and
 * the reports (lantest_report.c). */
#ifndef AFPBENCH_LANTEST_H
#define AFPBENCH_LANTEST_H

#include <stdint.h>
#include <stdio.h>

#include "benchconn.h"
#include "cli.h"
#include "iomon.h"
#include "pattern.h"
#include "results.h"
#include "timed.h"
#include "tracer.h"

#define LANTEST_SUITE_VERSION "lantest-12/1"

/* Outstanding FPReadExt/FPWriteExt requests in tests 2 and 3 (upstream
 * sends them all without waiting; a bounded window keeps memory fixed). */
#define LANTEST_WINDOW 16
/* Test 3 compares every 16th chunk it reads back byte for byte, and the
 * others by every block's stamp and one whole block (pattern_buf_check):
 * a full compare of each 1 MiB chunk cost the client more instructions
 * than all of upstream's work per request. */
#define LANTEST_FULL_CHECK_EVERY 16
/* The most names one test needs at once (test 5's 2000 files), and their room. */
#define LANTEST_NAMES 2000
#define LANTEST_NAME_LEN 24

struct afp_session;
struct attribution;
struct lt_instr;

/* The state of one lantest run. */
struct lt {
    const struct lantest_opts *o;
    struct afp_session *s;
    uint16_t vol;
    uint32_t dir; /* DID of the test directory LanTest-<pid> */
    char dirname[64];
    struct iomon io;
    struct srvfiles srv; /* the server's files through afpd's proc root */
    struct results *res;
    struct result_test *cur; /* the test being run */
    int test_id;
    unsigned iteration;      /* 1-based */
    unsigned order;          /* A/B: 1 or 2, this side's place in the pair; 0 = no A/B */
    const char *label;       /* progress prefix: "" or "[head] " / "[base] " */
    const char *side_suffix; /* appended to the test directory's name */
    int connection_lost;     /* a local (network/protocol) failure happened */
    struct timed_region timed;
    /* buffers, allocated once */
    struct pattern_buf pat; /* quantum-sized pattern source */
    uint8_t *rbuf;          /* quantum-sized receive buffer */
    uint32_t chunk;         /* FPReadExt/FPWriteExt payload size */
    int big_written;        /* test 2 left File.big for test 3 */
    /* The names a test's loops use, made before its timed region so that
     * no formatting runs between the clock's reads (LANTEST_NAMES x
     * LANTEST_NAME_LEN, allocated once). */
    char (*names)[LANTEST_NAME_LEN];
    struct lt_instr *instr;          /* --instr-dir: lantest_instr.c; NULL otherwise */
    struct attribution *attribution; /* --by-command: NULL when it cannot run */
    int attribution_pass;            /* the untimed per-command pass is running */
    const char *side_name;           /* "head" or "base": trace files' names */
    struct tracer tracer;            /* --trace: the tool tracing a request now */
};

struct lantest_def {
    int id;
    const char *name;     /* upstream label, verbatim */
    uint64_t nominal_ops; /* the number in the label */
    int (*run)(struct lt *c);
    const char *group;    /* "files" or "cache" (the gate's AFPBENCH_TESTS=cache) */
    const char *commands; /* the AFP commands its timed part sends, comma-separated */
};

/* The catalogue of the tests (afpbench lantest --list): a table, or with
 * json the JSON that scripts/lantest-tests.json holds (the gate's ranges and
 * groups, the docs' table). */
void lantest_list(FILE *out, int json);

/* The tests, index id - 1 (lantest_num_tests of them). */
extern const struct lantest_def lantest_defs[];

/* Reports to out: the human table with the Aggregates Summary, or CSV with
 * afp_lantest's header lines. */
void lantest_report_human(const struct results *r, FILE *out);
void lantest_report_csv(const struct results *r, FILE *out);

/* The CSV field for a test name: quoted (with "" for ") when it contains a
 * comma or a quote, else as is. Writes to out. */
void lantest_csv_name(FILE *out, const char *name);

#endif

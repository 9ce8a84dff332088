/* results.c and lantest_report.c: the JSON document, afp_lantest's CSV and
 * how failures are recorded. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lantest.h"
#include "results.h"

static char *capture_csv(const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lantest_report_csv(r, f);
    fclose(f);
    return buf;
}

static char *capture_human(const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lantest_report_human(r, f);
    fclose(f);
    return buf;
}

static char *capture_json(const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    results_print_json(r, f);
    fclose(f);
    return buf;
}

static void add(struct result_test *t, unsigned it, uint64_t us, uint64_t io)
{
    struct result_sample s = {.iteration = it,
                              .us = us,
                              .afpd_r = io,
                              .afpd_w = io + 1,
                              .cnid_r = RESULTS_UNKNOWN,
                              .cnid_w = RESULTS_UNKNOWN,
                              .afpd_rchar = RESULTS_UNKNOWN,
                              .afpd_wchar = RESULTS_UNKNOWN,
                              .afpd_cpu_us = RESULTS_UNKNOWN,
                              .afpd_wait_us = RESULTS_UNKNOWN,
                              .cnid_cpu_us = RESULTS_UNKNOWN,
                              .bytes = 0,
                              .afp_ops = 8000};
    results_add_sample(t, &s);
}

static void build(struct results *r, struct iomon *m)
{
    results_init(r, "lantest", LANTEST_SUITE_VERSION);
    r->iterations = 2;
    memset(m, 0, sizeof *m);
    m->enabled = 1;
    m->rule = "socket";
    m->afpd_pid = 42;
    r->io = m;
    struct result_test *t = results_add_test(r, "lantest.1", lantest_defs[0].name);
    t->id = 1;
    t->afp_ops_nominal = 8000;
    add(t, 1, 400000, 8000);
    add(t, 2, 600000, 8002);
    t = results_add_test(r, "lantest.4", lantest_defs[3].name);
    t->id = 4;
    t->afp_ops_nominal = 20000;
    add(t, 1, 1000000, 0);
    add(t, 2, 1000000, 0);
}

static void test_csv_exact(void)
{
    struct results r;
    struct iomon m;
    build(&r, &m);
    char *csv = capture_csv(&r);
    const char *want =
        "Test,Time_ms,Time\xc2\xb1,AFPD_R,AFPD_R\xc2\xb1,AFPD_W,AFPD_W\xc2\xb1,CNID_R,CNID_"
        "R\xc2\xb1,"
        "CNID_W,CNID_W\xc2\xb1,MB/s\n"
        "\"Open, stat and read 512 bytes from 1000 files [8,000 AFP ops]\",500,141.4,"
        "8001,1.4,8002,1.4,,,,,0\n"
        "\"Locking/Unlocking 10000 times each [20,000 AFP ops]\",1000,0.0,0,0.0,1,0.0,,,,,0\n"
        "Sum of all AFP OPs = 28000,1500,,8001,,8003,,,,,,\n";
    CHECK_STR(csv, want);
    free(csv);

    m.enabled = 0; /* IO monitoring off: the short header */
    csv = capture_csv(&r);
    CHECK(strncmp(csv, "Test,Time_ms,Time\xc2\xb1,MB/s\n", 25) == 0);
    CHECK(strstr(csv, "\nSum of all AFP OPs = 28000,1500,,\n") != NULL);
    free(csv);
    results_free(&r);
}

/* The IO fields of the two "Sum of all AFP OPs" rows: CSV (count, then an
 * empty deviation, per column) and table (count or "-" per column). */
static int csv_sum_fields(const char *csv, char fields[4][32])
{
    const char *row = strstr(csv, "\nSum of all AFP OPs = ");
    if (row == NULL)
        return -1;
    /* label, Time_ms, Time±, then count and ± for each of the 4 columns, MB/s */
    const char *p = row + 1;
    for (int field = 0; field < 11; field++) {
        const char *end = strpbrk(p, ",\n");
        if (end == NULL || *end != ',')
            return -1;
        if (field >= 3 && field % 2 == 1)
            snprintf(fields[(field - 3) / 2], 32, "%.*s", (int)(end - p), p);
        p = end + 1;
    }
    return 0;
}

static int human_sum_fields(const char *table, char fields[4][32])
{
    const char *row = strstr(table, "\nSum of all AFP OPs = ");
    if (row == NULL)
        return -1;
    char time[32];
    unsigned long nominal;
    if (sscanf(row, "\nSum of all AFP OPs = %lu %31s %31s %31s %31s %31s", &nominal, time,
               fields[0], fields[1], fields[2], fields[3]) != 6)
        return -1;
    return 0;
}

/* A column only some tests measured has no sum in either report; a column
 * every test measured has the same sum in both. */
static void test_sum_rows_agree(void)
{
    struct results r;
    struct iomon m;
    build(&r, &m);
    /* test 4 lost its afpd write counts; CNID is unknown everywhere */
    for (size_t i = 0; i < r.tests[1].nsamples; i++)
        r.tests[1].samples[i].afpd_w = RESULTS_UNKNOWN;
    char *csv = capture_csv(&r), *table = capture_human(&r);
    char c[4][32], h[4][32];
    CHECK_INT(csv_sum_fields(csv, c), 0);
    CHECK_INT(human_sum_fields(table, h), 0);
    /* AFPD_R: 8001 + 0 in both; AFPD_W, CNID_R, CNID_W: no sum in either */
    CHECK_STR(c[0], "8001");
    CHECK_STR(h[0], "8001");
    for (int col = 1; col < 4; col++) {
        CHECK_STR(c[col], "");
        CHECK_STR(h[col], "-");
    }
    CHECK(strstr(csv, "\nSum of all AFP OPs = 28000,1500,,8001,,,,,,,,\n") != NULL);
    CHECK(strstr(table, "Average AFPD Writes per AFP OP: unknown (not monitored)") != NULL);
    free(csv);
    free(table);
    results_free(&r);
}

static void test_csv_name_quoting(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lantest_csv_name(f, "plain [103 AFP ops]");
    fputc('|', f);
    lantest_csv_name(f, "a, \"b\"");
    fclose(f);
    CHECK_STR(buf, "plain [103 AFP ops]|\"a, \"\"b\"\"\"");
    free(buf);
}

static void test_json(void)
{
    struct results r;
    struct iomon m;
    build(&r, &m);
    char *argv0 = strdup("afpbench"), *argv1 = strdup("-w***");
    char *argv[] = {argv0, argv1, NULL};
    r.argv = argv;
    r.host = "127.0.0.1";
    r.port = 548;
    r.tests[1].failed = 1;
    snprintf(r.tests[1].error, sizeof r.tests[1].error, "bad \"quote\"\n");
    results_fail(&r, 5, "first failure");
    results_fail(&r, 9, "second failure is ignored");
    char *js = capture_json(&r);
    CHECK(strstr(js, "\"schema\": \"afpbench-results/1\"") != NULL);
    CHECK(strstr(js, "\"status\": \"error\"") != NULL);
    CHECK(strstr(js, "{ \"exit_code\": 5, \"message\": \"first failure\" }") != NULL);
    CHECK(strstr(js, "\"error\": \"bad \\\"quote\\\"\\n\"") != NULL);
    CHECK(strstr(js, "\"cnid_r\": null") != NULL); /* unknown is null, never 0 */
    CHECK(strstr(js, "\"afpd_r\": 0,") != NULL);   /* zero is 0 */
    CHECK(strstr(js, "\"name\": null") != NULL);   /* server status unknown */
    CHECK(strstr(js, "\"key\": \"lantest.4\"") != NULL);
    CHECK(strstr(js, "\"-w***\"") != NULL);
    CHECK(strstr(js, "\"afp_conf_sha256\": null") != NULL); /* afp.conf not read */
    CHECK(strstr(js, "\"afp_conf_settings\": null\n") != NULL);
    free(js);
    snprintf(r.server.afp_conf_sha256, sizeof r.server.afp_conf_sha256, "%064d", 7);
    snprintf(r.server.afp_conf_settings, sizeof r.server.afp_conf_settings, "ea = \"ad\"");
    js = capture_json(&r);
    CHECK(strstr(js, "\"afp_conf_sha256\": \"0000000000000000000000000000000000000000000000000000"
                     "000000000007\",\n") != NULL);
    /* the server's text, escaped as JSON */
    CHECK(strstr(js, "\"afp_conf_settings\": \"ea = \\\"ad\\\"\"\n") != NULL);
    free(js);
    free(argv0);
    free(argv1);
    results_free(&r);
}

static void test_json_escaping(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_write_string(f, "a\x01\tb\\\xc2\xb1");
    fputc(' ', f);
    json_write_string(f, NULL);
    fclose(f);
    CHECK_STR(buf, "\"a\\u0001\\tb\\\\\xc2\xb1\" null");
    free(buf);
}

static void test_io_status(void)
{
    struct results r;
    struct iomon m;
    build(&r, &m);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    results_print_io_status(&r, f);
    m.cnid_pid = 43;
    m.cnid_rule = "user";
    results_print_io_status(&r, f);
    m.enabled = 0;
    snprintf(m.reason, sizeof m.reason, "no afpd process visible under /x");
    results_print_io_status(&r, f);
    r.io = NULL; /* never started: the run's own reason */
    results_print_io_status(&r, f);
    r.io_reason = "local mode: no server";
    results_print_io_status(&r, f);
    fclose(f);
    CHECK_STR(buf, "IO monitoring: afpd 42 (found by the socket rule), cnid_dbd not found\n"
                   "IO monitoring: afpd 42 (found by the socket rule), cnid_dbd 43 (user rule)\n"
                   "IO monitoring off: no afpd process visible under /x\n"
                   "IO monitoring off: not started: no session\n"
                   "IO monitoring off: local mode: no server\n");
    free(buf);
    results_free(&r);
}

/* A test and the run each keep their first failure; a run-level failure
 * (no test) marks no test. */
static void test_fail_test(void)
{
    struct results r;
    struct iomon m;
    build(&r, &m);
    struct result_test *a = &r.tests[0], *b = &r.tests[1];
    CHECK_INT(results_fail_test(&r, NULL, 5, "connection lost after %d tests", 0), 5);
    CHECK(r.failed && !a->failed && !b->failed);
    CHECK_INT(results_fail_test(&r, a, 7, "test %d: byte at %u differs", 1, 4096u), 7);
    CHECK_INT(results_fail_test(&r, a, 4, "test 1: a later failure"), 4);
    CHECK(a->failed && !b->failed);
    CHECK_STR(a->error, "test 1: byte at 4096 differs");
    CHECK_INT(r.exit_code, 5);
    CHECK_STR(r.error, "connection lost after 0 tests");
    results_free(&r);

    build(&r, &m);
    a = &r.tests[0];
    results_fail_test(&r, a, 7, "%s", "first");
    CHECK_INT(r.exit_code, 7);
    CHECK_STR(r.error, "first");
    CHECK_STR(a->error, "first");
    results_free(&r);
}

int main(void)
{
    RUN(test_csv_exact);
    RUN(test_sum_rows_agree);
    RUN(test_fail_test);
    RUN(test_io_status);
    RUN(test_csv_name_quoting);
    RUN(test_json);
    RUN(test_json_escaping);
    return harness_report();
}

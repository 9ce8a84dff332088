/* instr.c: the callgrind/cachegrind parser on hand-written files (each
 * feature of the format, and malformed input), a real afpd session file
 * (the fuzz corpus), the valgrind command-line rule and the wait. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "instr.h"

static int parse(const char *text, struct instr_profile *p, char *err, size_t errlen)
{
    return instr_parse(text, strlen(text), p, err, errlen);
}

static void test_cachegrind(void)
{
    struct instr_profile p;
    char err[256] = "";
    instr_profile_init(&p);
    const char *f = "desc: I1 cache: none\ncmd: /usr/sbin/afpd -d\nevents: Ir\n"
                    "fl=a.c\nfn=main\n10 5\n11 7\nfl=b.c\nfn=helper\n3 100\n"
                    "fl=c.c\nfn=main\n1 3\nfn=(below main)\n7 2\nsummary: 117\n";
    CHECK_INT(parse(f, &p, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_INT(p.total, 117);
    CHECK_INT(instr_func_ir(&p, "(below main)"), 2); /* a name, not a compressed id */
    CHECK_STR(p.tool, "cachegrind");
    CHECK_INT(instr_func_ir(&p, "main"), 15); /* same name in two files: one row */
    CHECK_INT(instr_func_ir(&p, "helper"), 100);
    CHECK_INT(instr_func_ir(&p, "nothere"), 0);
    instr_profile_free(&p);
}

static void test_callgrind(void)
{
    struct instr_profile p;
    char err[256] = "";
    instr_profile_init(&p);
    /* Compressed names (also defined by cfn=), calls= with its inclusive
     * cost line (not self cost), relative positions, hex addresses, a
     * recursion suffix, two events (Ir second), a missing trailing count. */
    const char *f = "# callgrind format\nversion: 1\ncreator: callgrind-3.24.0\npid: 4242\n"
                    "cmd:  /usr/sbin/afpd -d -F /etc/netatalk/afp.conf\npart: 1\n\n"
                    "positions: instr line\nevents: Dr Ir\nsummary: 0 1127\n\n"
                    "ob=(1) /usr/sbin/afpd\nfl=(1) ???\nfn=(1) afp_over_dsi\n"
                    "0x10 12 1 10\n+3 +1 0 20\n* * 5 30\ncfn=(2) dircache_search\n"
                    "calls=2 0x40 7\n0x10 12 0 900\n-2 -1 0 40\n"
                    "fn=(2)\n0x40 7 9 1000\n+1 * 1\nfn=(3) dircache_search'2\n0x44 8 0 11\n"
                    "fn=(4) 0x0000000000016900\n0x16900 1 0 5\nob=/lib/libatalk.so.19\n"
                    "fn=(5) 0x0000000000016900\n0x16900 1 0 6\nob=(1)\nfn=(4)\n0x16900 2 0 1\n"
                    "fn=(6) (below main)\n0x1 1 0 3\nfn=(6)\n0x2 1 0 1\n"
                    "\ntotals: 0 1127\n";
    CHECK_INT(parse(f, &p, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_INT(p.total, 1127);
    CHECK_INT(instr_func_ir(&p, "(below main)"), 4);
    CHECK_INT(p.pid, 4242);
    CHECK_STR(p.tool, "callgrind");
    CHECK_INT(instr_func_ir(&p, "afp_over_dsi"), 100);
    CHECK_INT(instr_func_ir(&p, "dircache_search"), 1011);
    /* Addresses are per object. */
    CHECK_INT(instr_func_ir(&p, "afpd:0x0000000000016900"), 6);
    CHECK_INT(instr_func_ir(&p, "libatalk.so.19:0x0000000000016900"), 6);
    instr_profile_free(&p);
}

static void expect_error(const char *f, const char *want)
{
    struct instr_profile p;
    char err[256] = "";
    instr_profile_init(&p);
    CHECK_INT(parse(f, &p, err, sizeof err), -1);
    if (!CHECK(strstr(err, want) != NULL))
        fprintf(stderr, "    error was: %s\n    wanted: %s\n", err, want);
    CHECK_INT(p.nfuncs, 0);
    instr_profile_free(&p);
}

/* A server instrumented with ordinary options: its summary (the whole run)
 * a few dozen above its totals (the file). The totals are the count. */
static void test_summary_above_totals(void)
{
    struct instr_profile p;
    char err[256] = "";
    instr_profile_init(&p);
    const char *f = "events: Ir\nsummary: 1163\nfn=a\n1 1100\nfn=b\n1 27\ntotals: 1127\n";
    CHECK_INT(parse(f, &p, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_INT(p.total, 1127);
    CHECK_INT(instr_func_ir(&p, "a"), 1100);
    CHECK_STR(p.tool, "callgrind");
    instr_profile_free(&p);
}

static void test_malformed(void)
{
    expect_error("", "no events line");
    expect_error("events: Dr\nfn=a\n1 5\nsummary: 5\n", "no Ir event");
    expect_error("events: Ir\nfn=a\n1 5\n", "no totals or summary");
    expect_error("events: Ir\nfn=a\n1 5\nsummary: 6\n", "add up to 5, the file's total is 6");
    expect_error("events: Ir\nfn=a\n1 5\nsummary: 5\ntotals: 4\n",
                 "add up to 5, the file's total is 4");
    expect_error("events: Ir\n1 5\nsummary: 5\n", "a cost before any function");
    expect_error("fn=a\n1 5\nevents: Ir\nsummary: 5\n", "before the events line");
    expect_error("events: Ir\nfn=(3)\n1 5\nsummary: 5\n", "used before it is defined");
    expect_error("events: Ir\nfn=(3) a\nfn=(3) b\n", "defined twice");
    expect_error("events: Ir\nfn=(99999999) a\n", "beyond");
    expect_error("events: Ir\nfn=a\n1 99999999999999999999\nsummary: 5\n", "malformed cost");
    expect_error("events: Ir\nfn=a\n1 18446744073709551615\n2 1\nsummary: 5\n", "overflow");
    expect_error("events: Ir\nfn=a\n1 5x\nsummary: 5\n", "malformed count");
    expect_error("events: Ir\nfn=a\n1 5 6\nsummary: 5\n", "malformed cost");
    expect_error("events: Ir\nfn=a\nx1 5\nsummary: 5\n", "not a callgrind/cachegrind line");
    expect_error("events: Ir\nfn=a\ncalls=1 2\nsummary: 0\n", "not followed by its cost line");
    expect_error("events: Ir\nfn=a\ncalls=1 2\n", "file incomplete");
    expect_error("events: Ir\nfn=a\njump=1 2\n", "not supported");
    expect_error("events: Ir\npart: 2\n", "several parts");
    expect_error("events: Ir\nsummary: 0\nsummary: 0\n", "a second summary");
    expect_error("events: Ir\npid: 0\n", "bad pid");
    expect_error("events: Ir\npositions: line bogus\n", "unknown position");
    expect_error("events: Ir\nfn=\n", "empty function name");

    /* A line longer than the limit, and a NUL byte. */
    size_t n = INSTR_MAX_LINE + 100;
    char *big = malloc(n + 32);
    if (!CHECK(big != NULL))
        return;
    strcpy(big, "events: Ir\nfn=");
    memset(big + strlen(big), 'a', n);
    big[n] = '\0';
    expect_error(big, "longer than");
    free(big);
    struct instr_profile p;
    char err[256] = "";
    instr_profile_init(&p);
    const char nul[] = "events: Ir\nfn=a\0b\n1 1\nsummary: 1\n";
    CHECK_INT(instr_parse(nul, sizeof nul - 1, &p, err, sizeof err), -1);
    CHECK(strstr(err, "NUL") != NULL);
    instr_profile_free(&p);
}

/* The fuzz corpus holds a real callgrind file of one afpd session. */
static void test_real_file(void)
{
    struct instr_profile p;
    char err[512] = "";
    instr_profile_init(&p);
    CHECK_INT(instr_parse_file("fuzz/corpus/instr/callgrind-afpd-session.out", &p, err, sizeof err),
              0);
    CHECK_STR(err, "");
    CHECK(p.total > 1000000);
    CHECK(instr_func_ir(&p, "afp_over_dsi") > 0);
    CHECK_STR(p.tool, "callgrind");
    instr_profile_free(&p);
    /* cachegrind's own file (valgrind 3.24), with "(below main)" */
    CHECK_INT(instr_parse_file("fuzz/corpus/instr/cachegrind-afpd-empty-session.out", &p, err,
                               sizeof err),
              0);
    CHECK_STR(err, "");
    CHECK_STR(p.tool, "cachegrind");
    CHECK(instr_func_ir(&p, "(below main)") > 0);
    instr_profile_free(&p);
    CHECK_INT(instr_parse_file("fuzz/corpus/instr/no-such-file", &p, err, sizeof err), -1);
    CHECK(strstr(err, "cannot open") != NULL);
}

static void test_acc(void)
{
    struct instr_profile a, b;
    char err[256];
    instr_profile_init(&a);
    instr_profile_init(&b);
    CHECK_INT(parse("events: Ir\nfn=x\n1 10\nfn=y\n1 5\nsummary: 15\n", &a, err, sizeof err), 0);
    CHECK_INT(parse("events: Ir\nfn=x\n1 4\nfn=z\n1 1\nsummary: 5\n", &b, err, sizeof err), 0);
    struct instr_acc acc = {0};
    CHECK_INT(instr_acc_add(&acc, &a, 2), 0);
    CHECK_INT(instr_acc_add(&acc, &b, -1), 0);
    int64_t x = 0, y = 0, z = 0;
    for (size_t i = 0; i < acc.cap; i++) {
        if (acc.e[i].name == NULL)
            continue;
        if (strcmp(acc.e[i].name, "x") == 0)
            x = acc.e[i].ir;
        if (strcmp(acc.e[i].name, "y") == 0)
            y = acc.e[i].ir;
        if (strcmp(acc.e[i].name, "z") == 0)
            z = acc.e[i].ir;
    }
    CHECK_INT(acc.n, 3);
    CHECK_INT(x, 16);
    CHECK_INT(y, 10);
    CHECK_INT(z, -1);
    instr_acc_free(&acc);
    instr_profile_free(&a);
    instr_profile_free(&b);
}

static void test_valgrind_cmdline(void)
{
    const char a[] = "/usr/bin/valgrind.bin\0-q\0--tool=callgrind\0/usr/sbin/afpd\0-d\0-F\0x";
    const char b[] = "/usr/libexec/valgrind/cachegrind-amd64-linux\0--tool=cachegrind\0afpd\0";
    const char c[] = "/usr/bin/valgrind.bin\0--tool=callgrind\0/usr/sbin/cnid_dbd\0afpd";
    const char d[] = "/usr/sbin/afpd\0-d";
    const char e[] = "/usr/bin/valgrind\0--tool=callgrind\0/usr/sbin/afpdx";
    CHECK(instr_valgrind_runs(a, sizeof a, "afpd"));
    CHECK(instr_valgrind_runs(b, sizeof b, "afpd"));
    CHECK(!instr_valgrind_runs(c, sizeof c, "afpd"));
    CHECK(instr_valgrind_runs(c, sizeof c, "cnid_dbd"));
    CHECK(!instr_valgrind_runs(d, sizeof d, "afpd"));
    CHECK(!instr_valgrind_runs(e, sizeof e, "afpd"));
    CHECK(!instr_valgrind_runs("", 0, "afpd"));
}

/* The wait: a file of a pid that is not running (empty proc root: gone)
 * parses at once; a missing one is said within its grace second. */
static void test_wait(void)
{
    char dir[] = "/tmp/afpbench-instr-XXXXXX", proc[] = "/tmp/afpbench-proc-XXXXXX";
    if (!CHECK(mkdtemp(dir) != NULL) || !CHECK(mkdtemp(proc) != NULL))
        return;
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/callgrind.out.77", dir);
    FILE *f = fopen(path, "w");
    if (!CHECK(f != NULL))
        return;
    fputs("pid: 77\nevents: Ir\nfn=a\n1 9\ntotals: 9\n", f);
    fclose(f);
    struct instr_profile p;
    instr_profile_init(&p);
    CHECK_INT(instr_wait_profile(dir, proc, 77, 5000, &p, err, sizeof err), 0);
    CHECK_INT(p.total, 9);
    instr_profile_free(&p);
    CHECK_INT(instr_wait_profile(dir, proc, 78, 5000, &p, err, sizeof err), -1);
    CHECK(strstr(err, "ended without leaving") != NULL);
    CHECK_INT(instr_wait_profile(dir, proc, 0, 5000, &p, err, sizeof err), -1);
    /* The file says another pid. */
    snprintf(path, sizeof path, "%s/cachegrind.out.79", dir);
    f = fopen(path, "w");
    if (CHECK(f != NULL)) {
        fputs("pid: 80\nevents: Ir\nfn=a\n1 9\nsummary: 9\n", f);
        fclose(f);
        CHECK_INT(instr_wait_profile(dir, proc, 79, 5000, &p, err, sizeof err), -1);
        CHECK(strstr(err, "of pid 80") != NULL);
        unlink(path);
    }
    unlink(dir[0] ? (snprintf(path, sizeof path, "%s/callgrind.out.77", dir), path) : path);
    rmdir(dir);
    rmdir(proc);
}

int main(void)
{
    RUN(test_cachegrind);
    RUN(test_callgrind);
    RUN(test_summary_above_totals);
    RUN(test_malformed);
    RUN(test_real_file);
    RUN(test_acc);
    RUN(test_valgrind_cmdline);
    RUN(test_wait);
    return harness_report();
}

/* timed.c: the timed region both suites measure with (time, AFP ops, server
 * IO deltas) and its progress line.
 *
 * The server's procfs cannot be made to order, so a temporary directory
 * stands in for it: the monitor is pointed at a fake PID whose io file is
 * rewritten between timed_begin and timed_end, as the server's counters
 * move during a real run. Discovery itself is tested in test_iomon.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "timed.h"

static char root[] = "/tmp/afpbench-timed-XXXXXX";

static void write_io(int pid, unsigned long long syscr, unsigned long long syscw)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%d", root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%d/io", root, pid);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fprintf(f, "rchar: 9\nwchar: 9\nsyscr: %llu\nsyscw: %llu\nread_bytes: 0\n", syscr, syscw);
        fclose(f);
    }
}

static void test_io_delta(void)
{
    struct iomon_sample a = {.afpd_ok = 1,
                             .cnid_ok = 1,
                             .afpd_cpu_ok = 1,
                             .cnid_cpu_ok = 0,
                             .afpd_r = 100,
                             .afpd_w = 200,
                             .cnid_r = 10,
                             .cnid_w = 20,
                             .afpd_rchar = 1000,
                             .afpd_wchar = 5000,
                             .afpd_cpu_ns = 2000000,
                             .afpd_wait_ns = 500000};
    struct iomon_sample b = {.afpd_ok = 1,
                             .cnid_ok = 1,
                             .afpd_cpu_ok = 1,
                             .cnid_cpu_ok = 1,
                             .afpd_r = 150,
                             .afpd_w = 260,
                             .cnid_r = 10,
                             .cnid_w = 25,
                             .afpd_rchar = 1500,
                             .afpd_wchar = 9096,
                             .afpd_cpu_ns = 2750999,
                             .afpd_wait_ns = 1700000,
                             .cnid_cpu_ns = 77};
    struct result_sample smp;
    timed_io_delta(&a, &b, &smp);
    CHECK_INT(smp.afpd_r, 50);
    CHECK_INT(smp.afpd_w, 60);
    CHECK_INT(smp.cnid_r, 0); /* a genuine zero stays 0 */
    CHECK_INT(smp.cnid_w, 5);
    CHECK_INT(smp.afpd_rchar, 500);
    CHECK_INT(smp.afpd_wchar, 4096);
    CHECK_INT(smp.afpd_cpu_us, 750); /* ns to µs, rounded down */
    CHECK_INT(smp.afpd_wait_us, 1200);
    CHECK(smp.cnid_cpu_us == RESULTS_UNKNOWN); /* not read before */

    /* cnid_dbd not monitored: its counts unknown, afpd's still known. */
    a.cnid_ok = b.cnid_ok = 0;
    timed_io_delta(&a, &b, &smp);
    CHECK_INT(smp.afpd_r, 50);
    CHECK(smp.cnid_r == RESULTS_UNKNOWN && smp.cnid_w == RESULTS_UNKNOWN);

    /* afpd gone at the end, or its counter went backwards (another process
     * with that PID): unknown, never a wrapped-around number. */
    b.afpd_ok = 0;
    timed_io_delta(&a, &b, &smp);
    CHECK(smp.afpd_r == RESULTS_UNKNOWN && smp.afpd_w == RESULTS_UNKNOWN);
    b.afpd_ok = 1;
    b.afpd_r = 99;
    timed_io_delta(&a, &b, &smp);
    CHECK(smp.afpd_r == RESULTS_UNKNOWN);
}

static void test_syscall_delta(void)
{
    static struct iomon_sample a, b;
    memset(&a, 0, sizeof a);
    a.afpd_ok = a.cnid_ok = 1;
    a.sys_ok = a.sys_cnid_ok = 1;
    a.afpd_sys[262] = 1000;
    a.cnid_sys[17] = 4;
    b = a;
    b.afpd_sys[262] = 81415;
    b.afpd_sys[80] = 14019;
    b.cnid_sys[17] = 6;
    struct result_sample smp = {0};
    timed_io_delta(&a, &b, &smp);
    CHECK(smp.sys_known);
    CHECK(smp.cnid_sys_known);
    CHECK_INT(smp.afpd_sys.n, 2);
    CHECK_INT(smp.afpd_sys.nr[0], 80);
    CHECK_INT(smp.afpd_sys.count[0], 14019);
    CHECK_INT(smp.afpd_sys.nr[1], 262);
    CHECK_INT(smp.afpd_sys.count[1], 80415);
    CHECK_INT(smp.cnid_sys.n, 1);
    CHECK_INT(smp.cnid_sys.count[0], 2);
    /* cnid_dbd not counted (its watch refused): afpd's counts stand alone */
    b.sys_cnid_ok = 0;
    memset(&smp, 0, sizeof smp);
    timed_io_delta(&a, &b, &smp);
    CHECK(smp.sys_known);
    CHECK(!smp.cnid_sys_known);
    /* afpd gone at the end: nothing known */
    b.afpd_ok = 0;
    memset(&smp, 0, sizeof smp);
    timed_io_delta(&a, &b, &smp);
    CHECK(!smp.sys_known);
    /* counting off on either side: nothing known */
    b = a;
    b.sys_ok = 0;
    memset(&smp, 0, sizeof smp);
    timed_io_delta(&a, &b, &smp);
    CHECK(!smp.sys_known);
}

static void test_region_reads_counters(void)
{
    CHECK(mkdtemp(root) != NULL);
    struct iomon m;
    memset(&m, 0, sizeof m);
    m.enabled = 1;
    snprintf(m.proc_root, sizeof m.proc_root, "%s", root);
    m.afpd_pid = 300;
    m.cnid_pid = 500;
    write_io(300, 1000, 2000);
    write_io(500, 7, 8);
    iomon_open_counters(&m);

    struct timed_region reg;
    struct result_sample smp = {.iteration = 3, .bytes = 4096};
    timed_begin(&reg, NULL, &m);
    write_io(300, 1004, 2010); /* the server worked during the region */
    write_io(500, 7, 9);
    timed_end(&reg, &smp);
    CHECK_INT(smp.afpd_r, 4);
    CHECK_INT(smp.afpd_w, 10);
    CHECK_INT(smp.cnid_r, 0);
    CHECK_INT(smp.cnid_w, 1);
    CHECK_INT(smp.afp_ops, 0); /* no session: nothing to count */
    CHECK_INT(smp.iteration, 3);
    CHECK_INT(smp.bytes, 4096); /* left alone */

    /* Monitoring off (or no monitor): every count unknown, time still measured. */
    m.enabled = 0;
    timed_begin(&reg, NULL, &m);
    usleep(2000);
    timed_end(&reg, &smp);
    CHECK(smp.afpd_r == RESULTS_UNKNOWN && smp.afpd_w == RESULTS_UNKNOWN);
    CHECK(smp.cnid_r == RESULTS_UNKNOWN && smp.cnid_w == RESULTS_UNKNOWN);
    CHECK(smp.us >= 2000);
    timed_begin(&reg, NULL, NULL);
    timed_end(&reg, &smp);
    CHECK(smp.afpd_r == RESULTS_UNKNOWN && smp.cnid_w == RESULTS_UNKNOWN);
    iomon_stop(&m);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT(system(cmd), 0);
}

static void test_print_io(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct result_sample smp = {.afpd_r = 3, .afpd_w = 4, .cnid_r = 0, .cnid_w = 2};
    timed_print_io(f, &smp);
    smp.cnid_r = smp.cnid_w = RESULTS_UNKNOWN;
    timed_print_io(f, &smp);
    smp.afpd_r = smp.afpd_w = RESULTS_UNKNOWN;
    timed_print_io(f, &smp); /* nothing when afpd was not monitored */
    fclose(f);
    CHECK_STR(buf, "         IO Operations; afpd: 3 READs, 4 WRITEs | cnid_dbd: 0 READs, 2 WRITEs\n"
                   "         IO Operations; afpd: 3 READs, 4 WRITEs | cnid_dbd: not monitored\n");
    free(buf);
}

int main(void)
{
    RUN(test_io_delta);
    RUN(test_syscall_delta);
    RUN(test_region_reads_counters);
    RUN(test_print_io);
    return harness_report();
}

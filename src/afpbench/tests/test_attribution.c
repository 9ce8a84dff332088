/* attribution.c: the server's calls charged to the AFP command that made them.
 *
 * No server here: a temporary directory stands in for its procfs (the
 * PID/syscall files say where afpd and cnid_dbd wait), and an array stands in
 * for the kernel's counters (sysmon.h maps them; the monitor is pointed at
 * ours). The test moves the counters between requests, as the server does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "afp.h"
#include "attribution.h"
#include "harness.h"

static char root[] = "/tmp/afpbench-attribution-XXXXXX";
static uint64_t counters[SYSMON_SLOTS * SYSMON_ROW]; /* as the kernel lays them out */

static void write_syscall(int pid, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%d", root, pid);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%d/syscall", root, pid);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void waiting_in_pselect(int pid)
{
    char text[64];
    snprintf(text, sizeof text, "%d 0x9 0x7ffd 0x0 0x0 0x0 0x0 0x7ffd 0x7f00\n", SYS_pselect6);
    write_syscall(pid, text);
}

static void fake_monitor(struct iomon *io, int with_cnid)
{
    memset(io, 0, sizeof *io);
    memset(counters, 0, sizeof counters);
    io->enabled = 1;
    snprintf(io->proc_root, sizeof io->proc_root, "%s", root);
    io->afpd_pid = 100;
    io->cnid_pid = with_cnid ? 200 : 0;
    io->sys_cnid = with_cnid;
    io->sys.on = 1;
    io->sys.counts = counters;
    waiting_in_pselect(100);
    waiting_in_pselect(200);
}

/* A pass over fake_monitor's counters; NULL (a failed check) when refused. */
static struct attribution *new_fake_pass(struct iomon *io, int with_cnid)
{
    fake_monitor(io, with_cnid);
    char why[256] = "";
    struct attribution *a = attribution_new(io, why, sizeof why);
    CHECK(a != NULL);
    return a;
}

static const struct attribution_cmd *find(const struct attribution_result *r, uint8_t code)
{
    for (unsigned i = 0; i < r->n; i++)
        if (r->cmd[i].code == code)
            return &r->cmd[i];
    return NULL;
}

static uint64_t count_of(const struct sysmon_delta *d, unsigned nr)
{
    for (unsigned i = 0; i < d->n; i++)
        if (d->nr[i] == nr)
            return d->count[i];
    return 0;
}

static void test_parse_waiting(void)
{
    struct attribution_waits w;
    attribution_waits_init(&w);
    char text[64];
    snprintf(text, sizeof text, "%d 0x9 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x7f00\n", SYS_pselect6);
    CHECK(attribution_parse_waiting(&w, text));
    snprintf(text, sizeof text, "%d 0x9 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x7f00\n", SYS_recvfrom);
    CHECK(attribution_parse_waiting(&w, text));
    /* running, preempted outside a call, or inside a call that is no wait */
    CHECK(!attribution_parse_waiting(&w, "running\n"));
    CHECK(!attribution_parse_waiting(&w, "-1 0x7ffd 0x7f00\n"));
    snprintf(text, sizeof text, "%d 0x3 0x0 0x0 0x0 0x0 0x0 0x7ffd 0x7f00\n", SYS_fdatasync);
    CHECK(!attribution_parse_waiting(&w, text));
    /* what is not a number is no wait */
    CHECK(!attribution_parse_waiting(&w, ""));
    CHECK(!attribution_parse_waiting(&w, "99999999999999999999 0x0"));
    CHECK(!attribution_parse_waiting(&w, "12abc"));
}

/* Each request's calls, counted after it was sent and before the next one,
 * go to its command; a command's requests add up. */
static void test_charges_each_request(void)
{
    struct iomon io;
    struct attribution *a = new_fake_pass(&io, 1);
    if (a == NULL)
        return;
    counters[SYS_close] = 7; /* before the pass: not charged */
    attribution_begin(a);
    for (int i = 0; i < 3; i++) {
        attribution_before_send(a, AFP_GETFILEDIRPARMS, 0);
        counters[SYS_newfstatat] += 2;
        counters[SYSMON_ROW + SYS_pwrite64] += 1; /* cnid_dbd's work for it */
        attribution_before_send(a, AFP_DELETE, 0);
        counters[SYS_unlinkat] += 1;
        counters[SYS_close] += 1;
    }
    struct attribution_result r;
    attribution_end(a, &r);
    CHECK_INT(r.n, 2);
    CHECK_INT(r.unsettled, 0);
    CHECK_INT(r.settled, 7); /* before each request, and at the end */
    CHECK(r.cnid);
    const struct attribution_cmd *g = find(&r, AFP_GETFILEDIRPARMS), *d = find(&r, AFP_DELETE);
    CHECK(g != NULL && d != NULL);
    if (g == NULL || d == NULL)
        goto out;
    CHECK_INT(g->calls, 3);
    CHECK_INT(count_of(&g->afpd, SYS_newfstatat), 6);
    CHECK_INT(count_of(&g->afpd, SYS_unlinkat), 0);
    CHECK_INT(count_of(&g->cnid, SYS_pwrite64), 3);
    CHECK_INT(d->calls, 3);
    CHECK_INT(count_of(&d->afpd, SYS_unlinkat), 3);
    CHECK_INT(count_of(&d->afpd, SYS_close), 3);
    CHECK_INT(count_of(&d->cnid, SYS_pwrite64), 0);
    CHECK_STR(afp_command_name(g->code), "FPGetFileDirParms");
out:
    attribution_free(a);
}

/* A run of one command's requests is one window: it settles where the
 * command changes, and its calls add up as they would request by request. */
static void test_runs_of_one_command(void)
{
    struct iomon io;
    struct attribution *a = new_fake_pass(&io, 1);
    if (a == NULL)
        return;
    attribution_begin(a);
    for (int i = 0; i < 4; i++) {
        attribution_before_send(a, AFP_GETFILEDIRPARMS, 0);
        counters[SYS_newfstatat] += 3;
    }
    for (int i = 0; i < 2; i++) {
        attribution_before_send(a, AFP_DELETE, 0);
        counters[SYS_unlinkat] += 1;
    }
    struct attribution_result r;
    attribution_end(a, &r);
    CHECK_INT(r.settled, 3); /* before the first of each run, and at the end */
    const struct attribution_cmd *g = find(&r, AFP_GETFILEDIRPARMS), *d = find(&r, AFP_DELETE);
    CHECK(g != NULL && d != NULL);
    if (g != NULL && d != NULL) {
        CHECK_INT(g->calls, 4);
        CHECK_INT(count_of(&g->afpd, SYS_newfstatat), 12);
        CHECK_INT(count_of(&g->afpd, SYS_unlinkat), 0);
        CHECK_INT(d->calls, 2);
        CHECK_INT(count_of(&d->afpd, SYS_unlinkat), 2);
    }
    CHECK(find(&r, ATTRIBUTION_MIXED) == NULL);
    attribution_free(a);
}

/* Pipelined requests share one window: one command's window is charged to
 * it, a window of several kinds to ATTRIBUTION_MIXED. */
static void test_pipelined_windows(void)
{
    struct iomon io;
    struct attribution *a = new_fake_pass(&io, 0);
    if (a == NULL)
        return;
    attribution_begin(a);
    attribution_before_send(a, AFP_READEXT, 0);
    attribution_before_send(a, AFP_READEXT, 1);
    attribution_before_send(a, AFP_READEXT, 2);
    counters[SYS_sendfile] += 5;
    attribution_before_send(a, AFP_CLOSEFORK, 0);
    attribution_before_send(a, AFP_GETFORKPARMS, 1);
    counters[SYS_close] += 1;
    struct attribution_result r;
    attribution_end(a, &r);
    CHECK(!r.cnid);
    const struct attribution_cmd *rd = find(&r, AFP_READEXT), *mix = find(&r, ATTRIBUTION_MIXED);
    CHECK(rd != NULL && mix != NULL);
    if (rd != NULL && mix != NULL) {
        CHECK_INT(rd->calls, 3);
        CHECK_INT(count_of(&rd->afpd, SYS_sendfile), 5);
        CHECK_INT(mix->calls, 2);
        CHECK_INT(count_of(&mix->afpd, SYS_close), 1);
    }
    CHECK(find(&r, AFP_CLOSEFORK) == NULL);
    attribution_free(a);
}

/* A server that never waits: the point is given up after ATTRIBUTION_SETTLE_MS
 * and counted as unsettled; its calls are still charged. */
static void test_unsettled(void)
{
    struct iomon io;
    struct attribution *a = new_fake_pass(&io, 0);
    if (a == NULL)
        return;
    attribution_begin(a);
    attribution_before_send(a, AFP_FLUSHFORK, 0);
    counters[SYS_fsync] += 1;
    write_syscall(100, "running\n");
    struct attribution_result r;
    attribution_end(a, &r);
    CHECK_INT(r.unsettled, 1);
    CHECK_INT(r.settled, 1); /* before the request */
    const struct attribution_cmd *f = find(&r, AFP_FLUSHFORK);
    CHECK(f != NULL && count_of(&f->afpd, SYS_fsync) == 1);
    attribution_free(a);
}

/* It says why it cannot run: counting off, or no syscall file to read. */
static void test_refusals(void)
{
    struct iomon io;
    char why[256] = "";
    fake_monitor(&io, 0);
    io.sys.on = 0;
    snprintf(io.sys.reason, sizeof io.sys.reason, "bpf: Operation not permitted");
    CHECK(attribution_new(&io, why, sizeof why) == NULL);
    CHECK(strstr(why, "not counted: bpf: Operation not permitted") != NULL);
    fake_monitor(&io, 0);
    io.afpd_pid = 999; /* no such file */
    CHECK(attribution_new(&io, why, sizeof why) == NULL);
    CHECK(strstr(why, "/999/syscall") != NULL && strstr(why, "ptrace") != NULL);
}

static void test_command_names(void)
{
    CHECK_STR(afp_command_name(AFP_ENUMERATEEXT2), "FPEnumerateExt2");
    CHECK_STR(afp_command_name(AFP_BYTERANGELOCKEXT), "FPByteRangeLockExt");
    CHECK_STR(afp_command_name(76), "FPSpotlightRPC");
    CHECK(afp_command_name(0) == NULL);
    CHECK(afp_command_name(12) == NULL);
    CHECK(afp_command_name(255) == NULL);
}

int main(void)
{
    if (mkdtemp(root) == NULL)
        return 1;
    RUN(test_parse_waiting);
    RUN(test_charges_each_request);
    RUN(test_pipelined_windows);
    RUN(test_runs_of_one_command);
    RUN(test_unsettled);
    RUN(test_refusals);
    RUN(test_command_names);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fputs("warning: could not remove the temporary procfs\n", stderr);
    return harness_report();
}

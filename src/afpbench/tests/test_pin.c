/* pin.c on real processes: children stand in for afpd and cnid_dbd. Two
 * runs at once on one CPU (the gate's traces, both --cpu auto) each move the
 * one cnid_dbd; in either order of their ends it must go back where it was
 * before either, not stay on that CPU. Needs two CPUs this process may use
 * (else said and not checked: on one CPU every set is the same). */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "pin.h"

static pid_t idle_child(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        pause();
        _exit(0);
    }
    return pid;
}

static void end_child(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* An iomon of our own procfs naming afpd and cnid_dbd (all pin_run reads). */
static void fake_monitor(struct iomon *m, int afpd, int cnid)
{
    memset(m, 0, sizeof *m);
    m->enabled = 1;
    snprintf(m->proc_root, sizeof m->proc_root, "/proc");
    m->afpd_pid = afpd;
    m->cnid_pid = cnid;
}

/* Two CPUs of `allowed`, or -1. */
static int two_cpus(const cpu_set_t *allowed, int *a, int *b)
{
    *a = *b = -1;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, allowed))
            continue;
        if (*a < 0)
            *a = c;
        else {
            *b = c;
            return 0;
        }
    }
    return -1;
}

static void release_in_order(int first_a)
{
    cpu_set_t mine;
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0);
    int ca, cb;
    if (two_cpus(&mine, &ca, &cb) != 0) {
        printf("# test_pin: fewer than two CPUs here, not checked\n");
        return;
    }
    (void)ca;
    pid_t afpd_a = idle_child(), afpd_b = idle_child(), cnid = idle_child();
    CHECK(afpd_a > 0 && afpd_b > 0 && cnid > 0);
    struct iomon ma, mb;
    fake_monitor(&ma, afpd_a, cnid);
    fake_monitor(&mb, afpd_b, cnid);
    const struct iomon *ia[] = {&ma}, *ib[] = {&mb};
    struct pin_state pa, pb;
    char note[200];
    CHECK_INT(pin_run(&pa, cb, ia, 1, note, sizeof note), cb);
    CHECK_INT(pin_run(&pb, cb, ib, 1, note, sizeof note), cb);
    cpu_set_t now;
    CHECK(sched_getaffinity(cnid, sizeof now, &now) == 0);
    CHECK(CPU_COUNT(&now) == 1 && CPU_ISSET(cb, &now));
    if (first_a) {
        pin_release(&pa);
        pin_release(&pb);
    } else {
        pin_release(&pb);
        pin_release(&pa);
    }
    /* back where it was before either run, in both orders */
    CHECK(sched_getaffinity(cnid, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &mine));
    CHECK(sched_getaffinity(afpd_a, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &mine));
    CHECK(sched_getaffinity(afpd_b, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &mine));
    end_child(afpd_a);
    end_child(afpd_b);
    end_child(cnid);
    /* pin_run moved this process too */
    CHECK(sched_setaffinity(0, sizeof mine, &mine) == 0);
}

static void test_two_runs_first_ends_first(void)
{
    release_in_order(1);
}

static void test_two_runs_second_ends_first(void)
{
    release_in_order(0);
}

/* A process another hand moved since (taskset) is left where it was put. */
static void test_moved_since_is_left_alone(void)
{
    cpu_set_t mine;
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0);
    int ca, cb;
    if (two_cpus(&mine, &ca, &cb) != 0)
        return;
    pid_t afpd = idle_child(), cnid = idle_child();
    struct iomon m;
    fake_monitor(&m, afpd, cnid);
    const struct iomon *im[] = {&m};
    struct pin_state ps;
    char note[200];
    CHECK_INT(pin_run(&ps, ca, im, 1, note, sizeof note), ca);
    cpu_set_t other;
    CPU_ZERO(&other);
    CPU_SET(cb, &other);
    CHECK(sched_setaffinity(cnid, sizeof other, &other) == 0);
    pin_release(&ps);
    cpu_set_t now;
    CHECK(sched_getaffinity(cnid, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &other));
    CHECK(sched_getaffinity(afpd, sizeof now, &now) == 0);
    CHECK(CPU_EQUAL(&now, &mine));
    end_child(afpd);
    end_child(cnid);
    CHECK(sched_setaffinity(0, sizeof mine, &mine) == 0);
}

int main(void)
{
    RUN(test_two_runs_first_ends_first);
    RUN(test_two_runs_second_ends_first);
    RUN(test_moved_since_is_left_alone);
    return harness_report();
}

/* One CPU for a run (pin.h). */
#include "pin.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The server's PIDs are those of the procfs it was found in: only when that
 * procfs is of afpbench's own PID namespace do they name the same processes
 * for sched_setaffinity. */
static int same_pid_namespace(const char *proc_root)
{
    char path[320], target[32];
    snprintf(path, sizeof path, "%s/self", proc_root);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n <= 0)
        return 0;
    target[n] = '\0';
    return strtol(target, NULL, 10) == (long)getpid();
}

void pin_release(struct pin_state *ps)
{
    /* a process that has exited meanwhile (the session's afpd) is no error */
    for (int j = 0; j < ps->n; j++) {
        const struct pin_moved *mv = &ps->moved[j];
        cpu_set_t now;
        if (sched_getaffinity(mv->pid, sizeof now, &now) != 0 || CPU_COUNT(&now) != 1 ||
            !CPU_ISSET(mv->cpu, &now))
            continue;
        (void)sched_setaffinity(mv->pid, sizeof mv->was, &mv->was);
    }
    ps->n = 0;
}

int pin_run(struct pin_state *ps, int cpu, const struct iomon *const *ios, int nios, char *note,
            size_t notelen)
{
    ps->n = 0;
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        snprintf(note, notelen, "cannot read afpbench's CPUs: %s", strerror(errno));
        return -1;
    }
    if (cpu == PIN_AUTO) {
        /* the last: CPU 0 takes most devices' interrupts */
        for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
            if (CPU_ISSET(c, &allowed))
                cpu = c;
    }
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
        snprintf(note, notelen, "CPU %d is not one afpbench may run on", cpu);
        return -1;
    }
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);

    int ok = 1;
    for (int i = 0; i < nios && ok; i++) {
        const struct iomon *m = ios[i];
        if (m == NULL || !m->enabled) {
            snprintf(note, notelen, "the server's processes are not known (IO monitoring off)");
            ok = 0;
            break;
        }
        if (!same_pid_namespace(m->proc_root)) {
            snprintf(note, notelen, "%s is another PID namespace's procfs", m->proc_root);
            ok = 0;
            break;
        }
        int pids[2] = {m->afpd_pid, m->cnid_pid};
        for (int k = 0; k < 2 && ok; k++) {
            int pid = pids[k];
            int seen = pid <= 0; /* no cnid_dbd: nothing to move */
            for (int j = 0; j < ps->n && !seen; j++)
                seen = ps->moved[j].pid == pid; /* one cnid_dbd serves both sides of an A/A */
            if (seen)
                continue;
            if (ps->n == (int)(sizeof ps->moved / sizeof ps->moved[0])) {
                snprintf(note, notelen, "more than %d server processes",
                         (int)(sizeof ps->moved / sizeof ps->moved[0]));
                ok = 0;
                break;
            }
            struct pin_moved *mv = &ps->moved[ps->n];
            if (sched_getaffinity(pid, sizeof mv->was, &mv->was) != 0 ||
                sched_setaffinity(pid, sizeof one, &one) != 0) {
                snprintf(note, notelen, "cannot move %s %d to CPU %d: %s%s",
                         k == 0 ? "afpd" : "cnid_dbd", pid, cpu, strerror(errno),
                         errno == EPERM ? " (needs root, or CAP_SYS_NICE in a container)" : "");
                ok = 0;
                break;
            }
            mv->pid = pid;
            mv->cpu = cpu;
            ps->n++;
        }
    }
    if (ok && sched_setaffinity(0, sizeof one, &one) != 0) {
        snprintf(note, notelen, "cannot move afpbench to CPU %d: %s", cpu, strerror(errno));
        ok = 0;
    }
    if (ok) {
        note[0] = '\0';
        return cpu;
    }
    /* all or none: a server on one CPU and afpbench on another is the case
     * this is meant to avoid */
    pin_release(ps);
    return -1;
}

/* One CPU for a run (--cpu): afpbench and the server processes it measures
 * (each side's afpd and cnid_dbd) all on the same CPU.
 *
 * Why: a lantest request is a ping-pong between afpbench and afpd (and afpd
 * and cnid_dbd). Across CPUs every turn wakes another CPU; on a virtual
 * machine that is a wake-up through the hypervisor, which cost more than
 * afpd's own work and varied 2x from test to test (docs/job-time.md).
 * On one CPU a turn is a context switch, the same on both sides of a pair. */
#ifndef AFPBENCH_PIN_H
#define AFPBENCH_PIN_H

#include <sched.h>
#include <stddef.h>

#include "iomon.h"

#define PIN_OFF (-1)  /* --cpu off: where the scheduler puts them */
#define PIN_AUTO (-2) /* --cpu auto: the last CPU afpbench may run on */
#define PIN_MAX_CPU 1023

/* A server process a run moved, with the CPUs it had before. */
struct pin_moved {
    int pid;
    cpu_set_t was;
    int cpu; /* where this run put it */
};

struct pin_state {
    int n;
    struct pin_moved moved[4]; /* each side's afpd and cnid_dbd */
};

/* Pin afpbench and the processes of the monitors (nios of them, at most 2)
 * to `cpu` (PIN_AUTO resolved here), noting them in *ps. All or none: when a
 * server process cannot be moved (another PID namespace, no rights), none
 * is, and afpbench stays where it was. Returns the CPU used, or -1 with
 * `note` saying why not. */
int pin_run(struct pin_state *ps, int cpu, const struct iomon *const *ios, int nios, char *note,
            size_t notelen);

/* The moved server processes back where they were: cnid_dbd outlives the
 * run and serves the volume's next sessions, which are not on that CPU.
 * Only a process still where this run put it: two runs at once on one CPU
 * (the gate's traces, both --cpu auto) each move the one cnid_dbd, the
 * second finding it on that CPU already; in either order of their ends it
 * goes back where it was before the first. (Two runs at once on two CPUs
 * would leave it on the first's: not done.) */
void pin_release(struct pin_state *ps);

#endif

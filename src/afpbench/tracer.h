/* One request of the server, traced by well-kept tools: strace for the
 * ordered system calls with their arguments, gdb for the code that made
 * chosen calls (a backtrace at each). A diagnostic pass only, after
 * measuring (lantest --trace): the tools stop afpd at every call.
 *
 * The tools come from PATH; gdb reads the server's files through
 * PROC_ROOT/PID/root (its sysroot), so a server in a chroot or another
 * container is symbolized from its own binaries. */
#ifndef AFPBENCH_TRACER_H
#define AFPBENCH_TRACER_H

#include <sys/types.h>

struct tracer {
    pid_t pid;      /* the tool's process; 0 when none runs */
    int target;     /* the traced afpd */
    char note[768]; /* why a tool could not run, or "" */
};

/* Attach strace to pid (as proc_root names it), writing to out, and wait
 * until it traces. 0, or -1 with t->note set (the request then goes
 * untraced). */
int tracer_start_strace(struct tracer *t, const char *proc_root, int pid, const char *out);

/* Attach gdb to pid, stopping at each of the system calls named in calls
 * ("lstat,newfstatat") to write a backtrace to out. 0 or -1 as above. */
int tracer_start_gdb(struct tracer *t, const char *proc_root, int pid, const char *calls,
                     const char *out);

/* Detach the tool (the traced process runs on) and reap it. */
void tracer_stop(struct tracer *t);

#endif

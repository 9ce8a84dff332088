/* Tracing one request with strace or gdb (tracer.h). */
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procfile.h"

/* A tool that has not attached by then is given up (gdb reads the
 * server's symbols first: a second or two). */
#define ATTACH_MS 30000

/* Is pid traced by tracer and running (sleeping in a call, not stopped)? */
static int traced_and_running(const char *proc_root, int pid, pid_t tracer)
{
    char path[320], buf[2048];
    snprintf(path, sizeof path, "%s/%d/status", proc_root, pid);
    if (procfile_read(path, buf, sizeof buf) <= 0)
        return 0;
    const char *tp = strstr(buf, "\nTracerPid:");
    const char *st = strstr(buf, "\nState:");
    if (tp == NULL || st == NULL)
        return 0;
    long who = strtol(tp + 11, NULL, 10);
    const char *s = st + 7;
    while (*s == ' ' || *s == '\t')
        s++;
    /* the tracer in its own namespace may not be the pid we know: any */
    (void)tracer;
    return who != 0 && (*s == 'S' || *s == 'R');
}

static pid_t spawn(const char *const argv[], const char *out, struct tracer *t)
{
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(t->note, sizeof t->note, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        if (null >= 0)
            dup2(null, STDIN_FILENO);
        /* the tool on any CPU, not on afpbench's one (--cpu): gdb reading
         * the server's symbols then runs beside the server, and beside
         * another trace's run */
        cpu_set_t any;
        memset(&any, 0xff, sizeof any);
        (void)sched_setaffinity(0, sizeof any, &any);
        /* execvp's argv is char *const[] for history's sake; it writes nothing */
        execvp(argv[0], (char *const *)(uintptr_t)argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* Wait until the tool traces pid; on failure reap it and say why. */
static int wait_attached(struct tracer *t, const char *proc_root, const char *tool)
{
    int64_t start = clock_now_ms();
    while (!traced_and_running(proc_root, t->target, t->pid)) {
        int status;
        if (waitpid(t->pid, &status, WNOHANG) == t->pid) {
            snprintf(t->note, sizeof t->note, "%s exited before it traced afpd (status %d)", tool,
                     WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
            t->pid = 0;
            return -1;
        }
        if (clock_now_ms() - start > ATTACH_MS) {
            snprintf(t->note, sizeof t->note, "%s did not trace afpd within %d s", tool,
                     ATTACH_MS / 1000);
            tracer_stop(t);
            return -1;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

int tracer_start_strace(struct tracer *t, const char *proc_root, int pid, const char *out)
{
    char spid[16];
    snprintf(spid, sizeof spid, "%d", pid);
    /* -qq: no attach/detach lines; -s 64: enough of a path or a name */
    const char *const argv[] = {"strace", "-qq", "-s", "64", "-p", spid, NULL};
    t->target = pid;
    t->note[0] = '\0';
    if ((t->pid = spawn(argv, out, t)) <= 0) {
        t->pid = 0;
        return -1;
    }
    return wait_attached(t, proc_root, "strace");
}

int tracer_start_gdb(struct tracer *t, const char *proc_root, int pid, const char *calls,
                     const char *out)
{
    char script[640], spid[16], sysroot[320], exe[320];
    snprintf(script, sizeof script, "%s.cmd", out);
    FILE *f = fopen(script, "w");
    if (f == NULL) {
        snprintf(t->note, sizeof t->note, "cannot write %s: %s", script, strerror(errno));
        return -1;
    }
    /* A backtrace at each chosen call; detach when interrupted. */
    fprintf(f, "set pagination off\nset confirm off\nset width 0\n"
               "set print frame-arguments none\n"
               "catch syscall");
    for (const char *p = calls; *p;) {
        size_t n = strcspn(p, ",");
        fprintf(f, " %.*s", (int)n, p);
        p += n + (p[n] == ',');
    }
    fputs("\ncommands\nbt 12\ncontinue\nend\ncontinue\ndetach\nquit\n", f);
    fclose(f);
    snprintf(spid, sizeof spid, "%d", pid);
    /* The server's own files as its libraries (its root through the
     * procfs), and its executable, given before gdb attaches: a sysroot set
     * after it makes gdb read every library twice (0.6 s against 0.25 s a
     * trace). Debian's gdb, or gdb-minimal (the client image's), which
     * installs the same /usr/bin/gdb. */
    snprintf(sysroot, sizeof sysroot, "set sysroot %s/%d/root", proc_root, pid);
    snprintf(exe, sizeof exe, "%s/%d/exe", proc_root, pid);
    const char *const argv[] = {"gdb", "-nx", "-batch", "-iex", sysroot, exe,
                                "-p",  spid,  "-x",     script, NULL};
    t->target = pid;
    t->note[0] = '\0';
    if ((t->pid = spawn(argv, out, t)) <= 0) {
        t->pid = 0;
        return -1;
    }
    return wait_attached(t, proc_root, "gdb");
}

void tracer_stop(struct tracer *t)
{
    if (t->pid <= 0)
        return;
    /* both tools detach on SIGINT (gdb: the interrupted continue ends, the
     * script detaches); a tool that hangs is killed after a while */
    kill(t->pid, SIGINT);
    int64_t start = clock_now_ms();
    int status;
    while (waitpid(t->pid, &status, WNOHANG) == 0) {
        if (clock_now_ms() - start > 10000) {
            kill(t->pid, SIGKILL);
            waitpid(t->pid, &status, 0);
            break;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    t->pid = 0;
}

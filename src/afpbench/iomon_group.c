/* The counters of the afpds of many sessions and a cnid_dbd, summed over a
 * measured window (afpbench load; see iomon_group.h). */
#include "iomon_group.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfile.h"

int iomon_group_open(struct iomon_group *g, const char *proc_root, const int *pids, int n)
{
    memset(g, 0, sizeof *g);
    snprintf(g->proc_root, sizeof g->proc_root, "%s", proc_root);
    size_t cnt = (size_t)(n > 0 ? n : 1);
    g->pids = calloc(cnt, sizeof *g->pids);
    g->io_fd = calloc(cnt, sizeof *g->io_fd);
    g->sched_fd = calloc(cnt, sizeof *g->sched_fd);
    g->stat_fd = calloc(cnt, sizeof *g->stat_fd);
    g->status_fd = calloc(cnt, sizeof *g->status_fd);
    g->io0 = calloc(cnt, sizeof *g->io0);
    g->cpu0 = calloc(cnt, sizeof *g->cpu0);
    g->ok0 = calloc(cnt, sizeof *g->ok0);
    if (!g->pids || !g->io_fd || !g->sched_fd || !g->stat_fd || !g->status_fd || !g->io0 ||
        !g->cpu0 || !g->ok0) {
        iomon_group_close(g);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        int dup = pids[i] <= 0;
        for (int k = 0; k < g->n && !dup; k++)
            dup = g->pids[k] == pids[i];
        if (dup)
            continue;
        g->pids[g->n] = pids[i];
        g->io_fd[g->n] = iomon_open_counter(proc_root, pids[i], "io");
        g->sched_fd[g->n] = iomon_open_counter(proc_root, pids[i], "schedstat");
        g->stat_fd[g->n] = iomon_open_counter(proc_root, pids[i], "stat");
        g->status_fd[g->n] = iomon_open_counter(proc_root, pids[i], "status");
        g->n++;
    }
    return 0;
}

void iomon_group_start(struct iomon_group *g)
{
    uint64_t wait_ns; /* the load suite reports CPU time only */
    for (int i = 0; i < g->n; i++) {
        g->ok0[i] = (unsigned char)(iomon_read_io(g->io_fd[i], &g->io0[i]) ? 1 : 0);
        g->ok0[i] |= (unsigned char)(iomon_read_cpu(g->sched_fd[i], &g->cpu0[i], &wait_ns) ? 2 : 0);
    }
}

/* The process behind an open /proc/PID/stat has ended: a zombie, or gone
 * (its parent reaped it, and the read fails). A zombie's counters still
 * read, so they cannot say it: how soon a parent reaps its child is not for
 * the window to depend on. */
static int has_ended(int fd)
{
    char buf[512];
    ssize_t n = fd >= 0 ? procfile_pread(fd, buf, sizeof buf) : -1;
    if (n <= 0)
        return 1;
    const char *paren = strrchr(buf, ')');
    return paren == NULL || paren[1] != ' ' || paren[2] == 'Z' || paren[2] == 'X';
}

void iomon_group_end(struct iomon_group *g, struct iomon_group_delta *d)
{
    memset(d, 0, sizeof *d);
    for (int i = 0; i < g->n; i++) {
        struct iomon_io io;
        uint64_t cpu, wait_ns;
        int io_ok = (g->ok0[i] & 1) && iomon_read_io(g->io_fd[i], &io);
        int cpu_ok = (g->ok0[i] & 2) && iomon_read_cpu(g->sched_fd[i], &cpu, &wait_ns);
        if (g->ok0[i] == 0)
            continue;
        if (!io_ok || !cpu_ok || has_ended(g->stat_fd[i])) {
            d->lost++;
            continue;
        }
        d->sampled++;
        d->r += io.syscr - g->io0[i].syscr;
        d->w += io.syscw - g->io0[i].syscw;
        d->rchar += io.rchar - g->io0[i].rchar;
        d->wchar += io.wchar - g->io0[i].wchar;
        d->cpu_ns += cpu - g->cpu0[i];
        uint64_t kb;
        if (iomon_read_hwm(g->status_fd[i], &kb)) {
            d->hwm_kb_sum += kb;
            d->hwm_kb_max = kb > d->hwm_kb_max ? kb : d->hwm_kb_max;
            d->hwm_n++;
        }
    }
}

void iomon_group_close(struct iomon_group *g)
{
    for (int i = 0; i < g->n; i++) {
        if (g->io_fd && g->io_fd[i] >= 0)
            close(g->io_fd[i]);
        if (g->sched_fd && g->sched_fd[i] >= 0)
            close(g->sched_fd[i]);
        if (g->stat_fd && g->stat_fd[i] >= 0)
            close(g->stat_fd[i]);
        if (g->status_fd && g->status_fd[i] >= 0)
            close(g->status_fd[i]);
    }
    free(g->pids);
    free(g->io_fd);
    free(g->sched_fd);
    free(g->stat_fd);
    free(g->status_fd);
    free(g->io0);
    free(g->cpu0);
    free(g->ok0);
    memset(g, 0, sizeof *g);
}

/* speedtest local mode (-L, -P DIR): the same tests with POSIX IO on a
 * local directory, to put the AFP figures next to what the disk does.
 * O_DIRECT (unless -D) keeps the page cache out of it, as far as the file
 * system supports it; it falls back to buffered IO with a note. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "benchconn.h"
#include "clock.h"
#include "speedtest.h"
#include "speedtest_local.h"

static int local_fail(struct st *c, struct result_test *t, int err, int code, const char *what,
                      const char *path)
{
    char msg[300];
    snprintf(msg, sizeof msg, "%s: %s %s: %s", t->name, what, path, strerror(err));
    if (!t->failed) {
        t->failed = 1;
        snprintf(t->error, sizeof t->error, "%s", msg);
    }
    results_fail(c->res, code, "%s", msg);
    return code;
}

/* Bytes read back from path are not the pattern, first at offset bad. */
static int local_mismatch(struct st *c, struct result_test *t, const char *path, uint64_t bad)
{
    return results_fail_test(c->res, t, EXIT_VALIDATION,
                             "%s: %s: bytes at offset %" PRIu64 " differ from what was written",
                             t->name, path, bad);
}

/* Open with O_DIRECT when asked and possible (size and requests must be
 * block multiples, and the file system must allow it). */
static int open_file(struct st *c, const char *path, int flags, uint64_t size)
{
    if (!c->o->no_direct && size % PATTERN_BLOCK == 0 && c->req % PATTERN_BLOCK == 0) {
        int fd = open(path, flags | O_DIRECT | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EINVAL)
            return fd;
        static int noted;
        if (!noted++)
            fprintf(stderr, "speedtest: note: O_DIRECT not supported here; buffered IO\n");
        c->res->direct_io = 0;
    } else if (!c->o->no_direct) {
        c->res->direct_io = 0;
    }
    return open(path, flags | O_CLOEXEC, 0644);
}

static int write_all(struct st *c, int fd, uint64_t size)
{
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < c->req ? (size_t)(size - off) : c->req;
        ssize_t w = pwrite(fd, pattern_buf_at(&c->pat, off, n), n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : EIO;
        off += (uint64_t)w;
    }
    return 0;
}

/* Read [0, size) and check it; returns 0, an errno, or -1 on a mismatch. */
static int read_all(struct st *c, int fd, uint64_t size, uint64_t *bad)
{
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < c->req ? (size_t)(size - off) : c->req;
        ssize_t r = pread(fd, c->bufs, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r < 0 ? errno : EIO;
        if (memcmp(c->bufs, pattern_buf_at(&c->pat, off, (size_t)r), (size_t)r) != 0) {
            *bad = off;
            return -1;
        }
        off += (uint64_t)r;
    }
    return 0;
}

static int fill_file(struct st *c, struct result_test *t, const char *path, uint64_t size)
{
    int fd = open_file(c, path, O_WRONLY | O_CREAT | O_TRUNC, size);
    if (fd < 0)
        return local_fail(c, t, errno, EXIT_FILEDIR, "cannot create", path);
    int err = write_all(c, fd, size);
    if (err == 0 && fsync(fd) != 0)
        err = errno;
    close(fd);
    return err ? local_fail(c, t, err, EXIT_FORK, "cannot write", path) : 0;
}

static int check_file(struct st *c, struct result_test *t, const char *path, uint64_t size)
{
    uint64_t bad = 0;
    int fd = open_file(c, path, O_RDONLY, size);
    if (fd < 0)
        return local_fail(c, t, errno, EXIT_FORK, "cannot open", path);
    int err = read_all(c, fd, size, &bad);
    close(fd);
    if (err > 0)
        return local_fail(c, t, err, EXIT_FORK, "cannot read", path);
    if (err < 0)
        return local_mismatch(c, t, path, bad);
    return 0;
}

int speedtest_local_run(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                        const char *dir, int first, uint64_t *us)
{
    char src[4096], dst[4096];
    int fresh = first || c->o->new_file_each_run;
    uint64_t bad = 0;
    int fd, out, err = 0;

    snprintf(src, sizeof src, "%s/%s", dir,
             op == SPEED_WRITE || op == SPEED_READ ? "File" : "Source");
    snprintf(dst, sizeof dst, "%s/Destination", dir);
    if (op == SPEED_WRITE) {
        if ((fd = open_file(c, src, O_WRONLY | O_CREAT | (fresh ? O_TRUNC : 0), size)) < 0)
            return local_fail(c, t, errno, EXIT_FILEDIR, "cannot create", src);
        uint64_t t0 = clock_now_us();
        err = write_all(c, fd, size);
        if (err == 0 && !c->o->no_flush && fsync(fd) != 0)
            err = errno;
        *us = clock_now_us() - t0;
        close(fd);
        return err ? local_fail(c, t, err, EXIT_FORK, "cannot write", src) : 0;
    }
    if (fresh && (err = fill_file(c, t, src, size)) != 0)
        return err;
    if ((fd = open_file(c, src, O_RDONLY, size)) < 0)
        return local_fail(c, t, errno, EXIT_FORK, "cannot open", src);
    if (op == SPEED_READ) {
        uint64_t t0 = clock_now_us();
        err = read_all(c, fd, size, &bad);
        *us = clock_now_us() - t0;
        close(fd);
    } else {
        if ((out = open_file(c, dst, O_WRONLY | O_CREAT | O_TRUNC, size)) < 0) {
            err = errno;
            close(fd);
            return local_fail(c, t, err, EXIT_FILEDIR, "cannot create", dst);
        }
        uint64_t t0 = clock_now_us();
        for (uint64_t off = 0; off < size;) {
            size_t n = size - off < c->req ? (size_t)(size - off) : c->req;
            ssize_t r = pread(fd, c->bufs, n, (off_t)off);
            if (r <= 0) {
                err = r < 0 ? errno : EIO;
                break;
            }
            ssize_t w = pwrite(out, c->bufs, (size_t)r, (off_t)off);
            if (w != r) {
                err = w < 0 ? errno : EIO;
                break;
            }
            off += (uint64_t)r;
        }
        if (err == 0 && !c->o->no_flush && fsync(out) != 0)
            err = errno;
        *us = clock_now_us() - t0;
        close(out);
        close(fd);
    }
    if (err > 0)
        return local_fail(c, t, err, EXIT_FORK, "IO failed on", src);
    if (err < 0)
        return local_mismatch(c, t, src, bad);
    return 0;
}

int speedtest_local_prepare(struct st *c, struct result_test *t, enum speedtest_op op, char *dir,
                            size_t dirlen)
{
    snprintf(dir, dirlen, "%s/%sTest-%ld", c->o->local_path ? c->o->local_path : ".",
             speedtest_op_name(op), (long)getpid());
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return local_fail(c, t, errno, EXIT_FILEDIR, "cannot create", dir);
    return 0;
}

int speedtest_local_finish(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                           const char *dir, int rc)
{
    char path[4200];
    if (rc == 0 && op == SPEED_WRITE) {
        snprintf(path, sizeof path, "%s/File", dir);
        rc = check_file(c, t, path, size);
    }
    if (rc == 0 && op == SPEED_COPY) {
        snprintf(path, sizeof path, "%s/Destination", dir);
        rc = check_file(c, t, path, size);
    }
    static const char *const names[] = {"File", "Source", "Destination"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    if (rmdir(dir) != 0)
        fprintf(stderr, "speedtest: warning: cannot remove %s: %s\n", dir, strerror(errno));
    return rc;
}

/* Reading small procfs files. */
#include "procfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

long procfile_pread(int fd, char *buf, size_t size)
{
    size_t got = 0;
    if (size == 0)
        return -1;
    while (got + 1 < size) {
        ssize_t n = pread(fd, buf + got, size - 1 - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got > 0 ? (long)got : -1;
}

long procfile_read(const char *path, char *buf, size_t size)
{
    if (size == 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long n = procfile_pread(fd, buf, size);
    close(fd);
    if (n < 0) {
        buf[0] = '\0';
        return 0;
    }
    return n;
}

char *procfile_read_all(int fd, size_t cap, size_t *len)
{
    char *buf = malloc(cap + 2);
    if (buf == NULL)
        return NULL;
    size_t got = 0;
    /* Up to one byte past the cap, to tell "exactly cap" from "more". */
    while (got < cap + 1) {
        ssize_t n = read(fd, buf + got, cap + 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(buf);
            errno = e;
            return NULL;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    if (got > cap) {
        free(buf);
        errno = EFBIG;
        return NULL;
    }
    buf[got] = '\0';
    *len = got;
    return buf;
}

char *procfile_slurp(const char *path, size_t cap, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = procfile_read_all(fd, cap, len);
    int e = errno;
    close(fd);
    errno = e;
    return buf;
}

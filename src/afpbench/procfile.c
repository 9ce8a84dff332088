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

unsigned char *procfile_slurp(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 1u << 20, got = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL)
            break;
        if (got == cap) {
            if (cap >= max) {
                free(buf);
                buf = NULL;
                errno = EFBIG;
                break;
            }
            cap = cap * 2 > max ? max : cap * 2;
            unsigned char *grown = realloc(buf, cap);
            if (grown == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
        }
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            free(buf);
            buf = NULL;
            errno = err;
            break;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    int err = errno;
    close(fd);
    errno = err;
    if (buf != NULL)
        *len = got;
    return buf;
}

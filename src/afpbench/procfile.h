/* Reading small procfs files (io, schedstat, comm, status, cmdline): the one
 * reader iomon and srvfiles share. */
#ifndef AFPBENCH_PROCFILE_H
#define AFPBENCH_PROCFILE_H

#include <stddef.h>

/* Read at most size-1 bytes of the file at path into buf and NUL-terminate
 * it (binary content such as cmdline keeps its own NULs; use the count).
 * Returns the byte count, or -1 when it cannot be opened. */
long procfile_read(const char *path, char *buf, size_t size);

/* The same from an open descriptor, from offset 0 (pread: a procfs file
 * kept open is read again for every sample). Returns the byte count, or -1
 * for an empty or unreadable file (a process that is gone). */
long procfile_pread(int fd, char *buf, size_t size);

/* The whole file at path (sysfs and procfs files report no size), in a
 * malloc'd buffer the caller frees, its length in *len. NULL with errno
 * set when it cannot be read or holds more than max bytes (EFBIG). */
unsigned char *procfile_slurp(const char *path, size_t max, size_t *len);

#endif

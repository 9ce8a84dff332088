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

/* All of an open file if it holds at most cap bytes: a malloc'd,
 * NUL-terminated copy (the caller frees it) and its length in *len. NULL
 * with errno EFBIG when larger, or the read's errno. Reads to the end, so
 * it also takes files that report no size (sysfs, procfs). */
char *procfile_read_all(int fd, size_t cap, size_t *len);

/* The same for the file at path. */
char *procfile_slurp(const char *path, size_t cap, size_t *len);

#endif

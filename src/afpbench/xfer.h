/* Pipelined bulk transfers over an AFP session: FPWriteExt / FPReadExt in
 * chunk-sized requests with up to `window` in flight, reaped in order, the
 * data being the offset pattern (pattern.h), and reads checked against it.
 * Used by lantest tests 2/3 and by speedtest. */
#ifndef AFPBENCH_XFER_H
#define AFPBENCH_XFER_H

#include <stdint.h>

#include "afp.h"
#include "pattern.h"

#define XFER_MAX_WINDOW 64

/* Results besides 0 and the session's codes (which are negative or large). */
#define XFER_ESHORT 1    /* a read returned fewer bytes than asked */
#define XFER_EMISMATCH 2 /* a read returned bytes that are not the pattern */

struct afp_session;

struct xfer_fault {
    uint64_t offset; /* where the short read or mismatch was */
    uint64_t expected, got;
};

/* Write [0, size) of pat to fork. chunk <= pat->max_len. */
int xfer_write(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
               unsigned window, struct pattern_buf *pat);

/* Read [0, size) into buf (chunk bytes) and, when pat is not NULL, compare
 * with it. */
int xfer_read(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *buf, struct pattern_buf *pat, struct xfer_fault *fault);

/* Copy [0, size) from src to dst through the client: window reads into
 * bufs (window * chunk bytes), then window writes, and so on. */
int xfer_copy(struct afp_session *s, afp_fork_t src, afp_fork_t dst, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *bufs, struct xfer_fault *fault);

#endif

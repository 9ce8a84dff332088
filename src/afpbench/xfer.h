/* Pipelined bulk transfers over an AFP session: chunk-sized write or read
 * requests with up to `window` in flight, reaped in order, the data being
 * the offset pattern (pattern.h), and reads checked against it. The one
 * transfer engine of lantest tests 2/3, speedtest and smoke, and the one
 * place that picks the commands by the session's AFP version: FPReadExt /
 * FPWriteExt (64-bit offsets) from AFP 3.0 on, FPRead / FPWrite (32-bit)
 * on AFP 2.x, where a transfer must end at or below offset 2^32 - 1
 * (XFER_ELIMIT otherwise, refused before anything is sent).
 *
 * The rules, the same for every caller: a read must return every byte it
 * asked for (a short read, end of file included, is XFER_ESHORT: the
 * callers know how large their files are); a write's reply must report the
 * end of the range it wrote (else XFER_EOFFSET); the first failure ends the
 * transfer, with requests possibly still in flight (the session is then
 * only good for closing, or the failure was the session's own). */
#ifndef AFPBENCH_XFER_H
#define AFPBENCH_XFER_H

#include <stddef.h>
#include <stdint.h>

#include "afp.h"
#include "pattern.h"

#define XFER_MAX_WINDOW 64

/* Results besides 0 and the session's codes (which are negative or large). */
#define XFER_ESHORT 1    /* a read returned fewer bytes than asked */
#define XFER_EMISMATCH 2 /* a read returned bytes that are not the pattern */
#define XFER_EOFFSET 3   /* a write's reply reported another end than offset + length */
#define XFER_ELIMIT 4    /* the range is past what the session's AFP version addresses */

/* The end of the last range FPRead/FPWrite can address (AFP 2.x). */
#define XFER_MAX_END_32BIT UINT64_C(0xFFFFFFFF)

struct afp_session;

/* What went wrong, for the XFER_E* results. */
struct xfer_fault {
    uint64_t offset;        /* short read or write: the request's offset; mismatch: the byte's;
                               limit: the largest end the session can address */
    uint64_t expected, got; /* bytes (short read), byte values (mismatch), ends (write);
                               limit: got = the size asked for */
    char afp_version[16];   /* limit: the session's AFP version */
};

/* 0 when [0, size) is within what the session's AFP version can address,
 * else XFER_ELIMIT (fault filled; may be NULL). The transfers check this
 * themselves; callers that set a fork's length another way can too. */
int xfer_check_size(const struct afp_session *s, uint64_t size, struct xfer_fault *fault);

/* Write [0, size) of pat to fork. chunk <= pat->max_len. */
int xfer_write(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
               unsigned window, struct pattern_buf *pat, struct xfer_fault *fault);

/* Read [0, size) into buf (chunk bytes) and, when pat is not NULL, compare
 * with it. Each reply's bytes are checked after the next requests went out
 * (the server works while the client compares), its length at once. */
int xfer_read(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *buf, struct pattern_buf *pat, struct xfer_fault *fault);

/* Copy [0, size) from src to dst through the client: window reads into
 * bufs (window * chunk bytes), then window writes, and so on. */
int xfer_copy(struct afp_session *s, afp_fork_t src, afp_fork_t dst, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *bufs, struct xfer_fault *fault);

/* Is rc one of the XFER_E* results (not a session error)? XFER_ELIMIT is a
 * bad parameter; the others are validation failures. */
int xfer_is_fault(int rc);

/* The fault of an XFER_E* result in words, e.g. "the byte at offset 4096
 * differs from what was written", into buf; returns buf. */
const char *xfer_fault_text(int rc, const struct xfer_fault *f, char *buf, size_t len);

#endif

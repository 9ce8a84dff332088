/* Pipelined bulk transfers (see xfer.h). No allocation: the caller owns
 * every buffer, so the timed loops stay free of malloc. */
#include "xfer.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "session.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Say where and what went wrong (fault may be NULL); returns err. */
static int fault_at(struct xfer_fault *fault, int err, uint64_t offset, uint64_t expected,
                    uint64_t got)
{
    if (fault != NULL) {
        fault->offset = offset;
        fault->expected = expected;
        fault->got = got;
    }
    return err;
}

/* Check a read reply against what was asked: its length, then (pat not
 * NULL) its bytes. */
static int check_chunk(const uint8_t *buf, size_t got, uint64_t off, uint64_t len,
                       struct pattern_buf *pat, struct xfer_fault *fault)
{
    if (got != len)
        return fault_at(fault, XFER_ESHORT, off, len, got);
    if (pat == NULL)
        return 0;
    long bad = pattern_buf_check(pat, buf, off, got);
    if (bad < 0)
        return 0;
    /* pattern_buf_check left the pattern of this chunk in pat's buffer */
    const uint8_t *want = pattern_buf_at(pat, off, got);
    return fault_at(fault, XFER_EMISMATCH, off + (uint64_t)bad, want[bad], buf[bad]);
}

/* ---- the commands, by AFP version: the only place that chooses ----
 * Ranges were checked with xfer_check_size first, so on AFP 2.x every
 * offset and end fits in 32 bits, and len <= chunk (a uint32_t) always. */

static int send_read(struct afp_session *s, afp_fork_t fork, uint64_t off, uint64_t len,
                     uint16_t *id)
{
    if (afp_session_offsets64(s))
        return afp_readext_send(s, fork, off, len, id);
    return afp_read_send(s, fork, (uint32_t)off, (uint32_t)len, id);
}

static int recv_read(struct afp_session *s, uint16_t id, uint8_t *buf, size_t cap, size_t *got)
{
    if (afp_session_offsets64(s))
        return afp_readext_recv(s, id, buf, cap, got);
    return afp_read_recv(s, id, buf, cap, got);
}

static int send_write(struct afp_session *s, afp_fork_t fork, uint64_t off, const uint8_t *data,
                      uint64_t len, uint16_t *id)
{
    if (afp_session_offsets64(s))
        return afp_writeext_send(s, fork, off, data, len, id);
    return afp_write_send(s, fork, (uint32_t)off, data, (uint32_t)len, id);
}

/* Reap a write's reply: the server must report the end of what it wrote
 * (FPWrite's 32-bit end is exact too: every end fits, see above). */
static int reap_write(struct afp_session *s, uint16_t id, uint64_t off, uint64_t len,
                      struct xfer_fault *fault)
{
    uint64_t next = 0;
    int rc;
    if (afp_session_offsets64(s)) {
        rc = afp_writeext_recv(s, id, &next);
    } else {
        uint32_t next32 = 0;
        rc = afp_write_recv(s, id, &next32);
        next = next32;
    }
    if (rc != 0)
        return rc;
    if (next != off + len)
        return fault_at(fault, XFER_EOFFSET, off, off + len, next);
    return 0;
}

int xfer_check_size(const struct afp_session *s, uint64_t size, struct xfer_fault *fault)
{
    if (afp_session_offsets64(s) || size <= XFER_MAX_END_32BIT)
        return 0;
    if (fault != NULL)
        snprintf(fault->afp_version, sizeof fault->afp_version, "%s", afp_session_version(s));
    return fault_at(fault, XFER_ELIMIT, XFER_MAX_END_32BIT, 0, size);
}

/* What every transfer checks first: a chunk, a range the session's AFP
 * version addresses; the window held to 1..XFER_MAX_WINDOW. */
static int check_transfer(const struct afp_session *s, uint64_t size, uint32_t chunk,
                          unsigned *window, struct xfer_fault *fault)
{
    if (chunk == 0)
        return AFPB_EPARAM;
    if (*window > XFER_MAX_WINDOW)
        *window = XFER_MAX_WINDOW;
    if (*window < 1)
        *window = 1;
    return xfer_check_size(s, size, fault);
}

/* A read reply received and not yet checked: checked once the next
 * requests have gone out, so that the server reads and sends the next chunk
 * while the client compares this one (a Read at -r 1 waited for each
 * chunk's check before asking for the next). */
struct unchecked {
    const uint8_t *buf; /* NULL: none */
    size_t got;
    uint64_t off, len;
};

static int check_unchecked(struct unchecked *u, struct pattern_buf *pat, struct xfer_fault *fault)
{
    if (u->buf == NULL)
        return 0;
    int rc = check_chunk(u->buf, u->got, u->off, u->len, pat, fault);
    u->buf = NULL;
    return rc;
}

/* Writes (rbuf NULL: the pattern from pat) or reads (into rbuf, checked
 * against pat when it is not NULL) over [0, size): chunk-sized requests, up
 * to window in flight, reaped in the order they went out. A read reply is
 * checked before the next one is received into the same buffer. */
static int pipeline(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
                    unsigned window, uint8_t *rbuf, struct pattern_buf *pat,
                    struct xfer_fault *fault)
{
    uint16_t ids[XFER_MAX_WINDOW];
    uint64_t offs[XFER_MAX_WINDOW], lens[XFER_MAX_WINDOW];
    unsigned head = 0, inflight = 0;
    uint64_t off = 0;
    struct unchecked last = {0};
    int rc;

    if ((rc = check_transfer(s, size, chunk, &window, fault)) != 0)
        return rc;
    while (off < size || inflight > 0) {
        while (off < size && inflight < window) {
            uint64_t n = min_u64(size - off, chunk);
            unsigned slot = (head + inflight) % XFER_MAX_WINDOW;
            if (rbuf != NULL)
                rc = send_read(s, fork, off, n, &ids[slot]);
            else
                rc = send_write(s, fork, off, pattern_buf_at(pat, off, (size_t)n), n, &ids[slot]);
            if (rc != 0)
                return rc;
            offs[slot] = off;
            lens[slot] = n;
            off += n;
            inflight++;
        }
        if (rbuf != NULL) {
            if ((rc = check_unchecked(&last, pat, fault)) != 0)
                return rc;
            size_t got = 0;
            if ((rc = recv_read(s, ids[head], rbuf, chunk, &got)) != 0 &&
                !(rc == AFPERR_EOF && got > 0))
                return rc;
            if (got != lens[head]) /* at once: a short read ends the transfer */
                return fault_at(fault, XFER_ESHORT, offs[head], lens[head], got);
            last = (struct unchecked){rbuf, got, offs[head], lens[head]};
        } else if ((rc = reap_write(s, ids[head], offs[head], lens[head], fault)) != 0) {
            return rc;
        }
        head = (head + 1) % XFER_MAX_WINDOW;
        inflight--;
    }
    return check_unchecked(&last, pat, fault);
}

int xfer_write(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
               unsigned window, struct pattern_buf *pat, struct xfer_fault *fault)
{
    return pipeline(s, fork, size, chunk, window, NULL, pat, fault);
}

int xfer_read(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *buf, struct pattern_buf *pat, struct xfer_fault *fault)
{
    return pipeline(s, fork, size, chunk, window, buf, pat, fault);
}

int xfer_copy(struct afp_session *s, afp_fork_t src, afp_fork_t dst, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *bufs, struct xfer_fault *fault)
{
    uint16_t ids[XFER_MAX_WINDOW];
    uint64_t offs[XFER_MAX_WINDOW], lens[XFER_MAX_WINDOW];
    int rc;

    if ((rc = check_transfer(s, size, chunk, &window, fault)) != 0)
        return rc;
    for (uint64_t base = 0; base < size;) {
        unsigned n = 0;
        for (uint64_t off = base; off < size && n < window; n++) {
            lens[n] = min_u64(size - off, chunk);
            if ((rc = send_read(s, src, off, lens[n], &ids[n])) != 0)
                return rc;
            off += lens[n];
        }
        for (unsigned i = 0; i < n; i++) {
            size_t got = 0;
            rc = recv_read(s, ids[i], bufs + (size_t)i * chunk, chunk, &got);
            if (rc != 0 && !(rc == AFPERR_EOF && got > 0))
                return rc;
            if (got != lens[i])
                return fault_at(fault, XFER_ESHORT, base, lens[i], got);
        }
        uint64_t off = base;
        for (unsigned i = 0; i < n; i++) {
            if ((rc = send_write(s, dst, off, bufs + (size_t)i * chunk, lens[i], &ids[i])) != 0)
                return rc;
            offs[i] = off;
            off += lens[i];
        }
        for (unsigned i = 0; i < n; i++)
            if ((rc = reap_write(s, ids[i], offs[i], lens[i], fault)) != 0)
                return rc;
        base = off;
    }
    return 0;
}

int xfer_is_fault(int rc)
{
    return rc == XFER_ESHORT || rc == XFER_EMISMATCH || rc == XFER_EOFFSET || rc == XFER_ELIMIT;
}

const char *xfer_fault_text(int rc, const struct xfer_fault *f, char *buf, size_t len)
{
    if (rc == XFER_ESHORT)
        snprintf(buf, len, "%" PRIu64 " bytes at offset %" PRIu64 ", expected %" PRIu64, f->got,
                 f->offset, f->expected);
    else if (rc == XFER_EMISMATCH)
        snprintf(buf, len, "the byte at offset %" PRIu64 " differs from what was written",
                 f->offset);
    else if (rc == XFER_EOFFSET)
        snprintf(buf, len,
                 "the server reports the write at offset %" PRIu64 " ending at %" PRIu64
                 ", expected %" PRIu64,
                 f->offset, f->got, f->expected);
    else if (rc == XFER_ELIMIT)
        snprintf(buf, len,
                 "with %s (FPRead/FPWrite: 32-bit offsets) files are limited to 4 GiB: a "
                 "transfer of %" PRIu64 " bytes would end past offset %" PRIu64
                 "; use AFP 3.0 or later",
                 f->afp_version, f->got, f->offset);
    else
        snprintf(buf, len, "transfer failed (%d)", rc);
    return buf;
}

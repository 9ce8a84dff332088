/* Pipelined bulk transfers (see xfer.h). No allocation: the caller owns
 * every buffer, so the timed loops stay free of malloc. */
#include "xfer.h"

#include <string.h>

#include "session.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

int xfer_write(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
               unsigned window, struct pattern_buf *pat)
{
    uint16_t ids[XFER_MAX_WINDOW];
    unsigned head = 0, inflight = 0;
    uint64_t off = 0;
    int rc;

    if (window > XFER_MAX_WINDOW)
        window = XFER_MAX_WINDOW;
    while (off < size || inflight > 0) {
        while (off < size && inflight < window) {
            uint64_t n = min_u64(size - off, chunk);
            unsigned slot = (head + inflight) % XFER_MAX_WINDOW;
            if ((rc = afp_writeext_send(s, fork, off, pattern_buf_at(pat, off, (size_t)n), n,
                                        &ids[slot])) != 0)
                return rc;
            off += n;
            inflight++;
        }
        if ((rc = afp_writeext_recv(s, ids[head], NULL)) != 0)
            return rc;
        head = (head + 1) % XFER_MAX_WINDOW;
        inflight--;
    }
    return 0;
}

static int check_chunk(const uint8_t *buf, size_t got, uint64_t off, struct pattern_buf *pat,
                       struct xfer_fault *fault)
{
    if (pat == NULL)
        return 0;
    const uint8_t *want = pattern_buf_at(pat, off, got);
    if (memcmp(buf, want, got) == 0)
        return 0;
    size_t i = 0;
    while (buf[i] == want[i])
        i++;
    if (fault != NULL) {
        fault->offset = off + i;
        fault->expected = want[i];
        fault->got = buf[i];
    }
    return XFER_EMISMATCH;
}

int xfer_read(struct afp_session *s, afp_fork_t fork, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *buf, struct pattern_buf *pat, struct xfer_fault *fault)
{
    uint16_t ids[XFER_MAX_WINDOW];
    uint64_t offs[XFER_MAX_WINDOW], lens[XFER_MAX_WINDOW];
    unsigned head = 0, inflight = 0;
    uint64_t off = 0;
    int rc;

    if (window > XFER_MAX_WINDOW)
        window = XFER_MAX_WINDOW;
    while (off < size || inflight > 0) {
        while (off < size && inflight < window) {
            uint64_t n = min_u64(size - off, chunk);
            unsigned slot = (head + inflight) % XFER_MAX_WINDOW;
            if ((rc = afp_readext_send(s, fork, off, n, &ids[slot])) != 0)
                return rc;
            offs[slot] = off;
            lens[slot] = n;
            off += n;
            inflight++;
        }
        size_t got = 0;
        if ((rc = afp_readext_recv(s, ids[head], buf, chunk, &got)) != 0 &&
            !(rc == AFPERR_EOF && got > 0))
            return rc;
        if (got != lens[head]) {
            if (fault != NULL) {
                fault->offset = offs[head];
                fault->expected = lens[head];
                fault->got = got;
            }
            return XFER_ESHORT;
        }
        if ((rc = check_chunk(buf, got, offs[head], pat, fault)) != 0)
            return rc;
        head = (head + 1) % XFER_MAX_WINDOW;
        inflight--;
    }
    return 0;
}

int xfer_copy(struct afp_session *s, afp_fork_t src, afp_fork_t dst, uint64_t size, uint32_t chunk,
              unsigned window, uint8_t *bufs, struct xfer_fault *fault)
{
    uint16_t ids[XFER_MAX_WINDOW];
    uint64_t lens[XFER_MAX_WINDOW];
    int rc;

    if (window > XFER_MAX_WINDOW)
        window = XFER_MAX_WINDOW;
    for (uint64_t base = 0; base < size;) {
        unsigned n = 0;
        for (uint64_t off = base; off < size && n < window; n++) {
            lens[n] = min_u64(size - off, chunk);
            if ((rc = afp_readext_send(s, src, off, lens[n], &ids[n])) != 0)
                return rc;
            off += lens[n];
        }
        for (unsigned i = 0; i < n; i++) {
            size_t got = 0;
            rc = afp_readext_recv(s, ids[i], bufs + (size_t)i * chunk, chunk, &got);
            if (rc != 0 && !(rc == AFPERR_EOF && got > 0))
                return rc;
            if (got != lens[i]) {
                if (fault != NULL) {
                    fault->offset = base;
                    fault->expected = lens[i];
                    fault->got = got;
                }
                return XFER_ESHORT;
            }
        }
        uint64_t off = base;
        for (unsigned i = 0; i < n; i++) {
            if ((rc = afp_writeext_send(s, dst, off, bufs + (size_t)i * chunk, lens[i], &ids[i])) !=
                0)
                return rc;
            off += lens[i];
        }
        for (unsigned i = 0; i < n; i++)
            if ((rc = afp_writeext_recv(s, ids[i], NULL)) != 0)
                return rc;
        base = off;
    }
    return 0;
}

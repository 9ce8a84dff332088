/* Non-blocking DSI framing (see nbdsi.h). */
#include "nbdsi.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"

static enum nbdsi_event fail(struct nbdsi *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static enum nbdsi_event fail(struct nbdsi *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    c->failed = true;
    return NBDSI_ERROR;
}

void nbdsi_init(struct nbdsi *c)
{
    memset(c, 0, sizeof *c);
}

static void frame(struct nbdsi *c, uint8_t cmd, uint32_t code, const void *block, size_t blocklen,
                  const void *data, size_t datalen)
{
    struct dsi_header h = {.flags = DSI_FLAG_REQUEST,
                           .command = cmd,
                           .request_id = c->next_id++,
                           .code = code,
                           .length = (uint32_t)(blocklen + datalen)};
    dsi_header_encode(&h, c->tx);
    if (blocklen)
        memcpy(c->tx + DSI_HEADER_LEN, block, blocklen);
    c->tx_len = DSI_HEADER_LEN + blocklen;
    c->tx_data = data;
    c->tx_data_len = datalen;
    c->tx_done = 0;
}

int nbdsi_send_request(struct nbdsi *c, uint8_t cmd, const void *block, size_t blocklen,
                       const void *data, size_t datalen, uint32_t max_reply, nbdsi_sink_fn sink,
                       void *sink_ctx)
{
    if (c->failed)
        return -1;
    if (c->in_flight || nbdsi_tx_pending(c)) {
        snprintf(c->err, sizeof c->err, "a request is already in flight");
        return -1;
    }
    if (blocklen > NBDSI_MAX_BLOCK || datalen > UINT32_MAX - blocklen ||
        (cmd != DSI_WRITE && datalen) ||
        (cmd != DSI_COMMAND && cmd != DSI_WRITE && cmd != DSI_OPENSESSION)) {
        snprintf(c->err, sizeof c->err, "request (DSI command %u, %zu + %zu bytes) not framable",
                 cmd, blocklen, datalen);
        return -1;
    }
    if (!sink && max_reply > NBDSI_SMALL_CAP) {
        snprintf(c->err, sizeof c->err, "a %u-byte reply does not fit the small buffer", max_reply);
        return -1;
    }
    c->want_id = c->next_id;
    c->want_cmd = cmd;
    c->max_reply = max_reply;
    c->sink = sink;
    c->sink_ctx = sink_ctx;
    c->sink_verify = UINT32_MAX;
    c->in_flight = true;
    frame(c, cmd, cmd == DSI_WRITE ? (uint32_t)blocklen : 0, block, blocklen, data, datalen);
    return 0;
}

int nbdsi_send_noreply(struct nbdsi *c, uint8_t cmd)
{
    if (c->failed || nbdsi_tx_pending(c) || (cmd != DSI_TICKLE && cmd != DSI_CLOSESESSION))
        return -1;
    frame(c, cmd, 0, NULL, 0, NULL, 0);
    return 0;
}

size_t nbdsi_tx_pending(const struct nbdsi *c)
{
    return c->tx_len + c->tx_data_len - c->tx_done;
}

int nbdsi_tx_iov(const struct nbdsi *c, struct iovec iov[2])
{
    int n = 0;
    if (c->tx_done < c->tx_len) {
        iov[n].iov_base = (void *)(uintptr_t)(c->tx + c->tx_done);
        iov[n++].iov_len = c->tx_len - c->tx_done;
        if (c->tx_data_len) {
            iov[n].iov_base = (void *)(uintptr_t)c->tx_data;
            iov[n++].iov_len = c->tx_data_len;
        }
    } else if (c->tx_done < c->tx_len + c->tx_data_len) {
        size_t off = c->tx_done - c->tx_len;
        iov[n].iov_base = (void *)(uintptr_t)(c->tx_data + off);
        iov[n++].iov_len = c->tx_data_len - off;
    }
    return n;
}

void nbdsi_tx_advance(struct nbdsi *c, size_t n)
{
    size_t left = nbdsi_tx_pending(c);
    c->tx_done += n < left ? n : left;
    if (nbdsi_tx_pending(c) == 0) {
        c->tx_len = c->tx_data_len = c->tx_done = 0;
        c->tx_data = NULL;
    }
}

/* The header is complete: decide what the packet is and whether its
 * declared length is acceptable, before any payload byte is taken. */
static enum nbdsi_event check_header(struct nbdsi *c)
{
    const struct dsi_header *h = &c->h;
    if (h->flags == DSI_FLAG_REQUEST) {
        switch (h->command) {
        case DSI_TICKLE:
            if (h->length != 0)
                return fail(c, "server tickle with %u payload bytes", h->length);
            return NBDSI_MORE;
        case DSI_ATTENTION:
            if (h->length > NBDSI_MAX_ATTENTION)
                return fail(c, "attention packet of %u bytes", h->length);
            return NBDSI_MORE;
        case DSI_CLOSESESSION:
            if (h->length > NBDSI_MAX_ATTENTION)
                return fail(c, "server CloseSession with %u payload bytes", h->length);
            return NBDSI_MORE;
        default:
            return fail(c, "unexpected server request, DSI command %u", h->command);
        }
    }
    if (h->flags != DSI_FLAG_REPLY)
        return fail(c, "bad DSI flags 0x%02x", h->flags);
    if (!c->in_flight)
        return fail(c, "reply (ID %u, DSI command %u) with no request in flight", h->request_id,
                    h->command);
    if (h->request_id != c->want_id || h->command != c->want_cmd)
        return fail(c, "reply for request %u (DSI command %u) while expecting %u (command %u)",
                    h->request_id, h->command, c->want_id, c->want_cmd);
    if (h->length > c->max_reply)
        return fail(c, "reply of %u bytes to DSI command %u exceeds the %u asked for", h->length,
                    h->command, c->max_reply);
    return NBDSI_MORE;
}

/* The packet whose header and payload are complete. */
static enum nbdsi_event finish_packet(struct nbdsi *c)
{
    const struct dsi_header *h = &c->h;
    c->hdr_have = 0;
    c->body_have = 0;
    if (h->flags == DSI_FLAG_REQUEST) {
        switch (h->command) {
        case DSI_TICKLE:
            return NBDSI_TICKLE;
        case DSI_ATTENTION:
            c->attention = h->length >= 2 ? be16_load(c->small) : 0;
            return NBDSI_ATTENTION;
        default: /* DSI_CLOSESESSION (check_header let nothing else through) */
            c->failed = true;
            snprintf(c->err, sizeof c->err, "server closed the DSI session");
            return NBDSI_CLOSED;
        }
    }
    c->code = (int32_t)h->code;
    c->length = h->length;
    c->in_flight = false;
    return NBDSI_REPLY;
}

enum nbdsi_event nbdsi_rx(struct nbdsi *c, const uint8_t *in, size_t len, size_t *used)
{
    size_t pos = 0;
    *used = 0;
    if (c->failed)
        return NBDSI_ERROR;
    while (pos < len) {
        if (c->hdr_have < DSI_HEADER_LEN) {
            size_t n = DSI_HEADER_LEN - c->hdr_have;
            if (n > len - pos)
                n = len - pos;
            memcpy(c->hdr + c->hdr_have, in + pos, n);
            c->hdr_have += n;
            pos += n;
            if (c->hdr_have < DSI_HEADER_LEN)
                break;
            dsi_header_decode(c->hdr, DSI_HEADER_LEN, &c->h);
            if (check_header(c) == NBDSI_ERROR) {
                *used = pos;
                return NBDSI_ERROR;
            }
        }
        uint32_t left = c->h.length - c->body_have;
        if (left > 0) {
            size_t n = left < len - pos ? left : len - pos;
            if (n == 0)
                break;
            bool to_sink = c->h.flags == DSI_FLAG_REPLY && c->sink != NULL;
            if (to_sink) {
                if (c->sink(c->sink_ctx, in + pos, n, c->body_have) != 0) {
                    *used = pos + n;
                    return fail(c, "the reply's data was refused by its reader");
                }
            } else {
                /* check_header bounded h.length by max_reply <= NBDSI_SMALL_CAP
                 * (replies) or NBDSI_MAX_ATTENTION; closes carry none we keep. */
                if (c->body_have + n <= sizeof c->small)
                    memcpy(c->small + c->body_have, in + pos, n);
                else
                    return fail(c, "payload overflows the receive buffer");
            }
            c->body_have += (uint32_t)n;
            pos += n;
            if (c->body_have < c->h.length)
                break;
        }
        *used = pos;
        return finish_packet(c);
    }
    *used = pos;
    return NBDSI_MORE;
}

void nbdsi_set_sink_verify(struct nbdsi *c, uint32_t verify)
{
    c->sink_verify = verify;
}

uint32_t nbdsi_rx_discardable(const struct nbdsi *c)
{
    if (c->failed || c->hdr_have < DSI_HEADER_LEN || c->h.flags != DSI_FLAG_REPLY ||
        c->sink == NULL || c->body_have < c->sink_verify)
        return 0;
    return c->h.length - c->body_have;
}

enum nbdsi_event nbdsi_rx_discard(struct nbdsi *c, uint32_t n)
{
    if (n == 0 || n > nbdsi_rx_discardable(c))
        return fail(c, "discarding %u bytes that may not be discarded", n);
    c->body_have += n;
    return c->body_have == c->h.length ? finish_packet(c) : NBDSI_MORE;
}

/* DSI framing and the request/reply engine (see dsi.h). */
#include "dsi.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "deadline.h"
#include "net.h"

/* Receive buffer: one maximal command reply plus its header, twice, so a
 * reply and the start of the next one fit without compacting every time. */
#define DSI_RX_CAP (2 * (DSI_MAX_CMD_REPLY + DSI_HEADER_LEN))
/* Attention payloads are 2 bytes; anything larger is hostile. */
#define DSI_MAX_ATTENTION_LEN 64
/* Kernel timeout per blocking call; longer waits loop so tickles can go out. */
#define DSI_WAIT_SLICE_MS 5000
/* dsi_command reads the clock once every this many commands. */
#define DSI_CLOCK_EVERY 16
/* How long dsi_close waits for the server to acknowledge. */
#define DSI_CLOSE_WAIT_MS 1000

uint32_t dsi_request_size(uint32_t server_quantum, uint32_t asked)
{
    uint32_t want = asked ? asked : DSI_REQUEST_DEFAULT_MAX;
    if (want > DSI_REQUEST_HARD_MAX)
        want = DSI_REQUEST_HARD_MAX;
    return want < server_quantum ? want : server_quantum;
}

uint32_t dsi_write_size(uint32_t server_quantum)
{
    return server_quantum > 2 * DSI_WRITE_PARAMS ? server_quantum - DSI_WRITE_PARAMS
                                                 : server_quantum;
}

bool afpb_is_local_error(int rc)
{
    return rc <= AFPB_ENET && rc >= AFPB_EDESYNC;
}

static inline void header_put(const struct dsi_header *h, uint8_t *out)
{
    out[0] = h->flags;
    out[1] = h->command;
    be16_store(out + 2, h->request_id);
    be32_store(out + 4, h->code);
    be32_store(out + 8, h->length);
    be32_store(out + 12, h->reserved);
}

static inline void header_get(const uint8_t *in, struct dsi_header *h)
{
    h->flags = in[0];
    h->command = in[1];
    h->request_id = be16_load(in + 2);
    h->code = be32_load(in + 4);
    h->length = be32_load(in + 8);
    h->reserved = be32_load(in + 12);
}

void dsi_header_encode(const struct dsi_header *h, uint8_t out[DSI_HEADER_LEN])
{
    header_put(h, out);
}

int dsi_header_decode(const uint8_t *in, size_t len, struct dsi_header *h)
{
    if (len < DSI_HEADER_LEN)
        return AFPB_EPROTO;
    header_get(in, h);
    return 0;
}

size_t dsi_opensession_encode(uint8_t *out, size_t cap, uint32_t attn_quantum)
{
    struct bw w;
    bw_init(&w, out, cap);
    bw_u8(&w, DSI_OPT_ATTN_QUANTUM);
    bw_u8(&w, 4); /* netatalk drops the session unless this length is exactly 4 */
    bw_u32(&w, attn_quantum);
    return bw_ok(&w) ? w.len : 0;
}

int dsi_opensession_decode(const uint8_t *p, size_t len, uint32_t *server_quantum,
                           uint32_t *replay_cache)
{
    struct br r;
    br_init(&r, p, len);
    while (br_ok(&r) && br_remaining(&r) > 0) {
        uint8_t type = br_u8(&r);
        uint8_t olen = br_u8(&r);
        if (!br_ok(&r) || olen > br_remaining(&r))
            return AFPB_EPROTO;
        if (type == DSI_OPT_SERVER_QUANTUM || type == DSI_OPT_REPLAY_CACHE) {
            if (olen != 4)
                return AFPB_EPROTO;
            uint32_t v = br_u32(&r);
            if (type == DSI_OPT_SERVER_QUANTUM)
                *server_quantum = v;
            else
                *replay_cache = v;
        } else {
            br_skip(&r, olen);
        }
    }
    return br_ok(&r) ? 0 : AFPB_EPROTO;
}

/* Record a failure detail; returns rc so callers can `return fail(...)`. */
static int fail(struct dsi_conn *c, int rc, bool fatal, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct dsi_conn *c, int rc, bool fatal, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    if (fatal)
        c->broken = true;
    return rc;
}

int dsi_init(struct dsi_conn *c, int timeout_ms)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->timeout_ms = timeout_ms > 0 ? timeout_ms : DSI_DEFAULT_TIMEOUT_MS;
    c->server_quantum = 0x100000;
    c->rx_cap = DSI_RX_CAP;
    c->rx = malloc(c->rx_cap);
    if (!c->rx)
        return AFPB_ENOMEM;
    return 0;
}

void dsi_free(struct dsi_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->rx);
    c->rx = NULL;
}

int dsi_connect(struct dsi_conn *c, const char *host, uint16_t port)
{
    int slice = c->timeout_ms < DSI_WAIT_SLICE_MS ? c->timeout_ms : DSI_WAIT_SLICE_MS;
    if (deadline_run_expired())
        return fail(c, AFPB_ETIMEOUT, false, "not connecting: %s", deadline_reason());
    int64_t run_left = deadline_run_ms() - clock_now_ms();
    int connect_ms = run_left < c->timeout_ms ? (int)(run_left > 0 ? run_left : 1) : c->timeout_ms;
    int fd = net_connect(host, port, connect_ms, c->err, sizeof c->err);
    if (fd < 0)
        return fd;
    if (net_set_timeouts(fd, slice)) {
        close(fd);
        return fail(c, AFPB_ENET, true, "socket setup: %s", strerror(errno));
    }
    c->fd = fd;
    c->slice_ms = slice;
    c->next_id = 0;
    c->rx_start = c->rx_end = 0;
    c->outstanding = 0;
    c->pending_head = 0;
    c->broken = false;
    c->server_closed = false;
    c->last_send_ms = c->clock_ms = clock_now_ms();
    return 0;
}

/* Finish a send the kernel did not take whole at once (first: what its
 * first call took, or -1 with errno): a partial send, a timeout or an error.
 * net_writev_all resumes after what went out and classifies the failure. */
static int send_rest(struct dsi_conn *c, uint8_t cmd, struct iovec *iov, int n, ssize_t first,
                     size_t total)
{
    size_t sent = 0;
    if (first > 0) {
        size_t left = (size_t)first;
        while (n > 0 && left >= iov[0].iov_len) {
            left -= iov[0].iov_len;
            memmove(iov, iov + 1, sizeof iov[0] * (size_t)(n - 1));
            n--;
        }
        iov[0].iov_base = (uint8_t *)iov[0].iov_base + left;
        iov[0].iov_len -= left;
        sent = (size_t)first;
    }
    int rc = 0; /* the first call's failure, when it was not interrupted */
    if (first < 0 && errno != EINTR)
        rc = errno == EAGAIN || errno == EWOULDBLOCK ? AFPB_ETIMEOUT
             : errno == EPIPE || errno == ECONNRESET ? AFPB_ECLOSED
                                                     : AFPB_ENET;
    int64_t start = 0; /* read on the first timeout only: a send that went out cost no clock read */
    for (;; rc = 0) {
        if (rc == 0) {
            size_t now_sent = 0;
            rc = net_writev_all(c->fd, iov, n, &now_sent);
            sent += now_sent;
            if (rc == 0)
                break;
        }
        if (rc == AFPB_ETIMEOUT && start == 0)
            start = clock_now_ms() - c->slice_ms; /* one kernel slice has passed */
        if (rc == AFPB_ETIMEOUT && clock_now_ms() - start < c->timeout_ms &&
            !deadline_run_expired()) {
            /* The kernel slice ran out with the server not reading: keep
             * going until the whole timeout has passed. */
            while (n > 0 && iov[0].iov_len == 0) {
                memmove(iov, iov + 1, sizeof iov[0] * (size_t)(n - 1));
                n--;
            }
            continue;
        }
        /* A partial packet desynchronises the stream for good. */
        return fail(c, rc, sent > 0 && sent < total,
                    "sending DSI command %u (%zu of %zu bytes): %s", cmd, sent, total,
                    rc == AFPB_ETIMEOUT ? "server stopped reading (timeout)" : "connection lost");
    }
    c->last_send_ms = c->clock_ms = clock_now_ms();
    return 0;
}

/* Send one header (+ up to two payload pieces) in one sendmsg. */
static int send_packet(struct dsi_conn *c, uint8_t cmd, uint16_t id, uint32_t code, const void *a,
                       size_t alen, const void *b, size_t blen)
{
    if (c->fd < 0)
        return fail(c, AFPB_ECLOSED, false, "not connected");
    if (alen + blen > UINT32_MAX)
        return fail(c, AFPB_EPARAM, false, "request of %zu bytes is too large", alen + blen);
    uint8_t hdr[DSI_HEADER_LEN];
    struct dsi_header h = {.flags = DSI_FLAG_REQUEST,
                           .command = cmd,
                           .request_id = id,
                           .code = code,
                           .length = (uint32_t)(alen + blen)};
    header_put(&h, hdr);
    struct iovec iov[3] = {
        {hdr, sizeof hdr}, {(void *)(uintptr_t)a, alen}, {(void *)(uintptr_t)b, blen}};
    int n = blen ? 3 : alen ? 2 : 1;
    size_t total = sizeof hdr + alen + blen;
    /* The stamp that drives client tickles is the engine's latest clock
     * read (the previous reply's wait), not a read of its own: it can only
     * be earlier than the send, which at worst makes a tickle go out early. */
    c->last_send_ms = c->clock_ms;
    /* The usual case: the kernel takes it all at once. */
    struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    ssize_t first = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
    if (first >= 0 && (size_t)first == total)
        return 0;
    return send_rest(c, cmd, iov, n, first, total);
}

/* Note a request sent: its reply is reaped in this order. */
static void pend(struct dsi_conn *c, uint16_t id, uint8_t cmd)
{
    unsigned slot = (c->pending_head + c->outstanding) % DSI_MAX_OUTSTANDING;
    c->pending[slot] = id;
    c->pending_cmd[slot] = cmd;
    c->outstanding++;
    if (cmd == DSI_COMMAND || cmd == DSI_WRITE)
        c->commands++;
}

int dsi_send(struct dsi_conn *c, uint8_t cmd, const void *afp, size_t afplen, const void *data,
             size_t datalen, uint16_t *reqid)
{
    if (c->broken)
        return fail(c, AFPB_EDESYNC, true, "connection unusable after an earlier failure");
    /* The clock read of the previous reply's wait is recent enough for a
     * deadline counted in seconds (a wait never outlasts it either); a stop
     * signal is seen at once. */
    if (c->clock_ms == 0) /* nothing read yet on this connection */
        c->clock_ms = clock_now_ms();
    if (deadline_run_expired_at(c->clock_ms))
        return fail(c, AFPB_ETIMEOUT, true, "%s", deadline_reason());
    if (c->outstanding >= DSI_MAX_OUTSTANDING)
        return fail(c, AFPB_EPARAM, false, "more than %d requests in flight", DSI_MAX_OUTSTANDING);
    if (cmd == DSI_COMMAND && (data || datalen))
        return fail(c, AFPB_EPARAM, false, "DSICommand carries no write data");
    if (cmd != DSI_COMMAND && cmd != DSI_WRITE && cmd != DSI_GETSTATUS && cmd != DSI_OPENSESSION)
        return fail(c, AFPB_EPARAM, false, "DSI command %u expects no reply", cmd);
    /* netatalk reads at most a quantum as the command block. */
    if (afplen > c->server_quantum)
        return fail(c, AFPB_EPARAM, false, "request block of %zu bytes exceeds the quantum",
                    afplen);
    if (c->observe != NULL && (cmd == DSI_COMMAND || cmd == DSI_WRITE) && afplen > 0)
        c->observe(c->observe_ctx, ((const uint8_t *)afp)[0], c->outstanding);
    uint16_t id = c->next_id++;
    uint32_t offset = cmd == DSI_WRITE ? (uint32_t)afplen : 0;
    int rc = send_packet(c, cmd, id, offset, afp, afplen, data, datalen);
    if (rc)
        return rc;
    pend(c, id, cmd);
    if (reqid)
        *reqid = id;
    return 0;
}

int dsi_tickle(struct dsi_conn *c)
{
    if (c->broken)
        return AFPB_EDESYNC;
    return send_packet(c, DSI_TICKLE, c->next_id++, 0, NULL, 0, NULL, 0);
}

int dsi_keepalive(struct dsi_conn *c)
{
    if (c->fd < 0 || c->broken)
        return 0;
    c->clock_ms = clock_now_ms();
    if (c->clock_ms - c->last_send_ms < DSI_TICKLE_IDLE_MS)
        return 0;
    return dsi_tickle(c);
}

/* Start waiting for one reply, read on the clock at now: its deadline is
 * fixed from start (now, or earlier when a receive has already waited), and
 * neither the server's tickles nor a trickle of partial data extend it; the
 * run's deadline (deadline.h) cuts it shorter. */
static void begin_wait_at(struct dsi_conn *c, int64_t now, int64_t start)
{
    c->wait_start_ms = c->clock_ms = now; /* recv_wait's first receive uses it */
    int64_t own = start + c->timeout_ms;
    int64_t run = deadline_run_ms();
    c->wait_deadline_ms = run < own ? run : own;
}

static void begin_wait(struct dsi_conn *c)
{
    int64_t now = clock_now_ms();
    begin_wait_at(c, now, now);
}

/* One recv into dst, retried in slices until the current wait's deadline,
 * sending tickles while we wait so the server does not count us as gone. */
static ssize_t recv_wait(struct dsi_conn *c, void *dst, size_t len, const char *what)
{
    /* The wait's first receive uses the clock read that started it; every
     * later one (partial data, slices) reads the clock again. */
    int64_t now = c->wait_start_ms;
    c->wait_start_ms = 0;
    for (;;) {
        if (now == 0)
            now = c->clock_ms = clock_now_ms();
        int64_t left = c->wait_deadline_ms - now;
        now = 0;
        if (left <= 0 || deadline_stop_requested()) {
            if (deadline_run_expired())
                return fail(c, AFPB_ETIMEOUT, true, "%s while %s", deadline_reason(), what);
            return fail(c, AFPB_ETIMEOUT, true,
                        "no complete reply within %d ms while %s (the server's tickles and "
                        "partial data do not extend a request's deadline)",
                        c->timeout_ms, what);
        }
        /* The kernel timeout never outlasts the deadline. */
        int slice = left < DSI_WAIT_SLICE_MS ? (int)left : DSI_WAIT_SLICE_MS;
        if (slice > c->timeout_ms)
            slice = c->timeout_ms;
        if (slice != c->slice_ms && net_set_timeouts(c->fd, slice) == 0)
            c->slice_ms = slice;
        ssize_t n = recv(c->fd, dst, len, 0);
        if (n > 0)
            return n;
        n = net_recv_status(n);
        if (n == 0)
            continue; /* interrupted: the loop looks at the clock and the stop again */
        if (n == AFPB_ETIMEOUT) {
            int rc = dsi_keepalive(c);
            if (rc)
                return rc;
            continue;
        }
        if (n == AFPB_ECLOSED) {
            c->server_closed = true;
            return fail(c, n, true, "server closed the connection while %s", what);
        }
        return fail(c, (int)n, true, "receive failed while %s: %s", what, strerror(errno));
    }
}

/* Make at least need bytes available at rx + rx_start. */
static int fill_more(struct dsi_conn *c, size_t need, const char *what)
{
    if (need > c->rx_cap)
        return fail(c, AFPB_EPROTO, true, "packet of %zu bytes exceeds the receive buffer", need);
    while (c->rx_end - c->rx_start < need) {
        if (c->rx_cap - c->rx_start < need) {
            memmove(c->rx, c->rx + c->rx_start, c->rx_end - c->rx_start);
            c->rx_end -= c->rx_start;
            c->rx_start = 0;
        }
        /* Waiting for the header of a reply whose data goes to the
         * caller's buffer: take no more than is needed, so the data is
         * received in place rather than copied out of rx. */
        size_t room = c->rx_cap - c->rx_end;
        if (c->rx_exact && room > need - (c->rx_end - c->rx_start))
            room = need - (c->rx_end - c->rx_start);
        ssize_t n = recv_wait(c, c->rx + c->rx_end, room, what);
        if (n < 0)
            return (int)n;
        c->rx_end += (size_t)n;
    }
    return 0;
}

static inline int fill(struct dsi_conn *c, size_t need, const char *what)
{
    if (c->rx_end - c->rx_start >= need) /* need <= rx_cap: it is buffered */
        return 0;
    return fill_more(c, need, what);
}

/* Handle one server-originated packet whose header is buffered. */
static int handle_server_request(struct dsi_conn *c, const struct dsi_header *h)
{
    switch (h->command) {
    case DSI_TICKLE:
        c->server_tickles++;
        c->rx_start += DSI_HEADER_LEN;
        if (h->length != 0)
            return fail(c, AFPB_EPROTO, true, "server tickle with %u payload bytes", h->length);
        return 0;
    case DSI_ATTENTION: {
        if (h->length > DSI_MAX_ATTENTION_LEN)
            return fail(c, AFPB_EPROTO, true, "attention packet of %u bytes", h->length);
        int rc = fill(c, DSI_HEADER_LEN + h->length, "reading an attention packet");
        if (rc)
            return rc;
        const uint8_t *p = c->rx + c->rx_start + DSI_HEADER_LEN;
        c->attention = h->length >= 2 ? be16_load(p) : 0;
        c->attentions++;
        c->rx_start += DSI_HEADER_LEN + h->length;
        return 0;
    }
    case DSI_CLOSESESSION:
        c->server_closed = true;
        return fail(c, AFPB_ECLOSED, true, "server closed the DSI session%s",
                    c->attention & DSI_ATTN_SHUTDOWN ? " (server shutting down)" : "");
    default:
        return fail(c, AFPB_EPROTO, true, "unexpected server request, DSI command %u", h->command);
    }
}

/* Wait for the header of the reply to the oldest outstanding request
 * (reqid), answering the server's tickles and attentions meanwhile; the
 * header stays buffered at rx + rx_start. */
static int next_reply_header(struct dsi_conn *c, uint16_t reqid, struct dsi_header *h)
{
    if (c->broken)
        return fail(c, AFPB_EDESYNC, true, "connection unusable after an earlier failure");
    if (c->outstanding == 0 || c->pending[c->pending_head] != reqid)
        return fail(c, AFPB_EPARAM, false, "reply to request %u reaped out of order", reqid);
    uint8_t want_cmd = c->pending_cmd[c->pending_head];
    for (;;) {
        int rc = fill(c, DSI_HEADER_LEN, "waiting for a reply");
        if (rc)
            return rc;
        header_get(c->rx + c->rx_start, h);
        if (h->flags == DSI_FLAG_REQUEST) {
            rc = handle_server_request(c, h);
            if (rc)
                return rc;
            continue;
        }
        if (h->flags != DSI_FLAG_REPLY)
            return fail(c, AFPB_EPROTO, true, "bad DSI flags 0x%02x", h->flags);
        if (h->request_id != reqid || h->command != want_cmd)
            return fail(c, AFPB_EPROTO, true,
                        "reply for request %u (DSI command %u) while expecting %u (command %u)",
                        h->request_id, h->command, reqid, want_cmd);
        return 0;
    }
}

/* The oldest outstanding request has its reply. */
static void reaped(struct dsi_conn *c)
{
    if (c->rx_start == c->rx_end)
        c->rx_start = c->rx_end = 0;
    c->pending_head = (c->pending_head + 1) % DSI_MAX_OUTSTANDING;
    c->outstanding--;
}

/* Whether the usual command reply may be taken in one receive
 * (recv_whole_reply): nothing buffered, the reply is the next one due, and
 * the socket's kernel slice fits in left_ms, the time the wait has. */
static inline bool whole_reply_fits(const struct dsi_conn *c, uint16_t reqid, int64_t left_ms)
{
    return c->rx_start == c->rx_end && !c->broken && c->outstanding != 0 &&
           c->pending[c->pending_head] == reqid && c->slice_ms > 0 && left_ms >= c->slice_ms;
}

/* The usual command reply, in one receive. 1: it arrived whole and is
 * reaped. 0: anything else (a partial reply, a tickle or an attention
 * first, a reply that is wrong, an error), with what arrived buffered for
 * recv_reply to handle and report. -1: the kernel slice ran out with
 * nothing received. */
static int recv_whole_reply(struct dsi_conn *c, uint16_t reqid, struct dsi_reply *r)
{
    ssize_t n = recv(c->fd, c->rx, c->rx_cap, 0);
    if (n <= 0) /* recv_reply receives again and classifies it */
        return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? -1 : 0;
    c->rx_start = 0;
    c->rx_end = (size_t)n;
    if ((size_t)n < DSI_HEADER_LEN)
        return 0;
    struct dsi_header h;
    header_get(c->rx, &h);
    if (h.flags != DSI_FLAG_REPLY || h.request_id != reqid ||
        h.command != c->pending_cmd[c->pending_head] || h.length > DSI_MAX_CMD_REPLY ||
        h.length > (size_t)n - DSI_HEADER_LEN)
        return 0;
    r->code = (int32_t)h.code;
    r->length = h.length;
    r->data = c->rx + DSI_HEADER_LEN;
    c->rx_start = DSI_HEADER_LEN + h.length;
    reaped(c);
    return 1;
}

/* dsi_recv_reply once its wait has begun: every case, step by step. */
static int recv_reply(struct dsi_conn *c, uint16_t reqid, void *dst, size_t cap,
                      struct dsi_reply *r)
{
    struct dsi_header h;
    c->rx_exact = dst != NULL;
    int rc = next_reply_header(c, reqid, &h);
    c->rx_exact = false;
    if (rc)
        return rc;
    r->code = (int32_t)h.code;
    r->length = h.length;
    if (!dst) {
        if (h.length > DSI_MAX_CMD_REPLY)
            return fail(c, AFPB_EPROTO, true, "reply of %u bytes exceeds %d", h.length,
                        DSI_MAX_CMD_REPLY);
        rc = fill(c, DSI_HEADER_LEN + h.length, "reading a reply");
        if (rc)
            return rc;
        r->data = c->rx + c->rx_start + DSI_HEADER_LEN;
        c->rx_start += DSI_HEADER_LEN + h.length;
    } else {
        if (h.length > cap)
            return fail(c, AFPB_EPROTO, true, "reply of %u bytes exceeds the %zu asked for",
                        h.length, cap);
        c->rx_start += DSI_HEADER_LEN;
        size_t have = c->rx_end - c->rx_start;
        size_t take = have < h.length ? have : h.length;
        memcpy(dst, c->rx + c->rx_start, take);
        c->rx_start += take;
        /* The rest goes straight into the caller's buffer. */
        while (take < h.length) {
            ssize_t n = recv_wait(c, (uint8_t *)dst + take, h.length - take, "reading reply data");
            if (n < 0)
                return (int)n;
            take += (size_t)n;
        }
        r->data = dst;
    }
    reaped(c);
    return 0;
}

int dsi_recv_reply(struct dsi_conn *c, uint16_t reqid, void *dst, size_t cap, struct dsi_reply *r)
{
    begin_wait(c);
    if (!dst && whole_reply_fits(c, reqid, c->wait_deadline_ms - c->wait_start_ms)) {
        if (recv_whole_reply(c, reqid, r) > 0)
            return 0;
        c->wait_start_ms = 0; /* recv_wait reads the clock again */
    }
    return recv_reply(c, reqid, dst, cap, r);
}

int dsi_drain(struct dsi_conn *c)
{
    while (c->outstanding > 0) {
        struct dsi_header h;
        begin_wait(c);
        int rc = next_reply_header(c, c->pending[c->pending_head], &h);
        if (rc)
            return rc;
        c->rx_start += DSI_HEADER_LEN;
        size_t have = c->rx_end - c->rx_start;
        size_t left = h.length;
        size_t take = have < left ? have : left;
        c->rx_start += take;
        left -= take;
        if (left > 0) /* all that was buffered is consumed: the buffer is free */
            c->rx_start = c->rx_end = 0;
        while (left > 0) {
            ssize_t n =
                recv_wait(c, c->rx, left < c->rx_cap ? left : c->rx_cap, "discarding a reply");
            if (n < 0)
                return (int)n;
            left -= (size_t)n;
        }
        reaped(c);
    }
    return 0;
}

int dsi_transact(struct dsi_conn *c, uint8_t cmd, const void *afp, size_t afplen, const void *data,
                 size_t datalen, void *dst, size_t cap, struct dsi_reply *r)
{
    uint16_t id;
    int rc = dsi_send(c, cmd, afp, afplen, data, datalen, &id);
    if (rc)
        return rc;
    return dsi_recv_reply(c, id, dst, cap, r);
}

int dsi_command(struct dsi_conn *c, uint8_t *packet, size_t afplen, struct dsi_reply *r)
{
    uint8_t *afp = packet + DSI_HEADER_LEN;
    /* A round trip takes far less than a tick of the coarse clock, so the
     * clock is read once every DSI_CLOCK_EVERY commands here (and whenever a
     * reply is not there whole): the run's deadline is checked against it. */
    if (c->clock_skips == 0) {
        c->clock_ms = clock_now_ms();
        c->clock_skips = DSI_CLOCK_EVERY;
    }
    c->clock_skips--;
    /* Requests in flight, an earlier failure, no connection or clock read
     * yet, an observer to tell, a block beyond the quantum, the run's
     * deadline: the general path handles and reports them. */
    if (c->outstanding != 0 || c->broken || c->fd < 0 || c->clock_ms == 0 || c->observe != NULL ||
        afplen > c->server_quantum || deadline_run_expired_at(c->clock_ms))
        return dsi_transact(c, DSI_COMMAND, afp, afplen, NULL, 0, NULL, 0, r);
    uint16_t id = c->next_id++;
    struct dsi_header h = {.flags = DSI_FLAG_REQUEST,
                           .command = DSI_COMMAND,
                           .request_id = id,
                           .length = (uint32_t)afplen};
    header_put(&h, packet);
    size_t total = DSI_HEADER_LEN + afplen;
    c->last_send_ms = c->clock_ms; /* as send_packet */
    ssize_t first = send(c->fd, packet, total, MSG_NOSIGNAL);
    if (first < 0 || (size_t)first != total) {
        struct iovec iov = {packet, total};
        int rc = send_rest(c, DSI_COMMAND, &iov, 1, first, total);
        if (rc)
            return rc;
    }
    pend(c, id, DSI_COMMAND);
    /* The reply, in one receive bounded by the kernel slice and without a
     * clock read; when it is not there whole, the wait begins properly,
     * counting a slice that ran out as time waited. (The run's deadline
     * against clock_ms may be read late by the commands since the last
     * clock read, each of them under a slice.) The condition is
     * whole_reply_fits less what the checks above already hold. */
    if (c->rx_start == c->rx_end && c->slice_ms > 0 &&
        deadline_run_ms() - c->clock_ms >= c->slice_ms) {
        int got = recv_whole_reply(c, id, r);
        if (got > 0)
            return 0;
        int64_t now = clock_now_ms();
        begin_wait_at(c, now, got < 0 ? now - c->slice_ms : now);
    } else {
        begin_wait(c);
    }
    return recv_reply(c, id, NULL, 0, r);
}

int dsi_open_session(struct dsi_conn *c, uint32_t attn_quantum)
{
    uint8_t opts[8];
    size_t n = dsi_opensession_encode(opts, sizeof opts, attn_quantum);
    struct dsi_reply r;
    int rc = dsi_transact(c, DSI_OPENSESSION, opts, n, NULL, 0, NULL, 0, &r);
    if (rc)
        return rc;
    if (r.code != 0)
        return fail(c, r.code, false, "DSIOpenSession refused (code %d)", r.code);
    uint32_t quantum = 0x100000, replay = 0;
    if (dsi_opensession_decode(r.data, r.length, &quantum, &replay))
        return fail(c, AFPB_EPROTO, true, "malformed DSIOpenSession reply options");
    /* A tiny quantum cannot carry our command blocks; the spec minimum is 32000. */
    if (quantum < 4096)
        return fail(c, AFPB_EPROTO, true, "server quantum %u is too small", quantum);
    c->server_quantum = quantum;
    c->replay_cache = replay;
    return 0;
}

void dsi_close(struct dsi_conn *c)
{
    if (c->fd < 0)
        return;
    if (!c->broken && !c->server_closed &&
        send_packet(c, DSI_CLOSESESSION, c->next_id++, 0, NULL, 0, NULL, 0) == 0) {
        /* netatalk answers with its own CloseSession and closes: wait for the
         * EOF briefly so the server has finished its teardown. */
        net_set_timeouts(c->fd, DSI_CLOSE_WAIT_MS);
        int64_t deadline = clock_now_ms() + DSI_CLOSE_WAIT_MS;
        uint8_t sink[256];
        while (clock_now_ms() < deadline && net_recv_some(c->fd, sink, sizeof sink) > 0)
            ;
    }
    close(c->fd);
    c->fd = -1;
    c->outstanding = 0;
}

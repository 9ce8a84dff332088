/* Non-blocking DSI framing (nbdsi.h): requests as they go out, replies fed
 * in every split, server packets in between, and hostile headers. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "harness.h"
#include "nbdsi.h"

static struct nbdsi *new_conn(void)
{
    struct nbdsi *c = malloc(sizeof *c);
    nbdsi_init(c);
    return c;
}

/* A header into out (16 bytes). */
static void hdr(uint8_t *out, uint8_t flags, uint8_t cmd, uint16_t id, uint32_t code, uint32_t len)
{
    struct dsi_header h = {
        .flags = flags, .command = cmd, .request_id = id, .code = code, .length = len};
    dsi_header_encode(&h, out);
}

/* Everything queued for sending, gathered from the iovecs in pieces of at
 * most `step` bytes. */
static size_t drain_tx(struct nbdsi *c, uint8_t *out, size_t cap, size_t step)
{
    size_t got = 0;
    while (nbdsi_tx_pending(c) > 0) {
        struct iovec iov[2];
        int n = nbdsi_tx_iov(c, iov);
        size_t take = iov[0].iov_len < step ? iov[0].iov_len : step;
        if (n < 1 || got + take > cap)
            return 0;
        memcpy(out + got, iov[0].iov_base, take);
        got += take;
        nbdsi_tx_advance(c, take);
    }
    return got;
}

static void test_request_framing(void)
{
    struct nbdsi *c = new_conn();
    uint8_t block[20], data[100], out[256];
    memset(block, 0x3D, sizeof block);
    for (int i = 0; i < 100; i++)
        data[i] = (uint8_t)i;
    c->next_id = 65535; /* wraps to 0 afterwards */
    CHECK_INT(
        nbdsi_send_request(c, DSI_WRITE, block, sizeof block, data, sizeof data, 8, NULL, NULL), 0);
    CHECK_INT(nbdsi_tx_pending(c), 16 + 20 + 100);
    /* a second request while one is in flight is refused */
    CHECK_INT(nbdsi_send_request(c, DSI_COMMAND, block, 2, NULL, 0, 0, NULL, NULL), -1);
    size_t n = drain_tx(c, out, sizeof out, 7); /* odd pieces cross both iovecs */
    CHECK_INT(n, 136);
    uint8_t want_hdr[16];
    hdr(want_hdr, 0, DSI_WRITE, 65535, 20, 120); /* DSIWrite: data offset = block length */
    CHECK_MEM(out, 16, want_hdr, 16);
    CHECK_MEM(out + 16, 20, block, 20);
    CHECK_MEM(out + 36, 100, data, 100);
    CHECK_INT(c->next_id, 0);
    /* a DSICommand carries no data; oversized blocks are refused */
    struct nbdsi *d = new_conn();
    CHECK_INT(nbdsi_send_request(d, DSI_COMMAND, block, 2, data, 1, 0, NULL, NULL), -1);
    static uint8_t big[NBDSI_MAX_BLOCK + 1];
    CHECK_INT(nbdsi_send_request(d, DSI_COMMAND, big, sizeof big, NULL, 0, 0, NULL, NULL), -1);
    CHECK_INT(
        nbdsi_send_request(d, DSI_COMMAND, block, 2, NULL, 0, NBDSI_SMALL_CAP + 1, NULL, NULL), -1);
    CHECK_INT(nbdsi_send_request(d, DSI_TICKLE, NULL, 0, NULL, 0, 0, NULL, NULL), -1);
    free(c);
    free(d);
}

/* A stream: tickle, attention, then the reply (code -5018, 5 bytes). */
static size_t script(uint8_t *s, uint16_t id)
{
    size_t n = 0;
    hdr(s + n, 0, DSI_TICKLE, 900, 0, 0);
    n += 16;
    hdr(s + n, 0, DSI_ATTENTION, 901, 0, 2);
    n += 16;
    s[n++] = 0x30;
    s[n++] = 0x01;
    hdr(s + n, 1, DSI_COMMAND, id, (uint32_t)-5018, 5);
    n += 16;
    memcpy(s + n, "hello", 5);
    return n + 5;
}

static void test_reply_every_split(void)
{
    uint8_t stream[128];
    for (size_t step = 1; step <= 60; step++) {
        struct nbdsi *c = new_conn();
        uint8_t blk[2] = {0x14, 0};
        c->next_id = 42;
        CHECK_INT(nbdsi_send_request(c, DSI_COMMAND, blk, 2, NULL, 0, 64, NULL, NULL), 0);
        nbdsi_tx_advance(c, nbdsi_tx_pending(c));
        size_t len = script(stream, 42), pos = 0;
        int tickles = 0, attentions = 0, replies = 0;
        while (pos < len) {
            size_t chunk = len - pos < step ? len - pos : step, used = 0, off = 0;
            while (off < chunk) {
                enum nbdsi_event ev = nbdsi_rx(c, stream + pos + off, chunk - off, &used);
                off += used;
                if (ev == NBDSI_TICKLE)
                    tickles++;
                else if (ev == NBDSI_ATTENTION)
                    attentions += c->attention == 0x3001;
                else if (ev == NBDSI_REPLY)
                    replies +=
                        c->code == -5018 && c->length == 5 && memcmp(c->small, "hello", 5) == 0;
                else if (ev != NBDSI_MORE)
                    break;
                if (used == 0 && ev == NBDSI_MORE)
                    break;
            }
            pos += chunk;
        }
        if (!CHECK(tickles == 1 && attentions == 1 && replies == 1))
            break;
        free(c);
    }
}

struct sink_seen {
    uint8_t buf[4096];
    size_t total;
    int in_order;
};

static int sink(void *ctx, const uint8_t *data, size_t len, uint64_t offset)
{
    struct sink_seen *s = ctx;
    if (offset != s->total)
        s->in_order = 0;
    if (offset + len <= sizeof s->buf)
        memcpy(s->buf + offset, data, len);
    s->total += len;
    return 0;
}

static void test_sink_and_discard(void)
{
    struct nbdsi *c = new_conn();
    struct sink_seen seen = {.in_order = 1};
    uint8_t blk[20] = {0x3C}, stream[16 + 3000];
    CHECK_INT(nbdsi_send_request(c, DSI_COMMAND, blk, 20, NULL, 0, 3000, sink, &seen), 0);
    nbdsi_set_sink_verify(c, 1000);
    nbdsi_tx_advance(c, nbdsi_tx_pending(c));
    hdr(stream, 1, DSI_COMMAND, 0, 0, 3000);
    for (int i = 0; i < 3000; i++)
        stream[16 + i] = (uint8_t)(i * 7);
    size_t used;
    CHECK_INT(nbdsi_rx_discardable(c), 0); /* no header yet */
    CHECK_INT(nbdsi_rx(c, stream, 16 + 600, &used), NBDSI_MORE);
    CHECK_INT(used, 616);
    CHECK_INT(nbdsi_rx_discardable(c), 0); /* 600 < 1000 checked */
    CHECK_INT(nbdsi_rx(c, stream + 616, 400, &used), NBDSI_MORE);
    CHECK_INT(nbdsi_rx_discardable(c), 2000);
    CHECK_INT(nbdsi_rx_discard(c, 1500), NBDSI_MORE);
    CHECK_INT(nbdsi_rx_discard(c, 501), NBDSI_ERROR); /* more than is left */
    struct nbdsi *d = new_conn();
    struct sink_seen seen2 = {.in_order = 1};
    CHECK_INT(nbdsi_send_request(d, DSI_COMMAND, blk, 20, NULL, 0, 3000, sink, &seen2), 0);
    nbdsi_set_sink_verify(d, 1000);
    nbdsi_tx_advance(d, nbdsi_tx_pending(d));
    CHECK_INT(nbdsi_rx(d, stream, 16 + 1000, &used), NBDSI_MORE);
    CHECK_INT(nbdsi_rx_discard(d, 2000), NBDSI_REPLY);
    CHECK_INT(d->length, 3000);
    CHECK_INT(seen2.total, 1000);
    CHECK(seen2.in_order);
    CHECK_MEM(seen2.buf, 1000, stream + 16, 1000);
    CHECK_INT(seen.total, 1000);
    free(c);
    free(d);
}

/* One hostile header; returns the event it gives with a request in flight
 * (DSICommand id 5, max reply 64). */
static enum nbdsi_event feed_one(const uint8_t h[16], struct nbdsi *c)
{
    uint8_t blk[2] = {0x14, 0};
    nbdsi_init(c);
    c->next_id = 5;
    nbdsi_send_request(c, DSI_COMMAND, blk, 2, NULL, 0, 64, NULL, NULL);
    nbdsi_tx_advance(c, nbdsi_tx_pending(c));
    size_t used;
    return nbdsi_rx(c, h, 16, &used);
}

static void test_hostile_headers(void)
{
    struct nbdsi *c = new_conn();
    uint8_t h[16];
    hdr(h, 1, DSI_COMMAND, 6, 0, 0); /* wrong ID */
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    hdr(h, 1, DSI_WRITE, 5, 0, 0); /* wrong command */
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    hdr(h, 1, DSI_COMMAND, 5, 0, 65); /* more than asked for */
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    hdr(h, 1, DSI_COMMAND, 5, 0, 0xFFFFFFFFu);
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    hdr(h, 2, DSI_COMMAND, 5, 0, 0); /* bad flags */
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    hdr(h, 0, DSI_TICKLE, 1, 0, 1); /* tickle with payload */
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    hdr(h, 0, DSI_ATTENTION, 1, 0, NBDSI_MAX_ATTENTION + 1);
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    hdr(h, 0, DSI_COMMAND, 1, 0, 0); /* the server may not send commands */
    CHECK_INT(feed_one(h, c), NBDSI_ERROR);
    CHECK(c->err[0] != '\0');
    /* once failed, nothing more is accepted */
    size_t used;
    hdr(h, 1, DSI_COMMAND, 5, 0, 0);
    CHECK_INT(nbdsi_rx(c, h, 16, &used), NBDSI_ERROR);
    /* a reply with nothing in flight */
    nbdsi_init(c);
    CHECK_INT(nbdsi_rx(c, h, 16, &used), NBDSI_ERROR);
    /* the server's CloseSession */
    hdr(h, 0, DSI_CLOSESESSION, 1, 0, 0);
    CHECK_INT(feed_one(h, c), NBDSI_CLOSED);
    /* a good empty reply passes */
    hdr(h, 1, DSI_COMMAND, 5, 0, 0);
    CHECK_INT(feed_one(h, c), NBDSI_REPLY);
    CHECK(!c->in_flight);
    free(c);
}

static void test_noreply(void)
{
    struct nbdsi *c = new_conn();
    uint8_t out[64];
    CHECK_INT(nbdsi_send_noreply(c, DSI_TICKLE), 0);
    CHECK_INT(nbdsi_send_noreply(c, DSI_TICKLE), -1); /* the first is not out yet */
    CHECK_INT(drain_tx(c, out, sizeof out, 100), 16);
    CHECK_INT(out[1], DSI_TICKLE);
    CHECK_INT(be32_load(out + 8), 0);
    CHECK_INT(nbdsi_send_noreply(c, DSI_COMMAND), -1);
    CHECK_INT(nbdsi_send_noreply(c, DSI_CLOSESESSION), 0);
    free(c);
}

int main(void)
{
    RUN(test_request_framing);
    RUN(test_reply_every_split);
    RUN(test_sink_and_discard);
    RUN(test_hostile_headers);
    RUN(test_noreply);
    return harness_report();
}

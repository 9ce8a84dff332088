/* DSI codecs (golden, truncated, hostile) and the request/reply engine.
 *
 * The engine tests talk to a scripted peer over a socketpair: the behaviours
 * under test (interleaved tickles and attentions, a reply for the wrong
 * request, a silent or vanishing server, oversized lengths) cannot be
 * provoked from a real netatalk on demand, so the peer is a mock. The real
 * server is exercised by tests/integration.sh. */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "deadline.h"
#include "dsi.h"
#include "harness.h"
#include "net.h"

static void test_header_codec(void)
{
    struct dsi_header h = {.flags = 0x00,
                           .command = DSI_WRITE,
                           .request_id = 0xABCD,
                           .code = 20,
                           .length = 20 + 5,
                           .reserved = 0};
    uint8_t out[16];
    dsi_header_encode(&h, out);
    static const uint8_t want[16] = {0x00, 0x06, 0xAB, 0xCD, 0x00, 0x00, 0x00, 0x14,
                                     0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00, 0x00};
    CHECK_MEM(out, sizeof out, want, sizeof want);

    /* A reply carrying -5018 (FF FF EC 66). */
    static const uint8_t reply[16] = {0x01, 0x02, 0x00, 0x07, 0xFF, 0xFF, 0xEC, 0x66,
                                      0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00};
    struct dsi_header d;
    CHECK_INT(dsi_header_decode(reply, sizeof reply, &d), 0);
    CHECK_INT(d.flags, 1);
    CHECK_INT(d.command, DSI_COMMAND);
    CHECK_INT(d.request_id, 7);
    CHECK_INT((int32_t)d.code, -5018);
    CHECK_INT(d.length, 256);
    for (size_t len = 0; len < 16; len++) {
        uint8_t *p = malloc(len ? len : 1);
        memcpy(p, reply, len);
        CHECK_INT(dsi_header_decode(p, len, &d), AFPB_EPROTO);
        free(p);
    }
}

static void test_opensession_codec(void)
{
    uint8_t out[8];
    CHECK_INT(dsi_opensession_encode(out, sizeof out, 1024), 6);
    static const uint8_t want[6] = {0x01, 0x04, 0x00, 0x00, 0x04, 0x00};
    CHECK_MEM(out, 6, want, sizeof want);
    CHECK_INT(dsi_opensession_encode(out, 5, 1024), 0);

    /* netatalk's reply: quantum 1 MiB, replay cache 128. */
    static const uint8_t reply[12] = {0x00, 0x04, 0x00, 0x10, 0x00, 0x00,
                                      0x02, 0x04, 0x00, 0x00, 0x00, 0x80};
    uint32_t q = 0, rc = 0;
    CHECK_INT(dsi_opensession_decode(reply, sizeof reply, &q, &rc), 0);
    CHECK_INT(q, 0x100000);
    CHECK_INT(rc, 128);
    /* Truncations inside an option are malformed; at an option boundary they
     * just carry fewer options. */
    for (size_t len = 0; len < sizeof reply; len++) {
        uint8_t *p = malloc(len ? len : 1);
        memcpy(p, reply, len);
        int want_rc = (len == 0 || len == 6) ? 0 : AFPB_EPROTO;
        CHECK_INT(dsi_opensession_decode(p, len, &q, &rc), want_rc);
        free(p);
    }
    /* Unknown options are skipped; a quantum of the wrong size is refused. */
    static const uint8_t unknown[] = {0x7F, 0x02, 0xAA, 0xBB, 0x00, 0x04, 0x00, 0x00, 0x80, 0x00};
    CHECK_INT(dsi_opensession_decode(unknown, sizeof unknown, &q, &rc), 0);
    CHECK_INT(q, 0x8000);
    static const uint8_t wrong_size[] = {0x00, 0x02, 0x10, 0x00};
    CHECK_INT(dsi_opensession_decode(wrong_size, sizeof wrong_size, &q, &rc), AFPB_EPROTO);
    static const uint8_t overlong[] = {0x00, 0xFF, 0x00, 0x10};
    CHECK_INT(dsi_opensession_decode(overlong, sizeof overlong, &q, &rc), AFPB_EPROTO);
}

/* ---- Engine over a socketpair ---- */

struct pair {
    struct dsi_conn c;
    int peer;
};

static void pair_open(struct pair *p, int timeout_ms)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        abort();
    if (dsi_init(&p->c, timeout_ms) != 0)
        abort();
    p->c.fd = sv[0];
    /* as dsi_connect: the kernel timeout, and the engine knowing it */
    p->c.slice_ms = timeout_ms < 5000 ? timeout_ms : 5000;
    net_set_timeouts(sv[0], p->c.slice_ms);
    p->c.last_send_ms = p->c.clock_ms = clock_now_ms();
    p->peer = sv[1];
}

static void pair_close(struct pair *p)
{
    dsi_free(&p->c);
    if (p->peer >= 0)
        close(p->peer);
}

/* Write a server packet to the client. */
static void peer_send(struct pair *p, uint8_t flags, uint8_t cmd, uint16_t id, uint32_t code,
                      const void *data, uint32_t len)
{
    uint8_t hdr[16];
    struct dsi_header h = {
        .flags = flags, .command = cmd, .request_id = id, .code = code, .length = len};
    dsi_header_encode(&h, hdr);
    if (write(p->peer, hdr, 16) != 16 || (len && write(p->peer, data, len) != (ssize_t)len))
        abort();
}

/* Read what the client sent. */
static size_t peer_recv(struct pair *p, uint8_t *buf, size_t cap)
{
    ssize_t n = recv(p->peer, buf, cap, MSG_DONTWAIT);
    return n > 0 ? (size_t)n : 0;
}

static void test_send_framing(void)
{
    struct pair p;
    pair_open(&p, 1000);
    uint8_t afp[3] = {0x14, 0x00, 0x00};
    uint16_t id = 0xFFFF;
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), 0);
    CHECK_INT(id, 0);
    CHECK_INT(dsi_send(&p.c, DSI_WRITE, afp, 3, "data", 4, &id), 0);
    CHECK_INT(id, 1);
    uint8_t got[64];
    size_t n = peer_recv(&p, got, sizeof got);
    static const uint8_t want[] = {
        0x00, 0x02, 0x00, 0x00, 0,  0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0x14, 0x00, /* command */
        0x00, 0x06, 0x00, 0x01, 0,  0, 0, 3, 0, 0, 0, 7, 0, 0, 0, 0, 0x14, 0x00,
        0x00, 'd',  'a',  't',  'a'}; /* write: data offset = 3 */
    CHECK_MEM(got, n, want, sizeof want);
    CHECK_INT(p.c.commands, 2);
    CHECK_INT(p.c.outstanding, 2);
    /* A DSICommand with data, or a reply-less command, is refused unsent. */
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, "x", 1, NULL), AFPB_EPARAM);
    CHECK_INT(dsi_send(&p.c, DSI_TICKLE, NULL, 0, NULL, 0, NULL), AFPB_EPARAM);
    pair_close(&p);
}

static void test_request_ids_wrap(void)
{
    struct pair p;
    pair_open(&p, 1000);
    p.c.next_id = 65535;
    uint16_t a, b;
    uint8_t afp[2] = {0x14, 0};
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &a), 0);
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &b), 0);
    CHECK_INT(a, 65535);
    CHECK_INT(b, 0);
    /* Tickles take IDs too, so no later request repeats an earlier one. */
    CHECK_INT(dsi_tickle(&p.c), 0);
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &a), 0);
    CHECK_INT(a, 2);
    pair_close(&p);
}

static void test_reply_with_tickle_and_attention(void)
{
    struct pair p;
    pair_open(&p, 1000);
    uint16_t id;
    uint8_t afp[2] = {0x14, 0};
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), 0);
    peer_send(&p, 0, DSI_TICKLE, 900, 0, NULL, 0);
    uint8_t ub[2] = {0x30, 0x01}; /* volume-changed notification */
    peer_send(&p, 0, DSI_ATTENTION, 901, 0, ub, 2);
    peer_send(&p, 1, DSI_COMMAND, id, 0, "abc", 3);
    struct dsi_reply r;
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), 0);
    CHECK_INT(r.code, 0);
    CHECK_MEM(r.data, r.length, "abc", 3);
    CHECK_INT(p.c.server_tickles, 1);
    CHECK_INT(p.c.attentions, 1);
    CHECK_INT(p.c.attention, 0x3001);
    CHECK_INT(p.c.outstanding, 0);
    pair_close(&p);
}

static void test_pipelined_in_order(void)
{
    struct pair p;
    pair_open(&p, 1000);
    uint16_t ids[3];
    uint8_t afp[2] = {0x3C, 0};
    for (int i = 0; i < 3; i++)
        CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &ids[i]), 0);
    struct dsi_reply r;
    /* Reaping a later one first is a caller error, and harmless. */
    CHECK_INT(dsi_recv_reply(&p.c, ids[1], NULL, 0, &r), AFPB_EPARAM);
    CHECK(!p.c.broken);
    uint8_t data[3][100];
    for (int i = 0; i < 3; i++) {
        memset(data[i], 'a' + i, sizeof data[i]);
        peer_send(&p, 1, DSI_COMMAND, ids[i], i == 2 ? (uint32_t)-5009 : 0, data[i], 100 - i);
    }
    uint8_t buf[100];
    for (int i = 0; i < 3; i++) {
        CHECK_INT(dsi_recv_reply(&p.c, ids[i], buf, sizeof buf, &r), 0);
        CHECK_INT(r.length, 100 - i);
        CHECK(r.data == buf);
        CHECK_MEM(buf, r.length, data[i], (size_t)(100 - i));
    }
    CHECK_INT(r.code, -5009);
    pair_close(&p);
}

struct slow_writer {
    int fd;
    const uint8_t *bytes;
    size_t len;
    size_t piece; /* bytes per write */
};

static void *write_slowly(void *arg)
{
    struct slow_writer *s = arg;
    size_t piece = s->piece;
    for (size_t off = 0; off < s->len; off += piece) {
        size_t n = s->len - off < piece ? s->len - off : piece;
        if (write(s->fd, s->bytes + off, n) != (ssize_t)n)
            break;
        usleep(2000);
    }
    return NULL;
}

static void test_reply_in_pieces(void)
{
    struct pair p;
    pair_open(&p, 2000);
    uint16_t id;
    uint8_t afp[2] = {0x3C, 0};
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), 0);
    /* Header and payload trickle in 7 bytes at a time, from another thread. */
    uint8_t pkt[16 + 40];
    struct dsi_header h = {.flags = 1, .command = DSI_COMMAND, .request_id = id, .length = 40};
    dsi_header_encode(&h, pkt);
    for (int i = 0; i < 40; i++)
        pkt[16 + i] = (uint8_t)(i * 3);
    struct slow_writer sw = {p.peer, pkt, sizeof pkt, 7};
    pthread_t t;
    pthread_create(&t, NULL, write_slowly, &sw);
    uint8_t buf[64];
    struct dsi_reply r;
    CHECK_INT(dsi_recv_reply(&p.c, id, buf, sizeof buf, &r), 0);
    pthread_join(t, NULL);
    CHECK_MEM(buf, r.length, pkt + 16, 40);
    pair_close(&p);
}

static void test_wrong_reply_id(void)
{
    struct pair p;
    pair_open(&p, 1000);
    uint16_t id;
    uint8_t afp[2] = {0x14, 0};
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), 0);
    peer_send(&p, 1, DSI_COMMAND, (uint16_t)(id + 5), 0, NULL, 0);
    struct dsi_reply r;
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), AFPB_EPROTO);
    CHECK(p.c.broken);
    CHECK(strstr(p.c.err, "expecting") != NULL);
    /* Once desynchronised, nothing more goes out. */
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), AFPB_EDESYNC);
    pair_close(&p);
}

static void test_hostile_lengths(void)
{
    struct pair p;
    struct dsi_reply r;
    uint16_t id;
    uint8_t afp[2] = {0x3C, 0};
    uint8_t buf[32];

    /* A read reply longer than the caller's buffer. */
    pair_open(&p, 1000);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    peer_send(&p, 1, DSI_COMMAND, id, 0, NULL, 0);
    CHECK_INT(dsi_recv_reply(&p.c, id, buf, sizeof buf, &r), 0);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    uint8_t big[33] = {0};
    peer_send(&p, 1, DSI_COMMAND, id, 0, big, sizeof big);
    CHECK_INT(dsi_recv_reply(&p.c, id, buf, sizeof buf, &r), AFPB_EPROTO);
    pair_close(&p);

    /* A command reply claiming 4 GiB. */
    pair_open(&p, 1000);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    uint8_t hdr[16];
    struct dsi_header h = {
        .flags = 1, .command = DSI_COMMAND, .request_id = id, .length = 0xFFFFFFFF};
    dsi_header_encode(&h, hdr);
    CHECK(write(p.peer, hdr, 16) == 16);
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), AFPB_EPROTO);
    pair_close(&p);

    /* An attention packet far larger than 2 bytes. */
    pair_open(&p, 1000);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    h = (struct dsi_header){
        .flags = 0, .command = DSI_ATTENTION, .request_id = 1, .length = 100000};
    dsi_header_encode(&h, hdr);
    CHECK(write(p.peer, hdr, 16) == 16);
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), AFPB_EPROTO);
    pair_close(&p);

    /* Flags other than request/reply, and an unknown server request. */
    pair_open(&p, 1000);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    peer_send(&p, 7, DSI_COMMAND, id, 0, NULL, 0);
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), AFPB_EPROTO);
    pair_close(&p);
    pair_open(&p, 1000);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    peer_send(&p, 0, DSI_COMMAND, 3, 0, NULL, 0);
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), AFPB_EPROTO);
    pair_close(&p);
}

static void test_silent_server_times_out(void)
{
    struct pair p;
    pair_open(&p, 300);
    uint16_t id;
    uint8_t afp[2] = {0x14, 0};
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    int64_t t0 = clock_now_ms();
    struct dsi_reply r;
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), AFPB_ETIMEOUT);
    int64_t waited = clock_now_ms() - t0;
    CHECK(waited >= 250 && waited < 3000);
    CHECK(strstr(p.c.err, "no complete reply within 300 ms") != NULL);
    pair_close(&p);
}

static void test_server_goes_away(void)
{
    struct pair p;
    struct dsi_reply r;
    uint16_t id;
    uint8_t afp[2] = {0x3C, 0};
    uint8_t buf[64];

    /* Connection closed halfway through a reply. */
    pair_open(&p, 1000);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    uint8_t hdr[16 + 10];
    struct dsi_header h = {.flags = 1, .command = DSI_COMMAND, .request_id = id, .length = 50};
    dsi_header_encode(&h, hdr);
    memset(hdr + 16, 0x55, 10);
    CHECK(write(p.peer, hdr, sizeof hdr) == (ssize_t)sizeof hdr);
    close(p.peer);
    p.peer = -1;
    CHECK_INT(dsi_recv_reply(&p.c, id, buf, sizeof buf, &r), AFPB_ECLOSED);
    CHECK(p.c.server_closed);
    pair_close(&p);

    /* The server's own DSICloseSession while we wait. */
    pair_open(&p, 1000);
    dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
    uint8_t shutdown[2] = {0xB0, 0x05};
    peer_send(&p, 0, DSI_ATTENTION, 1, 0, shutdown, 2);
    peer_send(&p, 0, DSI_CLOSESESSION, 2, 0, NULL, 0);
    CHECK_INT(dsi_recv_reply(&p.c, id, buf, sizeof buf, &r), AFPB_ECLOSED);
    CHECK(strstr(p.c.err, "shutting down") != NULL);
    pair_close(&p);
}

/* After a transfer that failed midway: the replies still in flight are
 * reaped and discarded, a read reply larger than the receive buffer too,
 * with a tickle among them; the stream then serves the next request. */
static void test_drain(void)
{
    struct pair p;
    pair_open(&p, 2000);
    uint16_t ids[3];
    uint8_t afp[2] = {0x3C, 0};
    for (int i = 0; i < 3; i++)
        CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &ids[i]), 0);
    /* 16 header + 300000 payload, 16 + 5, a tickle, 16 + 0 (-5009) */
    enum { BIG = 300000 };
    size_t total = 16 + BIG + 16 + 5 + 16 + 16;
    uint8_t *pkts = calloc(1, total), *at = pkts;
    struct dsi_header h = {.flags = 1, .command = DSI_COMMAND, .request_id = ids[0], .length = BIG};
    dsi_header_encode(&h, at);
    at += 16 + BIG;
    h.request_id = ids[1];
    h.length = 5;
    dsi_header_encode(&h, at);
    at += 16 + 5;
    struct dsi_header tickle = {.flags = 0, .command = DSI_TICKLE, .request_id = 900};
    dsi_header_encode(&tickle, at);
    at += 16;
    h.request_id = ids[2];
    h.length = 0;
    h.code = (uint32_t)-5009;
    dsi_header_encode(&h, at);
    /* Written by another thread: more than the socket buffer holds. */
    struct slow_writer sw = {p.peer, pkts, total, 65536};
    pthread_t t;
    pthread_create(&t, NULL, write_slowly, &sw);
    CHECK_INT(dsi_drain(&p.c), 0);
    pthread_join(t, NULL);
    CHECK_INT(p.c.outstanding, 0);
    CHECK_INT(p.c.server_tickles, 1);
    CHECK(!p.c.broken);
    CHECK_INT(dsi_drain(&p.c), 0); /* nothing in flight: nothing to do */

    uint16_t id;
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), 0);
    peer_send(&p, 1, DSI_COMMAND, id, 0, "ok", 2);
    struct dsi_reply r;
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), 0);
    CHECK_MEM(r.data, r.length, "ok", 2);
    free(pkts);
    pair_close(&p);
}

static void test_keepalive_tickle(void)
{
    struct pair p;
    pair_open(&p, 1000);
    uint8_t got[32];
    CHECK_INT(dsi_keepalive(&p.c), 0);
    CHECK_INT(peer_recv(&p, got, sizeof got), 0); /* recently active: nothing sent */
    p.c.last_send_ms -= DSI_TICKLE_IDLE_MS + 1;
    p.c.next_id = 9;
    CHECK_INT(dsi_keepalive(&p.c), 0);
    static const uint8_t tickle[16] = {0x00, 0x05, 0x00, 0x09, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    size_t n = peer_recv(&p, got, sizeof got);
    CHECK_MEM(got, n, tickle, sizeof tickle);
    pair_close(&p);
}

static void test_close_sends_closesession(void)
{
    struct pair p;
    pair_open(&p, 1000);
    p.c.next_id = 4;
    int peer = p.peer;
    /* The peer answers with its own close right away, as netatalk does. */
    peer_send(&p, 0, DSI_CLOSESESSION, 77, 0, NULL, 0);
    shutdown(peer, SHUT_WR);
    dsi_close(&p.c);
    CHECK_INT(p.c.fd, -1);
    uint8_t got[32];
    ssize_t n = read(peer, got, sizeof got);
    static const uint8_t want[16] = {0x00, 0x01, 0x00, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK_MEM(got, n > 0 ? (size_t)n : 0, want, sizeof want);
    pair_close(&p);
}

/* A peer thread that keeps the client waiting: tickles, or one byte of a
 * reply at a time, every interval_ms, count times. */
struct stall {
    int fd;
    uint16_t id;
    int tickles; /* 1: tickles; 0: a trickled reply */
    int count, interval_ms;
};

static void *stall_peer(void *arg)
{
    struct stall *st = arg;
    uint8_t pkt[16 + 64];
    struct dsi_header h = {.flags = 1, .command = DSI_COMMAND, .request_id = st->id, .length = 64};
    if (st->tickles)
        h = (struct dsi_header){.flags = 0, .command = DSI_TICKLE, .request_id = 7};
    dsi_header_encode(&h, pkt);
    memset(pkt + 16, 0x5a, 64);
    for (int i = 0; i < st->count; i++) {
        ssize_t n = st->tickles ? send(st->fd, pkt, 16, MSG_NOSIGNAL)
                                : send(st->fd, pkt + (i % 80), 1, MSG_NOSIGNAL);
        if (n <= 0)
            break;
        usleep((useconds_t)st->interval_ms * 1000);
    }
    return NULL;
}

/* Issue 10: tickles and partial data do not extend a request's deadline. */
static void test_tickles_and_trickles_do_not_extend(void)
{
    for (int tickles = 1; tickles >= 0; tickles--) {
        struct pair p;
        pair_open(&p, 400);
        uint16_t id;
        uint8_t afp[2] = {0x14, 0};
        dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id);
        /* 40 x 50 ms: two seconds of "activity", five times the timeout */
        struct stall st = {p.peer, id, tickles, 40, 50};
        pthread_t t;
        pthread_create(&t, NULL, stall_peer, &st);
        int64_t t0 = clock_now_ms();
        struct dsi_reply r;
        uint8_t buf[64];
        CHECK_INT(dsi_recv_reply(&p.c, id, buf, sizeof buf, &r), AFPB_ETIMEOUT);
        int64_t waited = clock_now_ms() - t0;
        CHECK(waited >= 350 && waited < 1200);
        CHECK(strstr(p.c.err, "do not extend") != NULL);
        shutdown(p.peer, SHUT_RDWR);
        pthread_join(t, NULL);
        pair_close(&p);
    }
}

/* The run's deadline cuts a wait short, then refuses every later request. */
static void test_run_deadline(void)
{
    struct pair p;
    pair_open(&p, 30000);
    uint16_t id;
    uint8_t afp[2] = {0x14, 0};
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), 0);
    deadline_set_run(1);
    int64_t t0 = clock_now_ms();
    struct dsi_reply r;
    CHECK_INT(dsi_recv_reply(&p.c, id, NULL, 0, &r), AFPB_ETIMEOUT);
    int64_t waited = clock_now_ms() - t0;
    CHECK(waited >= 900 && waited < 2500);
    CHECK(strstr(p.c.err, "--deadline 1 s") != NULL);
    CHECK(deadline_run_expired());
    CHECK(p.c.broken);
    pair_close(&p);
    pair_open(&p, 30000);
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), AFPB_ETIMEOUT);
    CHECK(strstr(p.c.err, "deadline") != NULL);
    deadline_set_run(0);
    CHECK(!deadline_run_expired());
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, afp, 2, NULL, 0, &id), AFPB_EDESYNC);
    pair_close(&p);
}

/* Issue 10: the request size never follows a huge advertised quantum. */
static void test_request_size_bound(void)
{
    CHECK_INT(dsi_request_size(0xFFFFFFFFu, 0), DSI_REQUEST_DEFAULT_MAX);
    CHECK_INT(dsi_request_size(0xFFFFFFFFu, 8u << 20), 8u << 20);
    CHECK_INT(dsi_request_size(0xFFFFFFFFu, 0xFFFFFFFFu), DSI_REQUEST_HARD_MAX);
    CHECK_INT(dsi_request_size(262144, 0), 262144);
    CHECK_INT(dsi_request_size(262144, 8u << 20), 262144);
    CHECK_INT(dsi_request_size(1u << 20, 0), 1u << 20);
}

/* A write request, FPWriteExt's parameters and its data, fits in the quantum
 * (netatalk 4.5 closes the connection on a larger one). */
static void test_write_size_fits(void)
{
    CHECK_INT(dsi_write_size(1u << 20), (1u << 20) - DSI_WRITE_PARAMS);
    CHECK_INT(dsi_write_size(262144), 262144 - DSI_WRITE_PARAMS);
    CHECK_INT(dsi_write_size(0xFFFFFFFFu), 0xFFFFFFFFu - DSI_WRITE_PARAMS);
    /* too small to leave room: as it is (the server's own problem) */
    CHECK_INT(dsi_write_size(40), 40);
    CHECK_INT(dsi_write_size(0), 0);
    CHECK_INT(DSI_WRITE_PARAMS, 20);
}

/* dsi_command: the header framed in place before the AFP block, one send,
 * the reply whole in one receive; and every case it hands to the general
 * path (a tickle first, a reply in pieces, a wrong ID, a hostile length, a
 * silent server) ends as dsi_transact would. */
static void test_command_round_trip(void)
{
    struct pair p;
    pair_open(&p, 1000);
    uint8_t packet[16 + 2] = {[16] = 0x14, [17] = 0x00};
    p.c.next_id = 7;
    peer_send(&p, 1, DSI_COMMAND, 7, 0, "abc", 3); /* waiting before the request goes out */
    struct dsi_reply r;
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), 0);
    CHECK_INT(r.code, 0);
    CHECK_MEM(r.data, r.length, "abc", 3);
    CHECK_INT(p.c.outstanding, 0);
    CHECK_INT(p.c.commands, 1);
    uint8_t got[64];
    size_t n = peer_recv(&p, got, sizeof got);
    static const uint8_t want[] = {0x00, 0x02, 0x00, 0x07, 0, 0, 0, 0,    0,
                                   0,    0,    2,    0,    0, 0, 0, 0x14, 0x00};
    CHECK_MEM(got, n, want, sizeof want);
    /* an AFP error in the reply is its result, the stream still usable */
    peer_send(&p, 1, DSI_COMMAND, 8, (uint32_t)-5018, NULL, 0);
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), 0);
    CHECK_INT(r.code, -5018);
    /* a tickle in front of the reply: the general path takes both */
    peer_send(&p, 0, DSI_TICKLE, 900, 0, NULL, 0);
    peer_send(&p, 1, DSI_COMMAND, 9, 0, "xy", 2);
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), 0);
    CHECK_MEM(r.data, r.length, "xy", 2);
    CHECK_INT(p.c.server_tickles, 1);
    CHECK_INT(p.c.outstanding, 0);
    pair_close(&p);
}

static void test_command_reply_in_pieces(void)
{
    struct pair p;
    pair_open(&p, 2000);
    uint8_t packet[16 + 2] = {[16] = 0x3C};
    uint8_t pkt[16 + 40];
    struct dsi_header h = {.flags = 1, .command = DSI_COMMAND, .request_id = 0, .length = 40};
    dsi_header_encode(&h, pkt);
    for (int i = 0; i < 40; i++)
        pkt[16 + i] = (uint8_t)(i * 5);
    struct slow_writer sw = {p.peer, pkt, sizeof pkt, 7};
    pthread_t t;
    pthread_create(&t, NULL, write_slowly, &sw);
    struct dsi_reply r;
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), 0);
    pthread_join(t, NULL);
    CHECK_MEM(r.data, r.length, pkt + 16, 40);
    pair_close(&p);
}

static void test_command_hostile_replies(void)
{
    struct pair p;
    struct dsi_reply r;
    uint8_t packet[16 + 2] = {[16] = 0x14};
    /* another request's ID */
    pair_open(&p, 1000);
    peer_send(&p, 1, DSI_COMMAND, 5, 0, NULL, 0);
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), AFPB_EPROTO);
    CHECK(p.c.broken);
    CHECK(strstr(p.c.err, "expecting") != NULL);
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), AFPB_EDESYNC);
    pair_close(&p);
    /* a length beyond any command reply */
    pair_open(&p, 1000);
    peer_send(&p, 1, DSI_COMMAND, 0, 0, NULL, 0);
    uint8_t hdr[16];
    struct dsi_header h = {.flags = 1, .command = DSI_COMMAND, .request_id = 1, .length = 70000};
    dsi_header_encode(&h, hdr);
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), 0);
    if (write(p.peer, hdr, sizeof hdr) != (ssize_t)sizeof hdr)
        abort();
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), AFPB_EPROTO);
    CHECK(strstr(p.c.err, "exceeds") != NULL);
    pair_close(&p);
    /* silence: the request's timeout, not a kernel slice more (the slice
     * that ran out in the one receive counts as waited) */
    pair_open(&p, 1000);
    int64_t t0 = clock_now_ms();
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), AFPB_ETIMEOUT);
    int64_t waited = clock_now_ms() - t0;
    CHECK(waited >= 950 && waited < 1600);
    pair_close(&p);
    /* with a request in flight the general path answers: out of order */
    pair_open(&p, 1000);
    uint16_t id;
    CHECK_INT(dsi_send(&p.c, DSI_COMMAND, packet + 16, 2, NULL, 0, &id), 0);
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), AFPB_EPARAM);
    CHECK(strstr(p.c.err, "out of order") != NULL);
    pair_close(&p);
}

/* A peer that answers every 2-byte DSICommand with an empty reply, one at a
 * time, until the client goes away. */
static void *answer_each(void *arg)
{
    int fd = *(int *)arg;
    uint8_t req[16 + 2], hdr[16];
    for (;;) {
        size_t got = 0;
        while (got < sizeof req) {
            ssize_t n = recv(fd, req + got, sizeof req - got, 0);
            if (n <= 0)
                return NULL;
            got += (size_t)n;
        }
        struct dsi_header h = {
            .flags = 1, .command = DSI_COMMAND, .request_id = be16_load(req + 2)};
        dsi_header_encode(&h, hdr);
        if (write(fd, hdr, sizeof hdr) != (ssize_t)sizeof hdr)
            return NULL;
    }
}

/* dsi_command and the run's deadline: a wait is cut at the deadline, and a
 * deadline that passes between commands is seen within DSI_CLOCK_EVERY (16)
 * commands, the clock being read once every 16. */
static void test_command_run_deadline(void)
{
    struct pair p;
    struct dsi_reply r;
    uint8_t packet[16 + 2] = {[16] = 0x14};
    pair_open(&p, 30000);
    deadline_set_run(1);
    int64_t t0 = clock_now_ms();
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), AFPB_ETIMEOUT);
    int64_t waited = clock_now_ms() - t0;
    CHECK(waited >= 900 && waited < 2500);
    CHECK(strstr(p.c.err, "--deadline 1 s") != NULL);
    deadline_set_run(0);
    pair_close(&p);

    /* a 200 ms slice: the deadline is far enough for the one-receive path;
     * a peer that answers each request as it comes, as a server does */
    pair_open(&p, 200);
    pthread_t t;
    pthread_create(&t, NULL, answer_each, &p.peer);
    deadline_set_run(1);
    CHECK_INT(dsi_command(&p.c, packet, 2, &r), 0);
    usleep(1100 * 1000);
    int served = 0, rc;
    while ((rc = dsi_command(&p.c, packet, 2, &r)) == 0 && served < 100)
        served++;
    CHECK_INT(rc, AFPB_ETIMEOUT);
    CHECK(served < 16);
    CHECK(strstr(p.c.err, "deadline") != NULL);
    shutdown(p.peer, SHUT_RDWR);
    pthread_join(t, NULL);
    deadline_set_run(0);
    pair_close(&p);
}

/* One stop signal delivered twice is one stop. timeout(1) signals its child
 * and then the child's process group: with the handler reset by the first
 * copy (SA_RESETHAND), the second killed the run whenever the handler ran
 * in between, as under load it did. raise() runs the handler before it
 * returns, so here the second copy always comes after the first was
 * handled. In a child: a stop cannot be taken back. */
static void test_stop_signal_twice(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        deadline_install_signals();
        raise(SIGTERM);
        raise(SIGTERM);
        raise(SIGINT); /* the first signal names the stop */
        _exit(deadline_stop_requested() && deadline_run_expired() &&
                      strcmp(deadline_reason(), "stopped by signal 15") == 0
                  ? 0
                  : 1);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(!WIFSIGNALED(status));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
    RUN(test_header_codec);
    RUN(test_opensession_codec);
    RUN(test_send_framing);
    RUN(test_request_ids_wrap);
    RUN(test_reply_with_tickle_and_attention);
    RUN(test_pipelined_in_order);
    RUN(test_reply_in_pieces);
    RUN(test_wrong_reply_id);
    RUN(test_hostile_lengths);
    RUN(test_silent_server_times_out);
    RUN(test_server_goes_away);
    RUN(test_drain);
    RUN(test_keepalive_tickle);
    RUN(test_close_sends_closesession);
    RUN(test_tickles_and_trickles_do_not_extend);
    RUN(test_run_deadline);
    RUN(test_request_size_bound);
    RUN(test_write_size_fits);
    RUN(test_command_round_trip);
    RUN(test_command_reply_in_pieces);
    RUN(test_command_hostile_replies);
    RUN(test_command_run_deadline);
    RUN(test_stop_signal_twice);
    return harness_report();
}

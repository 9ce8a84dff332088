/* Non-blocking DSI framing for the load engine (afpbench load): one request
 * in flight per connection, bytes fed in by the caller as they arrive and
 * taken out as the socket accepts them. No socket calls here, so the unit
 * tests drive it with any split of any byte stream.
 *
 * Receiving: nbdsi_rx() consumes bytes up to the end of one packet and says
 * what it was: the reply to the request in flight (its payload assembled in
 * the connection's small buffer, or handed to a sink as it arrives for bulk
 * reads), a server tickle, an attention, the server's CloseSession, or a
 * protocol error. Every length is checked before a byte is stored: a reply
 * larger than what its request allows, a reply to another request ID or DSI
 * command, a reply with nothing in flight, an oversized attention or a
 * tickle with payload is NBDSI_ERROR, and the connection stays failed.
 *
 * Sending: nbdsi_send_*() frames one request (header + AFP block, plus the
 * write data by reference) and nbdsi_tx_iov()/nbdsi_tx_advance() hand it to
 * the socket piece by piece. Request IDs only ever increase (wrapping), as
 * netatalk's replay cache needs. */
#ifndef AFPBENCH_NBDSI_H
#define AFPBENCH_NBDSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "dsi.h"

/* The largest AFP request block the load engine sends. */
#define NBDSI_MAX_BLOCK 512
/* Small replies are assembled in a buffer of this size (enumerations ask
 * for at most this much). */
#define NBDSI_SMALL_CAP 16384
/* Attention payloads are 2 bytes; anything larger is hostile. */
#define NBDSI_MAX_ATTENTION 64

enum nbdsi_event {
    NBDSI_MORE,      /* need more bytes */
    NBDSI_REPLY,     /* the reply to the request in flight is complete */
    NBDSI_TICKLE,    /* the server's keep-alive */
    NBDSI_ATTENTION, /* attention (attention holds the AFPUserBytes) */
    NBDSI_CLOSED,    /* the server closed the DSI session */
    NBDSI_ERROR,     /* protocol violation: err says what; the connection is failed */
};

/* Bulk payload consumer: called with each piece of a sink-mode reply's
 * payload (offset = its position in the payload). Non-zero stops with
 * NBDSI_ERROR (e.g. data that is not what was written). */
typedef int (*nbdsi_sink_fn)(void *ctx, const uint8_t *data, size_t len, uint64_t offset);

struct nbdsi {
    /* receive side */
    uint8_t hdr[DSI_HEADER_LEN];
    size_t hdr_have;
    struct dsi_header h; /* the packet being received (valid once hdr_have == 16) */
    uint32_t body_have;  /* payload bytes of it consumed */
    uint8_t small[NBDSI_SMALL_CAP];
    /* the request in flight */
    bool in_flight;
    uint16_t want_id;
    uint8_t want_cmd;
    uint32_t max_reply; /* payload bytes the reply may carry */
    nbdsi_sink_fn sink; /* NULL: payload into small[] */
    void *sink_ctx;
    uint32_t sink_verify; /* payload bytes the sink must see; the rest may be discarded */
    /* the last packet received */
    int32_t code;       /* reply: result code */
    uint32_t length;    /* reply: payload length */
    uint16_t attention; /* attention: AFPUserBytes */
    /* send side */
    uint16_t next_id;
    uint8_t tx[DSI_HEADER_LEN + NBDSI_MAX_BLOCK];
    size_t tx_len;
    const uint8_t *tx_data;
    size_t tx_data_len;
    size_t tx_done; /* bytes of tx then tx_data already sent */
    bool failed;
    char err[160];
};

void nbdsi_init(struct nbdsi *c);

/* Frame a request expecting a reply: DSICommand (data NULL), DSIWrite
 * (data offset = blocklen) or DSIOpenSession. max_reply bounds the reply's
 * payload (at most NBDSI_SMALL_CAP unless sink is set). 0, or -1 (err set)
 * when a request is in flight, the block is too large or max_reply does not
 * fit. data must stay valid until the request is sent. */
int nbdsi_send_request(struct nbdsi *c, uint8_t cmd, const void *block, size_t blocklen,
                       const void *data, size_t datalen, uint32_t max_reply, nbdsi_sink_fn sink,
                       void *sink_ctx);
/* Frame a request without reply: DSITickle or DSICloseSession. May be
 * queued while a request is in flight, but only after its bytes went out
 * (nbdsi_tx_pending() == 0); -1 otherwise. */
int nbdsi_send_noreply(struct nbdsi *c, uint8_t cmd);
/* Bytes still to send. */
size_t nbdsi_tx_pending(const struct nbdsi *c);
/* The unsent bytes as up to 2 iovecs; returns the count (0: nothing). */
int nbdsi_tx_iov(const struct nbdsi *c, struct iovec iov[2]);
/* n more bytes went out. */
void nbdsi_tx_advance(struct nbdsi *c, size_t n);

/* A sink-mode reply's payload is being received and its first
 * sink_verify bytes went to the sink: how many of the rest the caller may
 * discard unseen (e.g. recv with MSG_TRUNC, no copy); 0 otherwise. */
uint32_t nbdsi_rx_discardable(const struct nbdsi *c);
/* n (<= nbdsi_rx_discardable) payload bytes were discarded. NBDSI_REPLY
 * when that completed the reply, else NBDSI_MORE (NBDSI_ERROR for a bad n). */
enum nbdsi_event nbdsi_rx_discard(struct nbdsi *c, uint32_t n);
/* Sink mode: only the first `verify` payload bytes need to reach the sink
 * (set after nbdsi_send_request; default: all). */
void nbdsi_set_sink_verify(struct nbdsi *c, uint32_t verify);

/* Consume bytes of in[0..len) up to the end of one packet; *used says how
 * many. Returns the event (NBDSI_MORE when all were used and no packet
 * ended). After NBDSI_REPLY the payload (non-sink) is small[0..length). */
enum nbdsi_event nbdsi_rx(struct nbdsi *c, const uint8_t *in, size_t len, size_t *used);

#endif

/* DSI (Data Stream Interface): the framing AFP uses over TCP.
 *
 * A struct dsi_conn is one TCP connection. Requests get fresh IDs from a
 * per-connection counter that only ever increments (wrapping 65535 -> 0), so
 * netatalk's replay cache can never mistake a new request for an old one.
 * Replies are matched by ID and must be reaped in the order they were issued
 * (netatalk answers strictly in order). While waiting, server tickles are
 * noted, attention packets recorded, a server CloseSession ends the
 * connection, and a client tickle goes out when we have been silent too long.
 *
 * Result convention for dsi_*, net_*, srvinfo_* and the AFP calls: 0 is
 * success; the negative AFPB_E* codes below are local failures; any other
 * non-zero value is the result code the server put in the reply (AFP errors
 * such as -5018, or a positive DSI-level code such as 0xFBD1). */
#ifndef AFPBENCH_DSI_H
#define AFPBENCH_DSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Local failures (never sent by a server: AFP codes are <= -1068). */
#define AFPB_OK 0
#define AFPB_ENET (-1)     /* socket error, connection reset */
#define AFPB_ETIMEOUT (-2) /* a wait ran out: the server went silent */
#define AFPB_EPROTO (-3)   /* malformed or unexpected data from the server */
#define AFPB_ECLOSED (-4)  /* the server closed the connection / DSI session */
#define AFPB_ENOMEM (-5)   /* allocation failed */
#define AFPB_EPARAM (-6)   /* the caller asked for something unencodable */
#define AFPB_EDESYNC (-7)  /* an earlier failure left the stream unusable */

/* True for the local AFPB_E* codes (network/protocol: exit code 5). */
bool afpb_is_local_error(int rc);

#define DSI_HEADER_LEN 16
#define DSI_FLAG_REQUEST 0x00
#define DSI_FLAG_REPLY 0x01

#define DSI_CLOSESESSION 1
#define DSI_COMMAND 2
#define DSI_GETSTATUS 3
#define DSI_OPENSESSION 4
#define DSI_TICKLE 5
#define DSI_WRITE 6
#define DSI_ATTENTION 8

#define DSI_OPT_SERVER_QUANTUM 0x00
#define DSI_OPT_ATTN_QUANTUM 0x01
#define DSI_OPT_REPLAY_CACHE 0x02

/* Attention AFPUserBytes bits. */
#define DSI_ATTN_SHUTDOWN 0x8000
#define DSI_ATTN_CRASH 0x4000
#define DSI_ATTN_MESSAGE 0x2000
#define DSI_ATTN_NORECONNECT 0x1000

#define DSI_DEFAULT_PORT 548
#define DSI_DEFAULT_TIMEOUT_MS 30000
/* Send a tickle when nothing has gone out for this long (netatalk ticks at 30 s). */
#define DSI_TICKLE_IDLE_MS 20000
/* Bytes per read or write request, whatever quantum the server advertises
 * (docs/afpbench.md): at most 1 MiB unless a larger size is asked for (speedtest
 * -q), and never more than 64 MiB, so memory cannot follow the server's word. */
#define DSI_REQUEST_DEFAULT_MAX (1u << 20)
#define DSI_REQUEST_HARD_MAX (64u << 20)
/* The request size for a server quantum: asked (0 = the default bound)
 * clamped to the quantum and DSI_REQUEST_HARD_MAX. */
uint32_t dsi_request_size(uint32_t server_quantum, uint32_t asked);
/* FPWriteExt's parameters before a write's data. */
#define DSI_WRITE_PARAMS 20u
/* The most data one write request may carry for a server quantum: the
 * request (FPWriteExt's parameters and the data) fits in the quantum, which
 * netatalk 4.5 enforces by closing the connection (4.2 let it pass). A
 * quantum too small to leave room is returned as it is. */
uint32_t dsi_write_size(uint32_t server_quantum);
/* Every non-read reply fits in netatalk's 64 KiB reply buffer. */
#define DSI_MAX_CMD_REPLY 65536

struct dsi_header {
    uint8_t flags;
    uint8_t command;
    uint16_t request_id;
    uint32_t code; /* requests: data offset; replies: result (cast to int32_t) */
    uint32_t length;
    uint32_t reserved;
};

/* Wire codecs (pure). */
void dsi_header_encode(const struct dsi_header *h, uint8_t out[DSI_HEADER_LEN]);
/* 0, or AFPB_EPROTO when len < 16. Field values are not judged here. */
int dsi_header_decode(const uint8_t *in, size_t len, struct dsi_header *h);
/* DSIOpenSession request payload carrying the attention quantum option.
 * Returns the payload length (6) or 0 when cap is too small. */
size_t dsi_opensession_encode(uint8_t *out, size_t cap, uint32_t attn_quantum);
/* Parse the reply TLVs. Unknown options are skipped; a truncated option or a
 * quantum of the wrong size is AFPB_EPROTO. Missing options leave the outputs
 * untouched (callers preset defaults). */
int dsi_opensession_decode(const uint8_t *p, size_t len, uint32_t *server_quantum,
                           uint32_t *replay_cache);

/* A reply as handed to the caller. data points either into the caller's
 * buffer or into the connection's receive buffer (valid until the next call on
 * the connection). */
struct dsi_reply {
    int32_t code;
    uint32_t length;
    const uint8_t *data;
};

/* Maximum requests in flight on one connection (pipelining window). */
#define DSI_MAX_OUTSTANDING 64

struct dsi_conn {
    int fd;
    uint16_t next_id;
    uint32_t server_quantum; /* learnt from DSIOpenSession (default 1 MiB) */
    uint32_t replay_cache;
    int timeout_ms;           /* bound on every wait */
    int64_t wait_deadline_ms; /* the current wait's end (deadline.h): fixed when it starts */
    int64_t wait_start_ms;    /* the clock read that began it; 0 once used */
    int slice_ms;             /* the socket's kernel timeout now */
    int64_t clock_ms;         /* the engine's latest clock read (clock_now_ms) */
    unsigned clock_skips;     /* dsi_command: commands left before it reads the clock */
    int64_t last_send_ms;     /* monotonic; drives client tickles */
    uint8_t *rx;              /* preallocated receive buffer */
    size_t rx_cap, rx_start, rx_end;
    bool rx_exact;        /* receive no further than the bytes asked for (dsi.c) */
    unsigned outstanding; /* requests sent, replies not yet reaped */
    /* IDs and DSI commands of those requests, oldest first (a ring). */
    uint16_t pending[DSI_MAX_OUTSTANDING];
    uint8_t pending_cmd[DSI_MAX_OUTSTANDING];
    unsigned pending_head;
    uint64_t commands;   /* DSICommand + DSIWrite requests sent (AFP ops) */
    uint16_t attention;  /* last AFPUserBytes received, 0 if none */
    unsigned attentions; /* attention packets received */
    unsigned server_tickles;
    /* Told of each AFP request (its command code, and the requests then in
     * flight) right before it goes out; NULL: nobody (attribution.h). */
    void (*observe)(void *ctx, uint8_t afp_command, unsigned outstanding);
    void *observe_ctx;
    bool broken;        /* stream unusable after a failure */
    bool server_closed; /* server sent DSICloseSession or EOF */
    char err[200];      /* detail of the last failure */
};

/* Allocate the receive buffer; fd = -1. 0 or AFPB_ENOMEM. */
int dsi_init(struct dsi_conn *c, int timeout_ms);
/* Close the socket (without DSICloseSession) and free the buffer. */
void dsi_free(struct dsi_conn *c);
int dsi_connect(struct dsi_conn *c, const char *host, uint16_t port);
/* DSIOpenSession; sets server_quantum. */
int dsi_open_session(struct dsi_conn *c, uint32_t attn_quantum);

/* Send one request: DSICommand when cmd == DSI_COMMAND (data must be NULL),
 * DSIWrite when cmd == DSI_WRITE (afp block then data; data offset = afplen).
 * One writev. The ID used is stored in *reqid when reqid is not NULL. */
int dsi_send(struct dsi_conn *c, uint8_t cmd, const void *afp, size_t afplen, const void *data,
             size_t datalen, uint16_t *reqid);
/* Reap the reply to reqid, which must be the oldest outstanding request.
 * dst == NULL: payload (<= 64 KiB) stays in the receive buffer.
 * dst != NULL: payload is copied/received into dst; more than cap bytes is
 * AFPB_EPROTO. Returns 0 when a reply arrived (its result is r->code) or an
 * AFPB_E* code. */
int dsi_recv_reply(struct dsi_conn *c, uint16_t reqid, void *dst, size_t cap, struct dsi_reply *r);
/* Reap the replies of every outstanding request, their payloads discarded
 * (after a transfer that failed with requests still in flight: the stream
 * is usable again afterwards). 0 or an AFPB_E* code. */
int dsi_drain(struct dsi_conn *c);
/* dsi_send + dsi_recv_reply. */
int dsi_transact(struct dsi_conn *c, uint8_t cmd, const void *afp, size_t afplen, const void *data,
                 size_t datalen, void *dst, size_t cap, struct dsi_reply *r);
/* One DSICommand round trip with nothing else in flight, the reply's
 * payload left in the receive buffer (as dsi_recv_reply with dst NULL).
 * packet holds DSI_HEADER_LEN bytes of room, then the AFP block of afplen
 * bytes: the header is written in place and the whole goes out in one send.
 * The same checks and errors as dsi_transact, in fewer steps: every AFP call
 * of a test loop comes this way. */
int dsi_command(struct dsi_conn *c, uint8_t *packet, size_t afplen, struct dsi_reply *r);
/* Send a tickle now. */
int dsi_tickle(struct dsi_conn *c);
/* Send a tickle if nothing was sent for DSI_TICKLE_IDLE_MS. */
int dsi_keepalive(struct dsi_conn *c);
/* DSICloseSession, wait briefly for the server's own close, close the socket. */
void dsi_close(struct dsi_conn *c);

#endif

/* One AFP session over one DSI connection, and one call per AFP command.
 * See the API comment at the top of afp.h. */
#ifndef AFPBENCH_SESSION_H
#define AFPBENCH_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "afp.h"

struct afp_session;

/* ---- Lifecycle ---- */

/* Allocate a session and its buffers; NULL when out of memory. */
struct afp_session *afp_session_new(void);
/* Per-wait timeout (default DSI_DEFAULT_TIMEOUT_MS); applies to later waits. */
void afp_session_set_timeout(struct afp_session *s, int timeout_ms);
/* TCP connect (timeout) + DSIOpenSession; learns the server quantum. */
int afp_session_connect(struct afp_session *s, const char *host, uint16_t port);
/* FPLogin with "Cleartxt Passwrd". afp_version e.g. "AFP3.4" (NULL = default).
 * Passwords longer than 8 bytes are AFPB_EPARAM (the UAM would truncate
 * them silently). On failure netatalk drops the connection: reconnect first. */
int afp_session_login(struct afp_session *s, const char *afp_version, const char *user,
                      const char *pass);
/* FPLogout (if logged in), DSICloseSession, close the socket; best effort. */
void afp_session_close(struct afp_session *s);
/* afp_session_close, then free. NULL is fine. */
void afp_session_free(struct afp_session *s);

/* ---- Introspection ---- */

const char *afp_session_error(const struct afp_session *s); /* last failure detail or "" */
int afp_session_fd(const struct afp_session *s);            /* -1 when not connected */
uint32_t afp_session_quantum(const struct afp_session *s);
/* Bytes per read/write request: the quantum, bounded by DSI_REQUEST_DEFAULT_MAX
 * whatever the server advertises (dsi_request_size). */
uint32_t afp_session_request_size(const struct afp_session *s);
/* Bytes per write request: afp_session_request_size, less what would take a
 * request past the quantum (dsi_write_size). */
uint32_t afp_session_write_size(const struct afp_session *s);
const char *afp_session_version(const struct afp_session *s); /* logged-in AFP version */
/* Does the logged-in AFP version have 64-bit fork offsets (FPReadExt,
 * FPWriteExt, the extended length bitmaps)? AFP 3.0 and later do; AFP 2.x
 * has only FPRead/FPWrite, whose 32-bit offsets end at 4 GiB. */
bool afp_session_offsets64(const struct afp_session *s);
/* AFP commands issued (DSICommand + DSIWrite) since connect. */
uint64_t afp_session_ops(const struct afp_session *s);
/* Send a DSITickle if nothing was sent for a while (call during long idle
 * stretches, e.g. between tests); every wait does this by itself too. */
int afp_session_keepalive(struct afp_session *s);

/* Tell fn of every AFP request right before it goes out: its command code
 * and the requests then in flight (per-command attribution, attribution.h).
 * fn NULL: nobody. Sending goes the general way while one is set. */
void afp_session_observe(struct afp_session *s,
                         void (*fn)(void *ctx, uint8_t afp_command, unsigned outstanding),
                         void *ctx);

/* ---- Volumes ---- */

/* bitmap gets AFP_VOL_VID added; vp->volid is the volume ID. vp may not be NULL. */
int afp_openvol(struct afp_session *s, const char *volname, uint16_t bitmap,
                struct afp_volparms *vp);
int afp_getvolparms(struct afp_session *s, uint16_t vol, uint16_t bitmap, struct afp_volparms *vp);

/* ---- Files and directories: (vol, parent did, one name component; "" or
 * NULL = the directory did itself). Output structs may be NULL. ---- */

int afp_getfiledirparms(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                        uint16_t fbitmap, uint16_t dbitmap, struct afp_params *out);
int afp_createdir(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                  uint32_t *new_did);
int afp_createfile(struct afp_session *s, uint16_t vol, uint32_t did, const char *name, bool hard);
int afp_delete(struct afp_session *s, uint16_t vol, uint32_t did, const char *name);
/* FPSpotlightRPC (afp_enc_spotlight): *reply and *reply_len get the
 * reply's payload, valid until the next call on s. A server with Spotlight
 * off answers AFPERR_NOOP. */
int afp_spotlight(struct afp_session *s, uint16_t vol, uint32_t subcmd, const uint8_t *rpc,
                  size_t len, const uint8_t **reply, size_t *reply_len);
/* FPEnumerate (16-bit start/maxreply) and FPEnumerateExt2. start is 1-based;
 * the end of the directory is AFPERR_NOOBJ. *count (may be NULL) gets the
 * entries returned; cb (may be NULL) sees each one. */
int afp_enumerate(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                  uint16_t fbitmap, uint16_t dbitmap, uint16_t reqcount, uint16_t start,
                  uint16_t maxreply, afp_enum_cb cb, void *ctx, unsigned *count);
int afp_enumerate_ext2(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                       uint16_t fbitmap, uint16_t dbitmap, uint16_t reqcount, uint32_t start,
                       uint32_t maxreply, afp_enum_cb cb, void *ctx, unsigned *count);
/* Server-side copy of did/src_name to dst_did/new_name. */
int afp_copyfile(struct afp_session *s, uint16_t src_vol, uint32_t src_did, const char *src_name,
                 uint16_t dst_vol, uint32_t dst_did, const char *new_name);

/* ---- Forks ---- */

/* forksel AFP_FORK_DATA or AFP_FORK_RSRC; access AFP_OPEN_* bits. */
int afp_openfork(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                 uint8_t forksel, uint16_t bitmap, uint16_t access, afp_fork_t *fork,
                 struct afp_params *out);
int afp_closefork(struct afp_session *s, afp_fork_t fork);
/* Clean-up after a failure: reap (and discard) the replies of requests
 * still in flight, then close every fork opened through this session and
 * not closed yet (the last SESSION_TRACKED_FORKS opened are tracked; the
 * suites hold at most two open). netatalk will not delete a file whose
 * fork is open. 0 or the first failure. */
#define SESSION_TRACKED_FORKS 16
int afp_session_close_forks(struct afp_session *s);
int afp_flushfork(struct afp_session *s, afp_fork_t fork);
int afp_getforkparms(struct afp_session *s, afp_fork_t fork, uint16_t bitmap,
                     struct afp_params *out);
/* bitmap: one of AFP_FILE_DFLEN, _EXTDFLEN, _RFLEN, _EXTRFLEN. */
int afp_setforkparms(struct afp_session *s, afp_fork_t fork, uint16_t bitmap, uint64_t length);
/* flags: AFP_LOCK_UNLOCK, AFP_LOCK_FROM_END. *start (may be NULL) = range start. */
int afp_byterangelock(struct afp_session *s, afp_fork_t fork, uint8_t flags, int32_t offset,
                      int32_t length, uint32_t *start);
int afp_byterangelock_ext(struct afp_session *s, afp_fork_t fork, uint8_t flags, int64_t offset,
                          int64_t length, uint64_t *start);

/* Reads land straight in buf (no copy through an internal buffer). A read
 * reaching end of file returns AFPERR_EOF with *got = the bytes that were
 * there: a short read, not a failure when *got > 0. FPReadExt and FPWriteExt
 * (64-bit offsets) are pipelined only: afp_readext_send/_recv and
 * afp_writeext_send/_recv below. */
int afp_read(struct afp_session *s, afp_fork_t fork, uint32_t offset, uint32_t count, void *buf,
             size_t *got);
/* Writes go out as one DSIWrite (header + data in one writev). *next (may be
 * NULL) = the server's "last written + 1". count must not exceed the quantum. */
int afp_write(struct afp_session *s, afp_fork_t fork, uint32_t offset, const void *data,
              uint32_t count, uint32_t *next);

/* ---- Pipelining ----
 * Issue requests with *_send (each returns its request ID), reap the replies
 * with *_recv in the order issued; at most DSI_MAX_OUTSTANDING in flight.
 * The data of a write is sent before *_send returns, so its buffer can be
 * reused at once. Bulk transfers built on these (and the choice between
 * the AFP 2.x and 3.x calls): xfer.h. */
int afp_read_send(struct afp_session *s, afp_fork_t fork, uint32_t offset, uint32_t count,
                  uint16_t *reqid);
int afp_read_recv(struct afp_session *s, uint16_t reqid, void *buf, size_t cap, size_t *got);
/* *next: FPWrite's 32-bit "last written + 1". */
int afp_write_send(struct afp_session *s, afp_fork_t fork, uint32_t offset, const void *data,
                   uint32_t count, uint16_t *reqid);
int afp_write_recv(struct afp_session *s, uint16_t reqid, uint32_t *next);
int afp_readext_send(struct afp_session *s, afp_fork_t fork, uint64_t offset, uint64_t count,
                     uint16_t *reqid);
int afp_readext_recv(struct afp_session *s, uint16_t reqid, void *buf, size_t cap, size_t *got);
int afp_writeext_send(struct afp_session *s, afp_fork_t fork, uint64_t offset, const void *data,
                      uint64_t count, uint16_t *reqid);
int afp_writeext_recv(struct afp_session *s, uint16_t reqid, uint64_t *next);
/* Requests issued and not yet reaped. */
unsigned afp_session_outstanding(const struct afp_session *s);

/* ---- Logout ---- */

/* FPLogout; the session stays connected until afp_session_close/free. */
int afp_logout(struct afp_session *s);

#endif

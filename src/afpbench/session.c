/* One AFP session and one call per AFP command (see session.h). */
#include "session.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deadline.h"
#include "net.h"

#define REQ_CAP 1024 /* largest request block: two paths of 255 bytes + heads */
#define REQ(s) ((s)->packet + DSI_HEADER_LEN)
#define ATTN_QUANTUM 1024 /* what we accept in attention packets */

struct afp_session {
    struct dsi_conn dsi;
    bool connected;
    bool logged_in;
    bool utf8;      /* AFP >= 3.0: UTF-8 (type 3) path names */
    bool offsets64; /* AFP >= 3.0: FPReadExt/FPWriteExt, 64-bit fork offsets */
    /* Forks opened and not yet closed, so that clean-up after a failure can
     * close them: netatalk will not delete a file that has an open fork. */
    afp_fork_t open_forks[SESSION_TRACKED_FORKS];
    unsigned nopen_forks;
    char version[16];
    /* Room for the DSI header, then the request block reused by every
     * call: dsi_command frames it in place and sends it in one piece. */
    uint8_t packet[DSI_HEADER_LEN + REQ_CAP];
    uint8_t *enum_copy; /* enumerate replies, kept stable across callbacks */
    char err[320];
    /* A call the server refused, described only when asked (see
     * call_failed): the command, its result and the object's name. */
    bool err_lazy;
    int err_rc;
    const char *err_what; /* a string literal */
    char err_name[256];
};

/* ---- Errors ---- */

static int set_err(struct afp_session *s, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_err(struct afp_session *s, int rc, const char *fmt, ...)
{
    s->err_lazy = false;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    return rc;
}

/* The text of a failure call_failed recorded without formatting it. */
static void err_materialize(struct afp_session *s)
{
    if (!s->err_lazy)
        return;
    if (s->err_name[0])
        set_err(s, s->err_rc, "%s '%s': %s", s->err_what, s->err_name, afp_strerror(s->err_rc));
    else
        set_err(s, s->err_rc, "%s: %s", s->err_what, afp_strerror(s->err_rc));
}

/* Describe a failed call: the command, its object and the cause. A result
 * code from the server is only recorded (what is a string literal, the name
 * is copied) and formatted when afp_session_error asks: the tests' loops
 * expect some refusals (a probe's ObjectNotFound), and those must cost no
 * formatting. A local failure is described at once, from the DSI layer's
 * detail, which a later failure would overwrite. */
static int call_failed(struct afp_session *s, int rc, const char *what, const char *name)
{
    if (afpb_is_local_error(rc) && s->dsi.err[0]) {
        if (name && *name)
            return set_err(s, rc, "%s '%s': %s", what, name, s->dsi.err);
        return set_err(s, rc, "%s: %s", what, s->dsi.err);
    }
    size_t n = name ? strnlen(name, sizeof s->err_name - 1) : 0;
    memcpy(s->err_name, name ? name : "", n);
    s->err_name[n] = '\0';
    s->err_rc = rc;
    s->err_what = what;
    s->err_lazy = true;
    return rc;
}

/* ---- Lifecycle ---- */

struct afp_session *afp_session_new(void)
{
    struct afp_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->enum_copy = malloc(DSI_MAX_CMD_REPLY);
    if (!s->enum_copy || dsi_init(&s->dsi, deadline_request_ms())) {
        free(s->enum_copy);
        free(s);
        return NULL;
    }
    s->utf8 = true;
    s->offsets64 = true;
    return s;
}

void afp_session_set_timeout(struct afp_session *s, int timeout_ms)
{
    if (timeout_ms > 0)
        s->dsi.timeout_ms = timeout_ms;
}

int afp_session_connect(struct afp_session *s, const char *host, uint16_t port)
{
    if (s->connected)
        return set_err(s, AFPB_EPARAM, "already connected");
    s->err[0] = '\0';
    s->err_lazy = false;
    int rc = dsi_connect(&s->dsi, host, port);
    if (rc)
        return set_err(s, rc, "%s", s->dsi.err);
    s->connected = true;
    rc = dsi_open_session(&s->dsi, ATTN_QUANTUM);
    if (rc) {
        set_err(s, rc, "DSIOpenSession with %s:%u: %s", host, port,
                afpb_is_local_error(rc) ? s->dsi.err : afp_strerror(rc));
        dsi_close(&s->dsi);
        s->connected = false;
        return rc;
    }
    return 0;
}

/* Versions we can speak, as FPLogin spells them (AFP 2.1's string is
 * "AFPVersion 2.1"). *afp3: 3.x, with UTF-8 names and 64-bit fork offsets;
 * 2.x sessions use long names and FPRead/FPWrite. */
static bool version_known(const char *v, bool *afp3)
{
    static const char *const two[] = {"AFPVersion 2.1", "AFP2.2"};
    static const char *const three[] = {"AFPX03", "AFP3.1", "AFP3.2", "AFP3.3", "AFP3.4"};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (strcmp(v, two[i]) == 0) {
            *afp3 = false;
            return true;
        }
    for (size_t i = 0; i < sizeof three / sizeof three[0]; i++)
        if (strcmp(v, three[i]) == 0) {
            *afp3 = true;
            return true;
        }
    return false;
}

int afp_session_login(struct afp_session *s, const char *afp_version, const char *user,
                      const char *pass)
{
    const char *v = afp_version ? afp_version : AFP_DEFAULT_VERSION;
    bool afp3;
    if (!version_known(v, &afp3))
        return set_err(s, AFPB_EPARAM, "unknown AFP version '%s'", v);
    if (!user || !*user || strlen(user) > 255)
        return set_err(s, AFPB_EPARAM, "user name must be 1-255 bytes");
    if (pass && strlen(pass) > AFP_CLEARTEXT_PASSLEN)
        return set_err(s, AFPB_EPARAM,
                       "password longer than %d characters: the cleartext UAM cannot send it",
                       AFP_CLEARTEXT_PASSLEN);
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_login_cleartext(&w, v, user, pass);
    struct dsi_reply r;
    int rc = dsi_transact(&s->dsi, DSI_COMMAND, REQ(s), w.len, NULL, 0, NULL, 0, &r);
    /* Clear the password from our buffer at once. */
    memset(REQ(s), 0, w.len);
    if (rc)
        return call_failed(s, rc, "FPLogin", user);
    if (r.code) {
        /* netatalk ends the connection after a failed login. */
        set_err(s, r.code, "FPLogin as '%s' with %s/%s: %s", user, v, AFP_UAM_CLEARTEXT,
                afp_strerror(r.code));
        s->dsi.server_closed = true;
        return r.code;
    }
    s->logged_in = true;
    s->utf8 = afp3;
    s->offsets64 = afp3;
    snprintf(s->version, sizeof s->version, "%s", v);
    return 0;
}

int afp_logout(struct afp_session *s)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_logout(&w);
    struct dsi_reply r;
    int rc = dsi_transact(&s->dsi, DSI_COMMAND, REQ(s), w.len, NULL, 0, NULL, 0, &r);
    if (rc)
        return call_failed(s, rc, "FPLogout", NULL);
    s->logged_in = false;
    if (r.code)
        return call_failed(s, r.code, "FPLogout", NULL);
    return 0;
}

void afp_session_close(struct afp_session *s)
{
    if (!s || !s->connected)
        return;
    if (s->logged_in && !s->dsi.broken && !s->dsi.server_closed) {
        char keep[sizeof s->err];
        err_materialize(s);
        memcpy(keep, s->err, sizeof keep); /* keep the detail of the real failure */
        (void)afp_logout(s);
        memcpy(s->err, keep, sizeof keep);
        s->err_lazy = false;
    }
    dsi_close(&s->dsi);
    s->connected = false;
    s->logged_in = false;
    s->nopen_forks = 0;
}

void afp_session_free(struct afp_session *s)
{
    if (!s)
        return;
    afp_session_close(s);
    dsi_free(&s->dsi);
    free(s->enum_copy);
    free(s);
}

/* ---- Introspection ---- */

const char *afp_session_error(const struct afp_session *s)
{
    /* The session is never a const object: only its text is made here. */
    struct afp_session *m = (struct afp_session *)(uintptr_t)s;
    err_materialize(m);
    return m->err;
}

int afp_session_fd(const struct afp_session *s)
{
    return s->connected ? s->dsi.fd : -1;
}

uint32_t afp_session_quantum(const struct afp_session *s)
{
    return s->dsi.server_quantum;
}

uint32_t afp_session_request_size(const struct afp_session *s)
{
    return dsi_request_size(s->dsi.server_quantum, 0);
}

uint32_t afp_session_write_size(const struct afp_session *s)
{
    uint32_t req = afp_session_request_size(s), fits = dsi_write_size(s->dsi.server_quantum);
    return req < fits ? req : fits;
}

const char *afp_session_version(const struct afp_session *s)
{
    return s->version;
}

bool afp_session_offsets64(const struct afp_session *s)
{
    return s->offsets64;
}

uint64_t afp_session_ops(const struct afp_session *s)
{
    return s->dsi.commands;
}

int afp_session_keepalive(struct afp_session *s)
{
    int rc = dsi_keepalive(&s->dsi);
    return rc ? call_failed(s, rc, "DSITickle", NULL) : 0;
}

void afp_session_observe(struct afp_session *s,
                         void (*fn)(void *ctx, uint8_t afp_command, unsigned outstanding),
                         void *ctx)
{
    s->dsi.observe = fn;
    s->dsi.observe_ctx = ctx;
}

unsigned afp_session_outstanding(const struct afp_session *s)
{
    return s->dsi.outstanding;
}

/* ---- Plain commands ---- */

/* Send the block in w (always built at REQ(s), behind the header room) as
 * a DSICommand and wait for its reply (payload in the receive buffer).
 * Non-zero results are described in s->err. */
static inline int command(struct afp_session *s, const struct bw *w, struct dsi_reply *r,
                          const char *what, const char *name)
{
    if (!bw_ok(w))
        return set_err(s, AFPB_EPARAM, "%s '%s': request does not fit (name too long?)", what,
                       name ? name : "");
    int rc = dsi_command(&s->dsi, s->packet, w->len, r);
    if (rc)
        return call_failed(s, rc, what, name);
    if (r->code)
        return call_failed(s, r->code, what, name);
    return 0;
}

/* A reply that is too short for what the command promises. */
static int short_reply(struct afp_session *s, const char *what, uint32_t got, unsigned want)
{
    return set_err(s, AFPB_EPROTO, "%s: reply of %u bytes, expected %u", what, got, want);
}

/* The file offset that FPByteRangeLock(Ext) and FPWrite(Ext) replies carry:
 * 4 bytes for the 32-bit calls, 8 for the Ext ones. offset may be NULL. */
static int reply_offset(struct afp_session *s, const struct dsi_reply *r, const char *what,
                        unsigned width, uint64_t *offset)
{
    if (r->length < width)
        return short_reply(s, what, r->length, width);
    if (offset)
        *offset = width == 4 ? be32_load(r->data) : be64_load(r->data);
    return 0;
}

int afp_openvol(struct afp_session *s, const char *volname, uint16_t bitmap,
                struct afp_volparms *vp)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_openvol(&w, bitmap | AFP_VOL_VID, volname);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPOpenVol", volname);
    if (rc)
        return rc;
    if (afp_dec_volparms(r.data, r.length, vp) || !(vp->bitmap & AFP_VOL_VID))
        return set_err(s, AFPB_EPROTO, "FPOpenVol '%s': malformed reply", volname);
    return 0;
}

int afp_getvolparms(struct afp_session *s, uint16_t vol, uint16_t bitmap, struct afp_volparms *vp)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_getvolparms(&w, vol, bitmap);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPGetVolParms", NULL);
    if (rc || !vp)
        return rc;
    if (afp_dec_volparms(r.data, r.length, vp))
        return set_err(s, AFPB_EPROTO, "FPGetVolParms: malformed reply");
    return 0;
}

int afp_getfiledirparms(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                        uint16_t fbitmap, uint16_t dbitmap, struct afp_params *out)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_getfiledirparms(&w, vol, did, fbitmap, dbitmap, name, s->utf8);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPGetFileDirParms", name);
    if (rc || !out)
        return rc;
    if (afp_dec_filedirparms(r.data, r.length, out))
        return set_err(s, AFPB_EPROTO, "FPGetFileDirParms '%s': malformed reply", name ? name : "");
    return 0;
}

int afp_createdir(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                  uint32_t *new_did)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_createdir(&w, vol, did, name, s->utf8);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPCreateDir", name);
    if (rc)
        return rc;
    if (r.length < 4)
        return short_reply(s, "FPCreateDir", r.length, 4);
    if (new_did)
        *new_did = be32_load(r.data);
    return 0;
}

int afp_createfile(struct afp_session *s, uint16_t vol, uint32_t did, const char *name, bool hard)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_createfile(&w, hard, vol, did, name, s->utf8);
    struct dsi_reply r;
    return command(s, &w, &r, "FPCreateFile", name);
}

int afp_delete(struct afp_session *s, uint16_t vol, uint32_t did, const char *name)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_delete(&w, vol, did, name, s->utf8);
    struct dsi_reply r;
    return command(s, &w, &r, "FPDelete", name);
}

int afp_spotlight(struct afp_session *s, uint16_t vol, uint32_t subcmd, const uint8_t *rpc,
                  size_t len, const uint8_t **reply, size_t *reply_len)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_spotlight(&w, vol, subcmd, rpc, len);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPSpotlightRPC", NULL);
    if (rc)
        return rc;
    *reply = r.data;
    *reply_len = r.length;
    return 0;
}

/* Decode an enumerate reply from a private copy, so callbacks may issue
 * further AFP calls (which reuse the receive buffer). */
static int enumerate_reply(struct afp_session *s, const struct dsi_reply *r, bool ext2,
                           afp_enum_cb cb, void *ctx, unsigned *count, const char *what)
{
    unsigned n = 0;
    memcpy(s->enum_copy, r->data, r->length); /* length <= DSI_MAX_CMD_REPLY */
    int rc = afp_dec_enumerate(s->enum_copy, r->length, ext2, cb, ctx, &n);
    if (count)
        *count = n;
    if (rc)
        return set_err(s, rc, "%s: malformed reply (entry %u)", what, n + 1);
    return 0;
}

int afp_enumerate(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                  uint16_t fbitmap, uint16_t dbitmap, uint16_t reqcount, uint16_t start,
                  uint16_t maxreply, afp_enum_cb cb, void *ctx, unsigned *count)
{
    if (count)
        *count = 0;
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_enumerate(&w, vol, did, fbitmap, dbitmap, reqcount, start, maxreply, name, s->utf8);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPEnumerate", name);
    if (rc)
        return rc;
    return enumerate_reply(s, &r, false, cb, ctx, count, "FPEnumerate");
}

int afp_enumerate_ext2(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                       uint16_t fbitmap, uint16_t dbitmap, uint16_t reqcount, uint32_t start,
                       uint32_t maxreply, afp_enum_cb cb, void *ctx, unsigned *count)
{
    if (count)
        *count = 0;
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_enumerate_ext2(&w, vol, did, fbitmap, dbitmap, reqcount, start, maxreply, name,
                           s->utf8);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPEnumerateExt2", name);
    if (rc)
        return rc;
    return enumerate_reply(s, &r, true, cb, ctx, count, "FPEnumerateExt2");
}

int afp_copyfile(struct afp_session *s, uint16_t src_vol, uint32_t src_did, const char *src_name,
                 uint16_t dst_vol, uint32_t dst_did, const char *new_name)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_copyfile(&w, src_vol, src_did, dst_vol, dst_did, src_name, new_name, s->utf8);
    struct dsi_reply r;
    return command(s, &w, &r, "FPCopyFile", src_name);
}

/* ---- Forks ---- */

int afp_openfork(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                 uint8_t forksel, uint16_t bitmap, uint16_t access, afp_fork_t *fork,
                 struct afp_params *out)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_openfork(&w, forksel, vol, did, bitmap, access, name, s->utf8);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPOpenFork", name);
    if (rc)
        return rc;
    if (afp_dec_openfork(r.data, r.length, fork, out))
        return set_err(s, AFPB_EPROTO, "FPOpenFork '%s': malformed reply", name ? name : "");
    if (s->nopen_forks < SESSION_TRACKED_FORKS)
        s->open_forks[s->nopen_forks++] = *fork;
    return 0;
}

/* Forget a fork the server no longer holds open. */
static void forget_fork(struct afp_session *s, afp_fork_t fork)
{
    for (unsigned i = 0; i < s->nopen_forks; i++)
        if (memcmp(s->open_forks[i].b, fork.b, sizeof fork.b) == 0) {
            s->open_forks[i] = s->open_forks[--s->nopen_forks];
            return;
        }
}

int afp_closefork(struct afp_session *s, afp_fork_t fork)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_closefork(&w, fork);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPCloseFork", NULL);
    /* Any answer from the server ends the fork; a lost connection too. */
    forget_fork(s, fork);
    return rc;
}

int afp_session_close_forks(struct afp_session *s)
{
    int first = 0;
    /* Requests still in flight (a transfer that failed midway) come first:
     * their replies arrive before any new request's. */
    int rc = dsi_drain(&s->dsi);
    if (rc)
        return call_failed(s, rc, "reaping the replies still in flight", NULL);
    while (s->nopen_forks > 0) {
        rc = afp_closefork(s, s->open_forks[s->nopen_forks - 1]);
        if (rc != 0 && first == 0)
            first = rc;
        if (afpb_is_local_error(rc))
            return rc;
    }
    return first;
}

int afp_flushfork(struct afp_session *s, afp_fork_t fork)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_flushfork(&w, fork);
    struct dsi_reply r;
    return command(s, &w, &r, "FPFlushFork", NULL);
}

int afp_getforkparms(struct afp_session *s, afp_fork_t fork, uint16_t bitmap,
                     struct afp_params *out)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_getforkparms(&w, fork, bitmap);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPGetForkParms", NULL);
    if (rc || !out)
        return rc;
    if (afp_dec_forkparms(r.data, r.length, out))
        return set_err(s, AFPB_EPROTO, "FPGetForkParms: malformed reply");
    return 0;
}

int afp_setforkparms(struct afp_session *s, afp_fork_t fork, uint16_t bitmap, uint64_t length)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_setforkparms(&w, fork, bitmap, length);
    struct dsi_reply r;
    return command(s, &w, &r, "FPSetForkParms", NULL);
}

int afp_byterangelock(struct afp_session *s, afp_fork_t fork, uint8_t flags, int32_t offset,
                      int32_t length, uint32_t *start)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_byterangelock(&w, flags, fork, offset, length);
    struct dsi_reply r;
    uint64_t first = 0;
    int rc = command(s, &w, &r, "FPByteRangeLock", NULL);
    if (rc == 0)
        rc = reply_offset(s, &r, "FPByteRangeLock", 4, &first);
    if (rc == 0 && start)
        *start = (uint32_t)first;
    return rc;
}

int afp_byterangelock_ext(struct afp_session *s, afp_fork_t fork, uint8_t flags, int64_t offset,
                          int64_t length, uint64_t *start)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_byterangelock_ext(&w, flags, fork, offset, length);
    struct dsi_reply r;
    int rc = command(s, &w, &r, "FPByteRangeLockExt", NULL);
    if (rc == 0)
        rc = reply_offset(s, &r, "FPByteRangeLockExt", 8, start);
    return rc;
}

/* ---- Reads and writes ---- */

/* Reap a read reply into buf; *got (got may be NULL) the bytes it holds.
 * AFPERR_EOF with data is a short read. */
static int reap_read(struct afp_session *s, uint16_t id, void *buf, size_t cap, size_t *got,
                     const char *what)
{
    struct dsi_reply r;
    int rc = dsi_recv_reply(&s->dsi, id, buf, cap, &r);
    if (got)
        *got = rc ? 0 : r.length;
    if (rc)
        return call_failed(s, rc, what, NULL);
    if (r.code)
        return call_failed(s, r.code, what, NULL);
    return 0;
}

/* Send a read request encoded in the session's request block. */
static int send_read_request(struct afp_session *s, const struct bw *w, uint16_t *reqid,
                             const char *what)
{
    int rc = dsi_send(&s->dsi, DSI_COMMAND, REQ(s), w->len, NULL, 0, reqid);
    return rc ? call_failed(s, rc, what, NULL) : 0;
}

int afp_readext_send(struct afp_session *s, afp_fork_t fork, uint64_t offset, uint64_t count,
                     uint16_t *reqid)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_readext(&w, fork, offset, count);
    return send_read_request(s, &w, reqid, "FPReadExt");
}

int afp_readext_recv(struct afp_session *s, uint16_t reqid, void *buf, size_t cap, size_t *got)
{
    return reap_read(s, reqid, buf, cap, got, "FPReadExt");
}

int afp_read_send(struct afp_session *s, afp_fork_t fork, uint32_t offset, uint32_t count,
                  uint16_t *reqid)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_read(&w, fork, offset, count);
    return send_read_request(s, &w, reqid, "FPRead");
}

int afp_read_recv(struct afp_session *s, uint16_t reqid, void *buf, size_t cap, size_t *got)
{
    return reap_read(s, reqid, buf, cap, got, "FPRead");
}

int afp_read(struct afp_session *s, afp_fork_t fork, uint32_t offset, uint32_t count, void *buf,
             size_t *got)
{
    uint16_t id;
    int rc = afp_read_send(s, fork, offset, count, &id);
    if (rc)
        return rc;
    return afp_read_recv(s, id, buf, count, got);
}

/* Send a write block + data as one DSIWrite. */
static int send_write(struct afp_session *s, const struct bw *w, const void *data, uint64_t count,
                      uint16_t *reqid, const char *what)
{
    if (count > s->dsi.server_quantum)
        return set_err(s, AFPB_EPARAM, "%s: %llu bytes exceed the server quantum %u", what,
                       (unsigned long long)count, s->dsi.server_quantum);
    int rc = dsi_send(&s->dsi, DSI_WRITE, w->p, w->len, data, (size_t)count, reqid);
    return rc ? call_failed(s, rc, what, NULL) : 0;
}

int afp_writeext_send(struct afp_session *s, afp_fork_t fork, uint64_t offset, const void *data,
                      uint64_t count, uint16_t *reqid)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_writeext(&w, 0, fork, offset, count);
    return send_write(s, &w, data, count, reqid, "FPWriteExt");
}

/* Reap a write reply: the offset just past the data written. */
static int reap_write(struct afp_session *s, uint16_t id, const char *what, unsigned width,
                      uint64_t *next)
{
    struct dsi_reply r;
    int rc = dsi_recv_reply(&s->dsi, id, NULL, 0, &r);
    if (rc)
        return call_failed(s, rc, what, NULL);
    if (r.code)
        return call_failed(s, r.code, what, NULL);
    return reply_offset(s, &r, what, width, next);
}

int afp_writeext_recv(struct afp_session *s, uint16_t reqid, uint64_t *next)
{
    return reap_write(s, reqid, "FPWriteExt", 8, next);
}

int afp_write_send(struct afp_session *s, afp_fork_t fork, uint32_t offset, const void *data,
                   uint32_t count, uint16_t *reqid)
{
    struct bw w;
    bw_init(&w, REQ(s), REQ_CAP);
    afp_enc_write(&w, 0, fork, offset, count);
    return send_write(s, &w, data, count, reqid, "FPWrite");
}

int afp_write_recv(struct afp_session *s, uint16_t reqid, uint32_t *next)
{
    uint64_t end = 0;
    int rc = reap_write(s, reqid, "FPWrite", 4, &end);
    if (rc == 0 && next)
        *next = (uint32_t)end;
    return rc;
}

int afp_write(struct afp_session *s, afp_fork_t fork, uint32_t offset, const void *data,
              uint32_t count, uint32_t *next)
{
    uint16_t id;
    int rc = afp_write_send(s, fork, offset, data, count, &id);
    if (rc)
        return rc;
    return afp_write_recv(s, id, next);
}

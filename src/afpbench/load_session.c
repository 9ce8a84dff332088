/* One session of the load engine: login, the requests of the mix over the
 * wire, the replies (see load_session.h; what the mix is made of and how a
 * finished request counts: load_mix.c). */
#include "load_session.h"

#include <errno.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "afp.h"
#include "buf.h"
#include "clock.h"
#include "deadline.h"
#include "dsi.h"
#include "nbdsi.h"
#include "pattern.h"

/* Bytes of each read reply checked against the pattern (unless verify_all):
 * the first block, whose stamp names the file and the offset. */
#define LOAD_VERIFY_BYTES PATTERN_BLOCK
#define LOGOUT_WAIT_US 2000000u
#define ABORT_GRACE_US 2000000u
#define ENUM_REQCOUNT 64
#define ENUM_MAXREPLY 8192
#define ENUM_MAX_CALLS 1000
#define STAT_FBITMAP                                                                               \
    (AFP_FILE_ATTR | AFP_FILE_PDID | AFP_FILE_MDATE | AFP_FILE_FNUM | AFP_FILE_EXTDFLEN)
#define TICKLE_IDLE_US ((uint64_t)DSI_TICKLE_IDLE_MS * 1000)

enum sess_st {
    ST_CONNECT,
    ST_OPENSESS,
    ST_LOGIN,
    ST_OPENVOL,
    ST_READY,
    ST_IDLE,
    ST_BUSY,
    ST_LOGOUT,
    ST_DONE
};

struct load_session {
    struct nbdsi d;
    struct load_loop *loop;
    unsigned idx;
    int fd;
    enum sess_st st;
    bool want_out;
    bool login_started;
    uint16_t volid;
    uint32_t reqsize;
    uint32_t wreqsize; /* a write's data: with its parameters within the quantum */
    uint64_t deadline_us, last_send_us;
    const char *waiting_for; /* for the timeout message */
    /* the operation in progress */
    enum load_op op;
    int phase;
    unsigned dir, file;
    uint32_t seed;
    uint64_t size, off, asked;
    uint32_t touches; /* this session's touches so far: the next date */
    afp_fork_t fork;
    bool fork_open, mismatch;
    uint64_t t_start, t_intended, op_bytes;
    unsigned op_afp;
    int op_err;   /* 0, or the AFP result that failed the operation */
    int op_valid; /* a validation failure in the operation */
    uint32_t enum_start;
    unsigned enum_calls;
    /* the schedule (fixed rate) */
    uint64_t next_intended;
    double interval_us;
    uint64_t rng;
    uint64_t c_lo, c_hi; /* created files still there: c<lo> .. c<hi-1> */
    unsigned wname;
    struct load_sess_result res;
};

static uint64_t now_us(void)
{
    return clock_now_us();
}

/* The run's deadline in clock_now_us() terms (both are CLOCK_MONOTONIC). */
static uint64_t run_deadline_us(void)
{
    int64_t ms = deadline_run_ms();
    return ms == INT64_MAX ? UINT64_MAX : (uint64_t)(ms > 0 ? ms : 0) * 1000;
}

static void note(struct load_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(struct load_session *s, const char *fmt, ...)
{
    if (s->res.error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->res.error, sizeof s->res.error, fmt, ap);
    va_end(ap);
}

static void set_out(struct load_session *s, bool on)
{
    if (s->want_out == on || s->fd < 0)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = s};
    if (epoll_ctl(s->loop->ep, EPOLL_CTL_MOD, s->fd, &ev) == 0)
        s->want_out = on;
}

static void resolve_login(struct load_session *s, bool ok)
{
    if (!s->login_started)
        return;
    s->login_started = false;
    s->loop->logging_in--;
    if (ok)
        atomic_fetch_add(&s->loop->run->logged_in, 1);
    atomic_fetch_add(&s->loop->run->resolved, 1);
}

/* The session ends here (state already set in res). */
static void finish(struct load_session *s)
{
    if (s->st == ST_DONE)
        return;
    if (s->st <= ST_OPENVOL)
        resolve_login(s, false);
    if (s->fd >= 0) {
        epoll_ctl(s->loop->ep, EPOLL_CTL_DEL, s->fd, NULL);
        close(s->fd);
        s->fd = -1;
    }
    s->st = ST_DONE;
    s->loop->active--;
}

static void end_session(struct load_session *s, enum load_sess_state why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void end_session(struct load_session *s, enum load_sess_state why, const char *fmt, ...)
{
    if (s->st == ST_DONE)
        return;
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    bool login = s->st <= ST_OPENVOL;
    if (login && why != LS_STOPPED) {
        why = LS_LOGIN_FAILED;
        s->res.login_failed++;
    } else if (why == LS_DROPPED) {
        s->res.dropped++;
    } else if (why == LS_TIMEOUT) {
        s->res.timeouts++;
    } else if (why == LS_PROTOCOL) {
        s->res.protocol++;
    }
    s->res.state = why;
    note(s, "%s%s", login ? "login: " : "", msg);
    finish(s);
}

/* Send what is queued; false when the session ended. */
static bool flush(struct load_session *s)
{
    while (nbdsi_tx_pending(&s->d) > 0) {
        struct iovec iov[2];
        int n = nbdsi_tx_iov(&s->d, iov);
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = sendmsg(s->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                set_out(s, true);
                return true;
            }
            end_session(s, LS_DROPPED, "sending: %s", strerror(errno));
            return false;
        }
        nbdsi_tx_advance(&s->d, (size_t)w);
        s->last_send_us = now_us();
    }
    set_out(s, false);
    return true;
}

static uint64_t wait_deadline(const struct load_session *s)
{
    uint64_t own = now_us() + (uint64_t)s->loop->run->cfg->timeout_ms * 1000;
    uint64_t run = run_deadline_us();
    return run < own ? run : own;
}

/* Queue one AFP request and send it. false when the session ended. */
static bool send_afp(struct load_session *s, uint8_t dsicmd, const struct bw *w, const void *data,
                     size_t dlen, uint32_t max_reply, nbdsi_sink_fn sink, const char *what)
{
    if (!bw_ok(w) ||
        nbdsi_send_request(&s->d, dsicmd, w->p, w->len, data, dlen, max_reply, sink, s) != 0) {
        end_session(s, LS_PROTOCOL, "cannot frame %s: %s", what,
                    s->d.err[0] ? s->d.err : "request too large");
        return false;
    }
    s->waiting_for = what;
    s->deadline_us = wait_deadline(s);
    if (s->st == ST_BUSY)
        s->op_afp++;
    return flush(s);
}

/* ---- login ---- */

static void start_connect(struct load_session *s)
{
    const struct load_config *cfg = s->loop->run->cfg;
    s->login_started = true;
    s->loop->logging_in++;
    s->fd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s->fd < 0) {
        end_session(s, LS_LOGIN_FAILED, "socket: %s", strerror(errno));
        return;
    }
    int one = 1;
    setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = s};
    if (epoll_ctl(s->loop->ep, EPOLL_CTL_ADD, s->fd, &ev) != 0) {
        end_session(s, LS_LOGIN_FAILED, "epoll: %s", strerror(errno));
        return;
    }
    s->want_out = true;
    s->st = ST_CONNECT;
    s->waiting_for = "the TCP connection";
    s->deadline_us = wait_deadline(s);
    if (connect(s->fd, (const struct sockaddr *)&cfg->addr, cfg->addrlen) != 0 &&
        errno != EINPROGRESS)
        end_session(s, LS_LOGIN_FAILED, "connect: %s", strerror(errno));
}

static void connected(struct load_session *s)
{
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
        end_session(s, LS_LOGIN_FAILED, "connect: %s", strerror(soerr ? soerr : errno));
        return;
    }
    set_out(s, false);
    uint8_t opt[8];
    size_t olen = dsi_opensession_encode(opt, sizeof opt, 1024);
    struct bw w = {.p = opt, .cap = sizeof opt, .len = olen};
    s->st = ST_OPENSESS;
    send_afp(s, DSI_OPENSESSION, &w, NULL, 0, 64, NULL, "DSIOpenSession");
}

/* ---- the mix ---- */

static int read_sink(void *ctx, const uint8_t *data, size_t len, uint64_t offset)
{
    struct load_session *s = ctx;
    if (!s->mismatch && pattern_check(data, s->off + offset, len, s->seed) >= 0)
        s->mismatch = true;
    return 0;
}

static bool start_op(struct load_session *s);
static void start_logout(struct load_session *s);

static bool send_read(struct load_session *s)
{
    uint8_t blk[64];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    uint64_t left = s->size - s->off;
    s->asked = left < s->reqsize ? left : s->reqsize;
    s->phase = 1;
    afp_enc_readext(&w, s->fork, s->off, s->asked);
    if (!send_afp(s, DSI_COMMAND, &w, NULL, 0, (uint32_t)s->asked, read_sink, "FPReadExt"))
        return false;
    nbdsi_set_sink_verify(&s->d, LOAD_VERIFY_BYTES);
    return true;
}

static bool send_write(struct load_session *s)
{
    uint8_t blk[64];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    uint64_t left = s->size - s->off;
    s->asked = left < s->wreqsize ? left : s->wreqsize;
    if (s->asked > LOAD_WRITE_CAP)
        s->asked = LOAD_WRITE_CAP;
    s->phase = 2;
    afp_enc_writeext(&w, 0, s->fork, s->off, s->asked);
    return send_afp(s, DSI_WRITE, &w, s->loop->wbuf, (size_t)s->asked, 8, NULL, "FPWriteExt");
}

static bool send_close(struct load_session *s, int phase)
{
    uint8_t blk[16];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    afp_enc_closefork(&w, s->fork);
    s->phase = phase;
    return send_afp(s, DSI_COMMAND, &w, NULL, 0, 0, NULL, "FPCloseFork");
}

static bool send_open(struct load_session *s, uint32_t did, const char *name, uint16_t access,
                      int phase)
{
    uint8_t blk[NBDSI_MAX_BLOCK];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    afp_enc_openfork(&w, AFP_FORK_DATA, s->volid, did, 0, access, name, true);
    s->phase = phase;
    return send_afp(s, DSI_COMMAND, &w, NULL, 0, 64, NULL, "FPOpenFork");
}

static bool send_create(struct load_session *s, bool hard, const char *name, int phase)
{
    uint8_t blk[NBDSI_MAX_BLOCK];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    afp_enc_createfile(&w, hard, s->volid, s->loop->run->cfg->tb->scratch_did, name, true);
    s->phase = phase;
    return send_afp(s, DSI_COMMAND, &w, NULL, 0, 0, NULL, "FPCreateFile");
}

static bool send_delete(struct load_session *s, const char *name, int phase)
{
    uint8_t blk[NBDSI_MAX_BLOCK];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    afp_enc_delete(&w, s->volid, s->loop->run->cfg->tb->scratch_did, name, true);
    s->phase = phase;
    return send_afp(s, DSI_COMMAND, &w, NULL, 0, 0, NULL, "FPDelete");
}

static bool send_enum(struct load_session *s)
{
    uint8_t blk[64];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    afp_enc_enumerate_ext2(&w, s->volid, s->loop->run->cfg->tb->dir_ids[s->dir], AFP_FILE_LNAME,
                           AFP_DIR_LNAME, ENUM_REQCOUNT, s->enum_start, ENUM_MAXREPLY, "", true);
    s->enum_calls++;
    return send_afp(s, DSI_COMMAND, &w, NULL, 0, ENUM_MAXREPLY, NULL, "FPEnumerateExt2");
}

static bool start_op(struct load_session *s)
{
    const struct load_testbed *tb = s->loop->run->cfg->tb;
    char name[64];
    s->st = ST_BUSY;
    s->op = load_pick_op(s->loop->run, s->idx, &s->rng);
    s->phase = 0;
    s->op_afp = 0;
    s->op_bytes = 0;
    s->op_err = 0;
    s->op_valid = 0;
    s->off = 0;
    s->fork_open = false;
    s->mismatch = false;
    s->t_start = now_us();
    if (s->interval_us <= 0)
        s->t_intended = s->t_start;
    s->dir = (unsigned)(load_rng_next(&s->rng) % tb->ndirs);
    s->file = (unsigned)(load_rng_next(&s->rng) % tb->files);
    s->size = tb->sizes[s->file];
    s->seed = s->dir * tb->files + s->file + 1;
    snprintf(name, sizeof name, "f%u", s->file);
    switch (s->op) {
    case LOAD_READ:
        return send_open(s, tb->dir_ids[s->dir], name, AFP_OPEN_READ, 0);
    case LOAD_STAT: {
        uint8_t blk[NBDSI_MAX_BLOCK];
        struct bw w;
        bw_init(&w, blk, sizeof blk);
        afp_enc_getfiledirparms(&w, s->volid, tb->dir_ids[s->dir], STAT_FBITMAP, 0, name, true);
        return send_afp(s, DSI_COMMAND, &w, NULL, 0, 1024, NULL, "FPGetFileDirParms");
    }
    case LOAD_ENUM:
        s->enum_start = 1;
        s->enum_calls = 0;
        return send_enum(s);
    case LOAD_CREATE:
        load_scratch_name(name, sizeof name, s->loop->run->cfg->step, s->idx, 'c', s->c_hi);
        return send_create(s, false, name, 0);
    case LOAD_WRITE:
        load_scratch_name(name, sizeof name, s->loop->run->cfg->step, s->idx, 'w', s->wname);
        return send_create(s, true, name, 0);
    case LOAD_DELETE:
        if (s->c_lo < s->c_hi) {
            load_scratch_name(name, sizeof name, s->loop->run->cfg->step, s->idx, 'c', s->c_lo);
            return send_delete(s, name, 1);
        }
        load_scratch_name(name, sizeof name, s->loop->run->cfg->step, s->idx, 'c', s->c_hi);
        return send_create(s, false, name, 0);
    case LOAD_TOUCH: {
        uint8_t blk[NBDSI_MAX_BLOCK];
        struct bw w;
        bw_init(&w, blk, sizeof blk);
        int32_t date = load_touch_date(s->idx, s->touches++);
        afp_enc_set_file_mdate(&w, s->volid, tb->dir_ids[s->dir], name, true, date);
        return send_afp(s, DSI_COMMAND, &w, NULL, 0, 0, NULL, "FPSetFileParms");
    }
    default:
        return false;
    }
}

/* The operation is over: count it, then the next one (or logout). */
static void end_op(struct load_session *s)
{
    struct load_run *run = s->loop->run;
    uint64_t now = now_us();
    uint64_t t1 = atomic_load(&run->t1);
    const struct load_done done = {s->op,       now,       s->t_start, s->t_intended,
                                   s->op_bytes, s->op_afp, s->op_err,  s->op_valid};
    load_count_done(s->loop, &s->res, &done);
    if (s->op_err && !s->res.error[0])
        note(s, "%s: %s", load_op_name(s->op), afp_strerror(s->op_err));
    if (atomic_load(&run->aborting) || (now >= t1 && atomic_load(&run->released))) {
        start_logout(s);
        return;
    }
    if (now >= t1) { /* the window is over: no more requests; logout once released */
        s->st = ST_IDLE;
        return;
    }
    if (s->interval_us > 0) {
        s->next_intended = s->t_intended + (uint64_t)s->interval_us;
        s->t_intended = s->next_intended;
        if (s->next_intended > now) {
            s->st = ST_IDLE;
            return;
        }
    }
    start_op(s);
}

static void op_fail(struct load_session *s, int code)
{
    if (!s->op_err)
        s->op_err = code ? code : AFPB_EPROTO;
}

static void validation(struct load_session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void validation(struct load_session *s, const char *fmt, ...)
{
    s->op_valid = 1;
    if (s->res.error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->res.error, sizeof s->res.error, fmt, ap);
    va_end(ap);
}

/* The FPOpenFork reply of a read or a write: the first transfer, or the
 * close of an empty file. false when the open failed (the operation ends). */
static bool opened(struct load_session *s, int32_t code, const uint8_t *p, uint32_t len,
                   bool (*first)(struct load_session *))
{
    if (code != 0 || afp_dec_openfork(p, len, &s->fork, NULL) != 0) {
        op_fail(s, code);
        return false;
    }
    s->fork_open = true;
    if (s->size > 0)
        first(s);
    else
        send_close(s, 9);
    return true;
}

static void op_reply(struct load_session *s)
{
    const struct load_testbed *tb = s->loop->run->cfg->tb;
    int32_t code = s->d.code;
    const uint8_t *p = s->d.small;
    uint32_t len = s->d.length;
    char name[64];
    switch (s->op) {
    case LOAD_READ:
        if (s->phase == 0) {
            if (opened(s, code, p, len, send_read))
                return;
            break;
        }
        if (s->phase == 1) {
            s->op_bytes += len;
            if ((code != 0 && code != AFPERR_EOF) || len != s->asked) {
                if (code != 0 && code != AFPERR_EOF)
                    op_fail(s, code);
                else
                    validation(s,
                               "read of f%u in directory %u: %u bytes at offset %llu, %llu asked",
                               s->file, s->dir, len, (unsigned long long)s->off,
                               (unsigned long long)s->asked);
                send_close(s, 9);
                return;
            }
            if (s->mismatch) {
                validation(s,
                           "read of f%u in directory %u: the data at offset %llu is not what "
                           "was written",
                           s->file, s->dir, (unsigned long long)s->off);
                send_close(s, 9);
                return;
            }
            s->off += len;
            if (s->off < s->size)
                send_read(s);
            else
                send_close(s, 9);
            return;
        }
        if (code != 0) /* close */
            op_fail(s, code);
        break;
    case LOAD_STAT: {
        struct afp_params ap;
        if (code != 0)
            op_fail(s, code);
        else if (afp_dec_filedirparms(p, len, &ap) != 0 || ap.is_dir || ap.ext_data_len != s->size)
            validation(s, "FPGetFileDirParms of f%u in directory %u: malformed or wrong size",
                       s->file, s->dir);
        break;
    }
    case LOAD_ENUM: {
        unsigned count = 0;
        if (code == AFPERR_NOOBJ)
            break; /* the end of the directory */
        if (code != 0) {
            op_fail(s, code);
            break;
        }
        if (afp_dec_enumerate(p, len, true, NULL, NULL, &count) != 0 || count == 0) {
            validation(s, "FPEnumerateExt2 of directory %u: malformed reply", s->dir);
            break;
        }
        s->enum_start += count;
        if (s->enum_calls < ENUM_MAX_CALLS) {
            send_enum(s);
            return;
        }
        validation(s, "FPEnumerateExt2 of directory %u never ended", s->dir);
        break;
    }
    case LOAD_CREATE:
        if (code != 0)
            op_fail(s, code);
        else
            s->c_hi++;
        break;
    case LOAD_DELETE:
        if (s->phase == 0) { /* nothing of ours to delete: made one first */
            if (code != 0) {
                op_fail(s, code);
                break;
            }
            s->c_hi++;
            load_scratch_name(name, sizeof name, s->loop->run->cfg->step, s->idx, 'c', s->c_lo);
            send_delete(s, name, 1);
            return;
        }
        if (code != 0)
            op_fail(s, code);
        else
            s->c_lo++;
        break;
    case LOAD_WRITE:
        if (s->phase == 0) {
            if (code != 0) {
                op_fail(s, code);
                break;
            }
            load_scratch_name(name, sizeof name, s->loop->run->cfg->step, s->idx, 'w', s->wname);
            s->wname = (s->wname + 1) % 16;
            send_open(s, tb->scratch_did, name, AFP_OPEN_READ | AFP_OPEN_WRITE, 1);
            return;
        }
        if (s->phase == 1) {
            if (opened(s, code, p, len, send_write))
                return;
            break;
        }
        if (s->phase == 2) {
            if (code != 0 || len != 8 || be64_load(p) != s->off + s->asked) {
                if (code != 0)
                    op_fail(s, code);
                else
                    validation(s, "FPWriteExt reply does not end the written range");
                send_close(s, 9);
                return;
            }
            s->op_bytes += s->asked;
            s->off += s->asked;
            if (s->off < s->size)
                send_write(s);
            else
                send_close(s, 9);
            return;
        }
        if (code != 0)
            op_fail(s, code);
        break;
    case LOAD_TOUCH:
        if (code != 0)
            op_fail(s, code);
        break;
    default:
        break;
    }
    end_op(s);
}

static void start_logout(struct load_session *s)
{
    uint8_t blk[4];
    struct bw w;
    bw_init(&w, blk, sizeof blk);
    afp_enc_logout(&w);
    s->st = ST_LOGOUT;
    if (send_afp(s, DSI_COMMAND, &w, NULL, 0, 0, NULL, "FPLogout")) {
        uint64_t limit = now_us() + LOGOUT_WAIT_US;
        if (s->deadline_us > limit)
            s->deadline_us = limit;
    }
}

static void on_reply(struct load_session *s)
{
    const struct load_config *cfg = s->loop->run->cfg;
    int32_t code = s->d.code;
    switch (s->st) {
    case ST_OPENSESS: {
        uint32_t quantum = 0x100000, replay = 0;
        if (code != 0 || dsi_opensession_decode(s->d.small, s->d.length, &quantum, &replay) != 0) {
            end_session(s, LS_LOGIN_FAILED, "DSIOpenSession: %s",
                        afp_strerror(code ? code : AFPB_EPROTO));
            return;
        }
        s->reqsize = dsi_request_size(quantum, 0);
        if (s->reqsize == 0) {
            end_session(s, LS_LOGIN_FAILED, "DSIOpenSession: a quantum of 0");
            return;
        }
        /* a write request, parameters and data, fits in the quantum */
        s->wreqsize = dsi_write_size(quantum);
        if (s->wreqsize > s->reqsize)
            s->wreqsize = s->reqsize;
        uint8_t blk[NBDSI_MAX_BLOCK];
        struct bw w;
        bw_init(&w, blk, sizeof blk);
        afp_enc_login_cleartext(&w, cfg->afp_version, cfg->user, cfg->password);
        s->st = ST_LOGIN;
        send_afp(s, DSI_COMMAND, &w, NULL, 0, 0, NULL, "FPLogin");
        return;
    }
    case ST_LOGIN: {
        if (code != 0) {
            end_session(s, LS_LOGIN_FAILED, "FPLogin: %s", afp_strerror(code));
            return;
        }
        uint8_t blk[NBDSI_MAX_BLOCK];
        struct bw w;
        bw_init(&w, blk, sizeof blk);
        afp_enc_openvol(&w, AFP_VOL_ATTR | AFP_VOL_VID, cfg->volume);
        s->st = ST_OPENVOL;
        send_afp(s, DSI_COMMAND, &w, NULL, 0, 1024, NULL, "FPOpenVol");
        return;
    }
    case ST_OPENVOL: {
        struct afp_volparms vp;
        if (code != 0 || afp_dec_volparms(s->d.small, s->d.length, &vp) != 0 ||
            !(vp.bitmap & AFP_VOL_VID)) {
            end_session(s, LS_LOGIN_FAILED, "FPOpenVol: %s",
                        afp_strerror(code ? code : AFPB_EPROTO));
            return;
        }
        s->volid = vp.volid;
        s->st = ST_READY;
        s->deadline_us = UINT64_MAX;
        resolve_login(s, true);
        return;
    }
    case ST_BUSY:
        op_reply(s);
        return;
    case ST_LOGOUT:
        s->res.state = LS_OK;
        if (nbdsi_send_noreply(&s->d, DSI_CLOSESESSION) == 0)
            flush(s);
        finish(s);
        return;
    default:
        end_session(s, LS_PROTOCOL, "a reply while no request was in flight");
        return;
    }
}

static void on_readable(struct load_session *s)
{
    uint8_t *buf = s->loop->rx;
    while (s->st != ST_DONE) {
        /* Bulk read data past what is checked: dropped by the kernel, never
         * copied (MSG_TRUNC), so the client's CPU stays off the data path. */
        uint32_t skip = s->loop->run->cfg->verify_all ? 0 : nbdsi_rx_discardable(&s->d);
        /* MSG_TRUNC on TCP copies nothing, but a length past the buffer is
         * one kernel behaviour away from an overflow (and ASan says so). */
        if (skip > LOAD_RX_CAP)
            skip = LOAD_RX_CAP;
        if (skip > 0) {
            ssize_t k = recv(s->fd, buf, skip, MSG_DONTWAIT | MSG_TRUNC);
            if (k > 0) {
                if (nbdsi_rx_discard(&s->d, (uint32_t)k) == NBDSI_REPLY) {
                    /* the server sends nothing unasked but tickles, which
                     * epoll (level-triggered) reports again: no empty recv */
                    on_reply(s);
                    return;
                }
                if ((uint32_t)k < skip)
                    return; /* drained for now */
                continue;
            }
            if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return;
            if (k < 0 && errno == EINTR)
                continue;
            /* EOF or an error: the plain recv below says which */
        }
        /* While a read's reply is awaited, take only its header and the
         * bytes checked, so the rest can be dropped uncopied. */
        size_t want = LOAD_RX_CAP;
        if (!s->loop->run->cfg->verify_all && s->d.in_flight && s->d.sink != NULL)
            want = DSI_HEADER_LEN + LOAD_VERIFY_BYTES;
        ssize_t r = recv(s->fd, buf, want, MSG_DONTWAIT);
        if (r == 0) {
            if (s->st == ST_LOGOUT) { /* after FPLogout: fine */
                s->res.state = LS_OK;
                finish(s);
            } else {
                end_session(s, LS_DROPPED, "the server closed the connection%s%s",
                            s->waiting_for ? " waiting for " : "",
                            s->waiting_for ? s->waiting_for : "");
            }
            return;
        }
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            end_session(s, LS_DROPPED, "receive: %s", strerror(errno));
            return;
        }
        size_t pos = 0;
        while (pos < (size_t)r && s->st != ST_DONE) {
            size_t used = 0;
            enum nbdsi_event ev = nbdsi_rx(&s->d, buf + pos, (size_t)r - pos, &used);
            pos += used;
            switch (ev) {
            case NBDSI_MORE:
            case NBDSI_TICKLE:
            case NBDSI_ATTENTION:
                break;
            case NBDSI_REPLY:
                on_reply(s);
                break;
            case NBDSI_CLOSED:
                if (s->st == ST_LOGOUT) {
                    s->res.state = LS_OK;
                    finish(s);
                } else {
                    end_session(s, LS_DROPPED, "the server closed the DSI session");
                }
                return;
            case NBDSI_ERROR:
                end_session(s, LS_PROTOCOL, "%s", s->d.err);
                return;
            }
        }
        if ((size_t)r < want)
            return;
    }
}

void load_session_event(struct load_session *s, uint32_t events)
{
    if (s->st == ST_DONE)
        return;
    if (s->st == ST_CONNECT) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            connected(s);
        return;
    }
    if (events & EPOLLOUT) {
        if (!flush(s))
            return;
    }
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP))
        on_readable(s);
}

void load_session_timer(struct load_session *s, uint64_t now, const struct load_window *w)
{
    if (s->st == ST_DONE)
        return;
    if (w->aborting && now >= w->t_abort + ABORT_GRACE_US) {
        end_session(s, LS_STOPPED, "stopped: %s", deadline_reason());
        return;
    }
    if (s->st == ST_READY || s->st == ST_IDLE) {
        if (w->aborting || (w->running && now >= w->t1 && w->released)) {
            start_logout(s);
        } else if (w->running && now < w->t1 && (s->st == ST_READY || now >= s->next_intended)) {
            if (s->st == ST_READY && s->interval_us > 0) {
                s->next_intended =
                    w->t_run + (uint64_t)(s->interval_us * s->idx / s->loop->run->cfg->sessions);
                s->t_intended = s->next_intended;
                s->st = ST_IDLE;
                if (now < s->next_intended)
                    return;
            }
            start_op(s);
        } else if (now - s->last_send_us > TICKLE_IDLE_US && nbdsi_tx_pending(&s->d) == 0) {
            if (nbdsi_send_noreply(&s->d, DSI_TICKLE) == 0)
                flush(s);
        }
        return;
    }
    if (now >= s->deadline_us) {
        if (deadline_run_expired())
            end_session(s, LS_STOPPED, "%s while waiting for %s", deadline_reason(),
                        s->waiting_for ? s->waiting_for : "the server");
        else
            end_session(s, LS_TIMEOUT, "no reply within %d ms while waiting for %s",
                        s->loop->run->cfg->timeout_ms,
                        s->waiting_for ? s->waiting_for : "the server");
    }
}

struct load_session *load_session_new(struct load_loop *loop, unsigned idx)
{
    const struct load_config *cfg = loop->run->cfg;
    struct load_session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    double per_session = cfg->rate > 0 ? cfg->rate / cfg->sessions : 0;
    nbdsi_init(&s->d);
    s->loop = loop;
    s->idx = idx;
    s->fd = -1;
    s->rng = (cfg->seed ^ (0x9E3779B97F4A7C15ull * (idx + 1))) | 1;
    s->interval_us = per_session > 0 ? 1e6 / per_session : 0;
    s->deadline_us = UINT64_MAX;
    s->last_send_us = now_us();
    loop->active++;
    return s;
}

void load_session_free(struct load_session *s)
{
    if (s == NULL)
        return;
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}

void load_session_connect(struct load_session *s)
{
    if (s->st != ST_DONE)
        start_connect(s);
}

int load_session_fd(const struct load_session *s)
{
    return s->fd;
}

const struct load_sess_result *load_session_result(const struct load_session *s)
{
    return &s->res;
}

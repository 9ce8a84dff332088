/* Session calls, and the bulk transfers of xfer.c built on them, over a
 * real TCP connection to a scripted in-process server.
 *
 * The peer is a mock: it plays back exactly the behaviours under test (a
 * small quantum, a file that ends mid-window, a server that misreports a
 * write, a refused login), which a real netatalk cannot be made to do on
 * demand. The real server is covered by tests/integration.sh. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "session.h"
#include "xfer.h"

#define FAKE_QUANTUM 4096
#define FAKE_FILE_SIZE 10000

static uint8_t file_byte(uint64_t off)
{
    return (uint8_t)((off * 7) ^ (off >> 8));
}

struct fake {
    int listen_fd;
    uint16_t port;
    bool lie_about_writes; /* report one byte less than written */
    unsigned writes_ok;    /* write payloads whose bytes matched file_byte */
    unsigned commands;
    pthread_t thread;
};

static bool read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (uint8_t *)buf + got, n - got);
        if (r <= 0)
            return false;
        got += (size_t)r;
    }
    return true;
}

static void reply(int fd, uint8_t cmd, uint16_t id, int32_t code, const void *data, uint32_t len)
{
    uint8_t hdr[16];
    struct dsi_header h = {
        .flags = 1, .command = cmd, .request_id = id, .code = (uint32_t)code, .length = len};
    dsi_header_encode(&h, hdr);
    if (write(fd, hdr, 16) != 16 || (len && write(fd, data, len) != (ssize_t)len))
        return;
}

static void serve_command(struct fake *f, int fd, const struct dsi_header *h, const uint8_t *p)
{
    static uint8_t out[FAKE_QUANTUM];
    f->commands++;
    switch (p[0]) {
    case AFP_LOGIN: {
        /* pstr version, pstr UAM, pstr user */
        size_t at = 1 + 1 + p[1];
        at += 1 + p[at];
        bool bad = p[at] == 3 && memcmp(p + at + 1, "bad", 3) == 0;
        reply(fd, DSI_COMMAND, h->request_id, bad ? AFPERR_NOTAUTH : 0, NULL, 0);
        return;
    }
    case AFP_READEXT: {
        uint64_t off = be64_load(p + 4), count = be64_load(p + 12);
        uint64_t avail = off < FAKE_FILE_SIZE ? FAKE_FILE_SIZE - off : 0;
        uint64_t n = count < avail ? count : avail;
        if (n > sizeof out)
            n = sizeof out;
        for (uint64_t i = 0; i < n; i++)
            out[i] = file_byte(off + i);
        reply(fd, DSI_COMMAND, h->request_id, off + count > FAKE_FILE_SIZE ? AFPERR_EOF : 0, out,
              (uint32_t)n);
        return;
    }
    default:
        reply(fd, DSI_COMMAND, h->request_id, 0, NULL, 0);
    }
}

static void *fake_main(void *arg)
{
    struct fake *f = arg;
    int fd = accept(f->listen_fd, NULL, NULL);
    static uint8_t payload[FAKE_QUANTUM + 64];
    for (;;) {
        uint8_t hdr[16];
        struct dsi_header h;
        if (fd < 0 || !read_full(fd, hdr, 16))
            break;
        dsi_header_decode(hdr, 16, &h);
        if (h.length > sizeof payload || !read_full(fd, payload, h.length))
            break;
        if (h.command == DSI_OPENSESSION) {
            static const uint8_t opts[] = {0x00, 0x04, 0x00, 0x00, 0x10, 0x00};
            reply(fd, DSI_OPENSESSION, h.request_id, 0, opts, sizeof opts);
        } else if (h.command == DSI_COMMAND) {
            serve_command(f, fd, &h, payload);
        } else if (h.command == DSI_WRITE) {
            uint64_t off = be64_load(payload + 4), count = be64_load(payload + 12);
            bool same = h.code == 20 && count == h.length - 20;
            for (uint64_t i = 0; same && i < count; i++)
                same = payload[20 + i] == file_byte(off + i);
            f->writes_ok += same;
            uint8_t end[8];
            be64_store(end, off + count - (f->lie_about_writes ? 1 : 0));
            reply(fd, DSI_WRITE, h.request_id, 0, end, 8);
        } else if (h.command == DSI_CLOSESESSION) {
            break;
        }
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static void fake_start(struct fake *f)
{
    f->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    if (bind(f->listen_fd, (struct sockaddr *)&a, sizeof a) || listen(f->listen_fd, 1) ||
        getsockname(f->listen_fd, (struct sockaddr *)&a, &len))
        abort();
    f->port = ntohs(a.sin_port);
    pthread_create(&f->thread, NULL, fake_main, f);
}

static void fake_stop(struct fake *f)
{
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
}

static struct afp_session *logged_in(struct fake *f)
{
    fake_start(f);
    struct afp_session *s = afp_session_new();
    afp_session_set_timeout(s, 2000);
    CHECK_INT(afp_session_connect(s, "127.0.0.1", f->port), 0);
    CHECK_INT(afp_session_login(s, "AFP3.4", "user", "pw"), 0);
    return s;
}

struct seen {
    uint64_t bytes;
    unsigned bad;
};

static int check_chunk(void *ctx, uint64_t offset, void *data, size_t len)
{
    struct seen *s = ctx;
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++)
        s->bad += p[i] != file_byte(offset + i);
    s->bytes += len;
    return 0;
}

static int fill_chunk(void *ctx, uint64_t offset, void *data, size_t len)
{
    (void)ctx;
    uint8_t *p = data;
    for (size_t i = 0; i < len; i++)
        p[i] = file_byte(offset + i);
    return 0;
}

static void test_read_pipelined_to_eof(void)
{
    struct fake f = {0};
    struct afp_session *s = logged_in(&f);
    CHECK_INT(afp_session_quantum(s), FAKE_QUANTUM);
    CHECK_INT(afp_session_ops(s), 1); /* the login */
    static uint8_t chunk[FAKE_QUANTUM];
    struct seen seen = {0};
    uint64_t done = 0;
    afp_fork_t fork = {{1, 0}};
    /* Ask for more than the file holds with 4 in flight: the short and the
     * empty replies after the end are reaped, the data all checked. */
    CHECK_INT(
        afp_read_pipelined(s, fork, 0, 8 * FAKE_QUANTUM, 0, 4, chunk, check_chunk, &seen, &done),
        0);
    CHECK_INT(done, FAKE_FILE_SIZE);
    CHECK_INT(seen.bytes, FAKE_FILE_SIZE);
    CHECK_INT(seen.bad, 0);
    CHECK_INT(afp_session_outstanding(s), 0);
    /* Chunks 0-3 go out, reaping 0 and 1 issues 4 and 5, chunk 2 ends the
     * file: nothing more is issued (6 and 7 never are), 3-5 are drained. */
    CHECK_INT(afp_session_ops(s), 1 + 6);
    afp_session_free(s);
    fake_stop(&f);
}

static void test_write_pipelined(void)
{
    struct fake f = {0};
    struct afp_session *s = logged_in(&f);
    static uint8_t chunk[FAKE_QUANTUM];
    uint64_t done = 0;
    afp_fork_t fork = {{1, 0}};
    CHECK_INT(afp_write_pipelined(s, fork, 100, 10000, 0, 3, chunk, fill_chunk, NULL, &done), 0);
    CHECK_INT(done, 10000);
    afp_session_free(s);
    fake_stop(&f);
    CHECK_INT(f.writes_ok, 3); /* 4096 + 4096 + 1808, each at its offset */
}

static void test_write_misreported(void)
{
    struct fake f = {.lie_about_writes = true};
    struct afp_session *s = logged_in(&f);
    static uint8_t chunk[FAKE_QUANTUM];
    afp_fork_t fork = {{1, 0}};
    CHECK_INT(afp_write_pipelined(s, fork, 0, 5000, 0, 2, chunk, fill_chunk, NULL, NULL),
              AFPB_EPROTO);
    CHECK(strstr(afp_session_error(s), "server reports end") != NULL);
    CHECK_INT(afp_session_outstanding(s), 0); /* the second write was still reaped */
    afp_session_free(s);
    fake_stop(&f);
}

/* xfer_read: all of a file in order; a reply shorter than asked is
 * XFER_ESHORT; bytes that are not the pattern are XFER_EMISMATCH, each with
 * where it happened. xfer_write: every chunk sent and its reply reaped. */
static void test_xfer(void)
{
    struct fake f = {0};
    struct afp_session *s = logged_in(&f);
    static uint8_t buf[FAKE_QUANTUM];
    afp_fork_t fork = {{1, 0}};
    struct pattern_buf pat;
    CHECK_INT(pattern_buf_init(&pat, FAKE_QUANTUM, 1), 0);

    CHECK_INT(xfer_read(s, fork, FAKE_FILE_SIZE, FAKE_QUANTUM, 3, buf, NULL, NULL), 0);
    CHECK_INT(afp_session_ops(s), 1 + 3);
    CHECK_INT(afp_session_outstanding(s), 0);

    struct xfer_fault fault = {0};
    CHECK_INT(xfer_read(s, fork, 3 * FAKE_QUANTUM, FAKE_QUANTUM, 2, buf, NULL, &fault),
              XFER_ESHORT);
    CHECK_INT(fault.offset, 2 * FAKE_QUANTUM);
    CHECK_INT(fault.expected, FAKE_QUANTUM);
    CHECK_INT(fault.got, FAKE_FILE_SIZE - 2 * FAKE_QUANTUM);

    /* The mock's file is not the pattern: the first differing byte is named. */
    uint8_t want[64];
    pattern_fill(want, 0, sizeof want, 1);
    uint64_t first = 0;
    while (first < sizeof want && want[first] == file_byte(first))
        first++;
    CHECK(first < sizeof want);
    CHECK_INT(xfer_read(s, fork, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, buf, &pat, &fault),
              XFER_EMISMATCH);
    CHECK_INT(fault.offset, first);
    CHECK_INT(fault.expected, want[first]);
    CHECK_INT(fault.got, file_byte(first));
    /* The mismatch ends the transfer with the second read still in flight. */
    CHECK_INT(afp_session_outstanding(s), 1);
    afp_session_free(s);
    fake_stop(&f);

    struct fake w = {0};
    s = logged_in(&w);
    CHECK_INT(xfer_write(s, fork, FAKE_FILE_SIZE, FAKE_QUANTUM, 2, &pat), 0);
    CHECK_INT(afp_session_ops(s), 1 + 3);
    CHECK_INT(afp_session_outstanding(s), 0);
    afp_session_free(s);
    fake_stop(&w);
    pattern_buf_free(&pat);
}

/* A lock reply must hold the start of the range, 4 bytes (8 for the Ext
 * call); the mock's empty reply is a protocol error and sets nothing. */
static void test_lock_reply_too_short(void)
{
    struct fake f = {0};
    struct afp_session *s = logged_in(&f);
    afp_fork_t fork = {{1, 0}};
    uint32_t start32 = 7;
    uint64_t start64 = 7;
    CHECK_INT(afp_byterangelock(s, fork, 0, 0, 10, &start32), AFPB_EPROTO);
    CHECK_STR(afp_session_error(s), "FPByteRangeLock: reply of 0 bytes, expected 4");
    CHECK_INT(start32, 7);
    CHECK_INT(afp_byterangelock_ext(s, fork, 0, 0, 10, &start64), AFPB_EPROTO);
    CHECK_STR(afp_session_error(s), "FPByteRangeLockExt: reply of 0 bytes, expected 8");
    CHECK_INT(start64, 7);
    afp_session_free(s);
    fake_stop(&f);
}

static void test_login_refused(void)
{
    struct fake f = {0};
    fake_start(&f);
    struct afp_session *s = afp_session_new();
    afp_session_set_timeout(s, 2000);
    CHECK_INT(afp_session_connect(s, "127.0.0.1", f.port), 0);
    CHECK_INT(afp_session_login(s, NULL, "bad", "pw"), AFPERR_NOTAUTH);
    CHECK(strstr(afp_session_error(s), "FPLogin as 'bad'") != NULL);
    CHECK(strstr(afp_session_error(s), "kFPUserNotAuth") != NULL);
    /* Password checks happen before anything is sent. */
    CHECK_INT(afp_session_login(s, NULL, "u", "123456789"), AFPB_EPARAM);
    CHECK_INT(afp_session_login(s, "AFP9.9", "u", "p"), AFPB_EPARAM);
    afp_session_free(s);
    /* The fake waits for a CloseSession that a refused login does not send. */
    fake_stop(&f);
}

int main(void)
{
    RUN(test_read_pipelined_to_eof);
    RUN(test_write_pipelined);
    RUN(test_write_misreported);
    RUN(test_xfer);
    RUN(test_lock_reply_too_short);
    RUN(test_login_refused);
    return harness_report();
}

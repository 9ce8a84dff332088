/* The scripted AFP server of the unit tests (see fake_afp.h). */
#include "fake_afp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "pattern.h"

uint8_t fake_file_byte(uint64_t off)
{
    return (uint8_t)((off * 7) ^ (off >> 8));
}

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

/* Did the last FPLogin ask for AFP 2.x? */
static bool afp2(const struct fake *f)
{
    return strncmp(f->login_version, "AFP2", 4) == 0 ||
           strncmp(f->login_version, "AFPVersion 2", 12) == 0;
}

/* A read reply: what the file holds of [off, off + count). */
static void serve_read(struct fake *f, int fd, uint16_t id, uint64_t off, uint64_t count)
{
    static uint8_t out[FAKE_QUANTUM];
    uint64_t avail = off < FAKE_FILE_SIZE ? FAKE_FILE_SIZE - off : 0;
    uint64_t n = count < avail ? count : avail;
    if (n > sizeof out)
        n = sizeof out;
    if (f->serve_pattern)
        pattern_fill(out, off, (size_t)n, FAKE_SEED);
    else
        for (uint64_t i = 0; i < n; i++)
            out[i] = fake_file_byte(off + i);
    if (f->corrupt_at > off && f->corrupt_at - 1 - off < n)
        out[f->corrupt_at - 1 - off] ^= 0x40;
    reply(fd, DSI_COMMAND, id, off + count > FAKE_FILE_SIZE ? AFPERR_EOF : 0, out, (uint32_t)n);
}

unsigned fake_open_forks(const struct fake *f)
{
    unsigned n = 0;
    for (unsigned i = 1; i <= FAKE_MAX_FORKS; i++)
        n += f->fork_open[i];
    return n;
}

static void serve_command(struct fake *f, int fd, const struct dsi_header *h, const uint8_t *p)
{
    f->commands++;
    switch (p[0]) {
    case AFP_LOGIN: {
        /* pstr version, pstr UAM, pstr user */
        size_t vlen = p[1] < sizeof f->login_version ? p[1] : sizeof f->login_version - 1;
        memcpy(f->login_version, p + 2, vlen);
        f->login_version[vlen] = '\0';
        size_t at = 1 + 1 + p[1];
        at += 1 + p[at];
        bool bad = p[at] == 3 && memcmp(p + at + 1, "bad", 3) == 0;
        reply(fd, DSI_COMMAND, h->request_id, bad ? AFPERR_NOTAUTH : 0, NULL, 0);
        return;
    }
    case AFP_READEXT:
        f->reads64++;
        if (afp2(f))
            reply(fd, DSI_COMMAND, h->request_id, AFPERR_NOOP, NULL, 0);
        else
            serve_read(f, fd, h->request_id, be64_load(p + 4), be64_load(p + 12));
        return;
    case AFP_READ:
        f->reads32++;
        serve_read(f, fd, h->request_id, be32_load(p + 4), be32_load(p + 8));
        return;
    case AFP_OPENFORK: {
        uint8_t out[4] = {0, 0, 0, 0}; /* no parameters, then the refnum */
        unsigned ref = ++f->forks_opened;
        if (ref > FAKE_MAX_FORKS) {
            reply(fd, DSI_COMMAND, h->request_id, AFPERR_NFILE, NULL, 0);
            return;
        }
        f->fork_open[ref] = true;
        be16_store(out + 2, (uint16_t)ref);
        reply(fd, DSI_COMMAND, h->request_id, 0, out, sizeof out);
        return;
    }
    case AFP_CLOSEFORK: {
        unsigned ref = be16_load(p + 2);
        bool open = ref >= 1 && ref <= FAKE_MAX_FORKS && f->fork_open[ref];
        if (open)
            f->fork_open[ref] = false;
        reply(fd, DSI_COMMAND, h->request_id, open ? 0 : AFPERR_PARAM, NULL, 0);
        return;
    }
    case AFP_DELETE:
        reply(fd, DSI_COMMAND, h->request_id, fake_open_forks(f) ? AFPERR_BUSY : 0, NULL, 0);
        return;
    default:
        reply(fd, DSI_COMMAND, h->request_id, 0, NULL, 0);
    }
}

/* FPWriteExt (20 bytes of parameters, then the data; an 8-byte end in the
 * reply) or FPWrite (12 bytes, a 4-byte end). */
static void serve_write(struct fake *f, int fd, const struct dsi_header *h, const uint8_t *p)
{
    bool ext = p[0] == AFP_WRITEEXT;
    uint32_t head = ext ? 20 : 12;
    if (ext)
        f->writes64++;
    else
        f->writes32++;
    if (ext && afp2(f)) {
        reply(fd, DSI_WRITE, h->request_id, AFPERR_NOOP, NULL, 0);
        return;
    }
    uint64_t off = ext ? be64_load(p + 4) : be32_load(p + 4);
    uint64_t count = ext ? be64_load(p + 12) : be32_load(p + 8);
    bool same = h->code == head && count == h->length - head &&
                pattern_check(p + head, off, (size_t)count, FAKE_SEED) < 0;
    f->writes++;
    f->writes_ok += same;
    uint64_t last = off + count - (f->lie_about_writes ? 1 : 0);
    uint8_t end[8];
    if (ext)
        be64_store(end, last);
    else
        be32_store(end, (uint32_t)last);
    reply(fd, DSI_WRITE, h->request_id, 0, end, ext ? 8 : 4);
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
            serve_write(f, fd, &h, payload);
        } else if (h.command == DSI_CLOSESESSION) {
            break;
        }
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

void fake_start(struct fake *f)
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

void fake_stop(struct fake *f)
{
    pthread_join(f->thread, NULL);
    close(f->listen_fd);
}

struct afp_session *fake_logged_in_as(struct fake *f, const char *afp_version)
{
    fake_start(f);
    struct afp_session *s = afp_session_new();
    afp_session_set_timeout(s, 2000);
    CHECK_INT(afp_session_connect(s, "127.0.0.1", f->port), 0);
    CHECK_INT(afp_session_login(s, afp_version, "user", "pw"), 0);
    return s;
}

struct afp_session *fake_logged_in(struct fake *f)
{
    return fake_logged_in_as(f, "AFP3.4");
}

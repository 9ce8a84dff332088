/* TCP transport primitives with bounded waits (see net.h). */
#include "net.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "clock.h"
#include "deadline.h"
#include "dsi.h"

#define SET_ERR(err, errlen, ...)                                                                  \
    do {                                                                                           \
        if ((err) && (errlen))                                                                     \
            snprintf((err), (errlen), __VA_ARGS__);                                                \
    } while (0)

int net_parse_hostport(const char *spec, uint16_t default_port, char *host, size_t hostcap,
                       uint16_t *port, char *err, size_t errlen)
{
    const char *hstart = spec, *hend, *portstr = NULL;
    if (!spec || !*spec) {
        SET_ERR(err, errlen, "empty host");
        return -1;
    }
    if (spec[0] == '[') {
        hstart = spec + 1;
        hend = strchr(hstart, ']');
        if (!hend) {
            SET_ERR(err, errlen, "'%s': missing ']'", spec);
            return -1;
        }
        if (hend[1] == ':')
            portstr = hend + 2;
        else if (hend[1] != '\0') {
            SET_ERR(err, errlen, "'%s': unexpected text after ']'", spec);
            return -1;
        }
    } else {
        const char *colon = strchr(spec, ':');
        if (colon && strchr(colon + 1, ':')) {
            /* A bare IPv6 address: no port possible. */
            hend = spec + strlen(spec);
        } else if (colon) {
            hend = colon;
            portstr = colon + 1;
        } else {
            hend = spec + strlen(spec);
        }
    }
    size_t hlen = (size_t)(hend - hstart);
    if (hlen == 0 || hlen >= hostcap) {
        SET_ERR(err, errlen, "'%s': bad host name length", spec);
        return -1;
    }
    memcpy(host, hstart, hlen);
    host[hlen] = '\0';
    *port = default_port;
    if (portstr) {
        char *end;
        errno = 0;
        long v = strtol(portstr, &end, 10);
        if (*portstr == '\0' || *end != '\0' || errno || v < 1 || v > 65535) {
            SET_ERR(err, errlen, "'%s': port must be a number 1-65535", spec);
            return -1;
        }
        *port = (uint16_t)v;
    }
    return 0;
}

int net_wait(int fd, short events, int timeout_ms)
{
    int64_t deadline = clock_now_ms() + timeout_ms;
    for (;;) {
        int64_t left = deadline - clock_now_ms();
        if (left < 0)
            left = 0;
        struct pollfd pfd = {.fd = fd, .events = events};
        int n = poll(&pfd, 1, (int)left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return AFPB_ENET;
        }
        if (n == 0)
            return AFPB_ETIMEOUT;
        if (pfd.revents & events)
            return 0;
        /* POLLHUP with POLLIN asked still reports POLLIN for the EOF read. */
        return AFPB_ENET;
    }
}

/* Connect one resolved address; returns the fd or an AFPB_E* code. */
static int connect_one(const struct addrinfo *ai, int timeout_ms, char *err, size_t errlen,
                       const char *host, uint16_t port)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
        SET_ERR(err, errlen, "socket: %s", strerror(errno));
        return AFPB_ENET;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
        SET_ERR(err, errlen, "connect to %s:%u: %s", host, port, strerror(errno));
        close(fd);
        return AFPB_ENET;
    }
    int rc = net_wait(fd, POLLOUT, timeout_ms);
    if (rc == AFPB_ETIMEOUT) {
        SET_ERR(err, errlen, "connect to %s:%u: no answer within %d ms", host, port, timeout_ms);
        close(fd);
        return rc;
    }
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
        soerr = errno;
    if (soerr) {
        SET_ERR(err, errlen, "connect to %s:%u: %s", host, port, strerror(soerr));
        close(fd);
        return AFPB_ENET;
    }
    /* Back to blocking: the kernel timeouts bound every later wait. */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 || net_set_timeouts(fd, timeout_ms)) {
        SET_ERR(err, errlen, "socket setup: %s", strerror(errno));
        close(fd);
        return AFPB_ENET;
    }
    return fd;
}

int net_set_timeouts(int fd, int timeout_ms)
{
    struct timeval tv = {.tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000};
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0)
        return AFPB_ENET;
    return 0;
}

int net_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    char portstr[8];
    snprintf(portstr, sizeof portstr, "%u", port);
    int gai = getaddrinfo(host, portstr, &hints, &res);
    if (gai != 0) {
        SET_ERR(err, errlen, "cannot resolve host '%s': %s", host, gai_strerror(gai));
        return AFPB_ENET;
    }
    int rc = AFPB_ENET;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        rc = connect_one(ai, timeout_ms, err, errlen, host, port);
        if (rc >= 0)
            break;
    }
    freeaddrinfo(res);
    return rc;
}

int net_writev_all(int fd, struct iovec *iov, int iovcnt, size_t *sent)
{
    size_t total = 0;
    int rc = 0;
    while (iovcnt > 0) {
        /* sendmsg, not writev: MSG_NOSIGNAL turns a closed peer into EPIPE
         * instead of a SIGPIPE that would kill the process mid-run. */
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)iovcnt};
        ssize_t n = sendmsg(fd, &msg, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                rc = AFPB_ETIMEOUT;
            else
                rc = errno == EPIPE || errno == ECONNRESET ? AFPB_ECLOSED : AFPB_ENET;
            break;
        }
        total += (size_t)n;
        size_t left = (size_t)n;
        while (iovcnt > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov->iov_len = 0; /* consumed: lets the caller resume after a timeout */
            iov++;
            iovcnt--;
        }
        if (iovcnt > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    if (sent)
        *sent = total;
    return rc;
}

ssize_t net_recv_status(ssize_t n)
{
    if (n == 0)
        return AFPB_ECLOSED;
    if (errno == EINTR && deadline_stop_requested())
        return AFPB_ETIMEOUT; /* the caller sees the stop */
    if (errno == EINTR)
        return 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
        return AFPB_ETIMEOUT;
    return errno == ECONNRESET ? AFPB_ECLOSED : AFPB_ENET;
}

ssize_t net_recv_some(int fd, void *buf, size_t len)
{
    for (;;) {
        ssize_t n = recv(fd, buf, len, 0);
        if (n > 0)
            return n;
        n = net_recv_status(n);
        if (n != 0)
            return n;
    }
}

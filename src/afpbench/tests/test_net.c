/* Host/port parsing, connect failures and receive timeouts. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "dsi.h"
#include "harness.h"
#include "net.h"

static void test_parse_hostport(void)
{
    char host[64], err[128];
    uint16_t port = 0;
    CHECK_INT(net_parse_hostport("example.org", 548, host, sizeof host, &port, err, sizeof err), 0);
    CHECK_STR(host, "example.org");
    CHECK_INT(port, 548);
    CHECK_INT(net_parse_hostport("127.0.0.1:10560", 548, host, sizeof host, &port, err, sizeof err),
              0);
    CHECK_STR(host, "127.0.0.1");
    CHECK_INT(port, 10560);
    CHECK_INT(net_parse_hostport("[::1]:549", 548, host, sizeof host, &port, err, sizeof err), 0);
    CHECK_STR(host, "::1");
    CHECK_INT(port, 549);
    CHECK_INT(net_parse_hostport("[fe80::1]", 548, host, sizeof host, &port, err, sizeof err), 0);
    CHECK_INT(port, 548);
    CHECK_INT(net_parse_hostport("::1", 548, host, sizeof host, &port, err, sizeof err), 0);
    CHECK_STR(host, "::1");

    const char *bad[] = {"", "host:", "host:0", "host:65536", "host:12x", "[::1", "[::1]x", ":548"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK_INT(net_parse_hostport(bad[i], 548, host, sizeof host, &port, err, sizeof err), -1);
        CHECK(err[0] != '\0');
    }
    char tiny[4];
    CHECK_INT(net_parse_hostport("longhost", 548, tiny, sizeof tiny, &port, err, sizeof err), -1);
}

/* A loopback port nobody listens on: bind one, learn it, close it. */
static uint16_t closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    close(fd);
    return ntohs(a.sin_port);
}

static void test_connect_refused(void)
{
    char err[200] = "";
    int rc = net_connect("127.0.0.1", closed_port(), 1000, err, sizeof err);
    CHECK_INT(rc, AFPB_ENET);
    CHECK(strstr(err, "refused") != NULL);
    rc = net_connect("no-such-host.invalid", 548, 1000, err, sizeof err);
    CHECK_INT(rc, AFPB_ENET);
    CHECK(strstr(err, "cannot resolve") != NULL);
}

static void test_connect_and_timeouts(void)
{
    /* A listener that accepts (via the backlog) but never sends. */
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    CHECK_INT(bind(lfd, (struct sockaddr *)&a, sizeof a), 0);
    CHECK_INT(listen(lfd, 1), 0);
    getsockname(lfd, (struct sockaddr *)&a, &len);
    char err[200] = "";
    int fd = net_connect("127.0.0.1", ntohs(a.sin_port), 1000, err, sizeof err);
    CHECK(fd >= 0);
    CHECK_INT(net_set_timeouts(fd, 200), 0);
    uint8_t buf[8];
    int64_t t0 = clock_now_ms();
    CHECK_INT(net_recv_some(fd, buf, sizeof buf), AFPB_ETIMEOUT);
    int64_t waited = clock_now_ms() - t0;
    CHECK(waited >= 150 && waited < 2000);
    int peer = accept(lfd, NULL, NULL);
    close(peer);
    CHECK_INT(net_recv_some(fd, buf, sizeof buf), AFPB_ECLOSED);
    close(fd);
    close(lfd);
}

static void test_writev_all(void)
{
    int sv[2];
    CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    struct iovec iov[3] = {{(void *)"ab", 2}, {(void *)"", 0}, {(void *)"cde", 3}};
    size_t sent = 0;
    CHECK_INT(net_writev_all(sv[0], iov, 3, &sent), 0);
    CHECK_INT(sent, 5);
    char got[8];
    CHECK_INT(read(sv[1], got, sizeof got), 5);
    CHECK_MEM(got, 5, "abcde", 5);
    /* A peer that never reads: the send times out instead of hanging. */
    CHECK_INT(net_set_timeouts(sv[0], 100), 0);
    static uint8_t big[4 << 20];
    struct iovec one = {big, sizeof big};
    CHECK_INT(net_writev_all(sv[0], &one, 1, &sent), AFPB_ETIMEOUT);
    CHECK(sent < sizeof big);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    RUN(test_parse_hostport);
    RUN(test_connect_refused);
    RUN(test_connect_and_timeouts);
    RUN(test_writev_all);
    return harness_report();
}

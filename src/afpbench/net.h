/* TCP transport primitives: connect and every wait bounded by a timeout.
 * Functions return 0 (or a byte count / fd) on success and a negative
 * AFPB_E* code (see dsi.h) on failure, with a message in err when given. */
#ifndef AFPBENCH_NET_H
#define AFPBENCH_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Parse "HOST", "HOST:PORT", "[V6ADDR]" or "[V6ADDR]:PORT". host receives the
 * bare host (no brackets); port keeps default_port when none is given.
 * Returns 0, or -1 with a message in err. */
int net_parse_hostport(const char *spec, uint16_t default_port, char *host, size_t hostcap,
                       uint16_t *port, char *err, size_t errlen);

/* TCP connect with a deadline; TCP_NODELAY set. Returns the fd or a negative
 * AFPB_E* code. The fd is blocking with SO_RCVTIMEO/SO_SNDTIMEO set to
 * timeout_ms, so one recv or writev is one syscall and can never hang. */
int net_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen);

/* Change the fd's receive/send timeouts (ms, > 0). 0 or AFPB_ENET. */
int net_set_timeouts(int fd, int timeout_ms);

/* Wait for events (POLLIN/POLLOUT) on fd. 0 when ready, AFPB_ETIMEOUT, or
 * AFPB_ENET on a poll error/hangup without the asked-for event. */
int net_wait(int fd, short events, int timeout_ms);

/* Write every byte of the iovec array (consumed entries get length 0): one
 * sendmsg (MSG_NOSIGNAL: no SIGPIPE) in the common case. A stall longer than
 * the fd's send timeout is AFPB_ETIMEOUT; *sent (may be NULL) tells how far
 * it got. 0 or AFPB_E*. */
int net_writev_all(int fd, struct iovec *iov, int iovcnt, size_t *sent);

/* One recv of up to len bytes. Returns bytes read (> 0), AFPB_ECLOSED on EOF
 * or reset, AFPB_ETIMEOUT when nothing came within the fd's receive timeout,
 * or AFPB_ENET. */
ssize_t net_recv_some(int fd, void *buf, size_t len);
/* What a recv that returned n <= 0 means (errno as it left it): as
 * net_recv_some's results, or 0 when it was interrupted and may be retried. */
ssize_t net_recv_status(ssize_t n);

#endif

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

/* Non-blocking TCP connect with a deadline; TCP_NODELAY set. Returns the fd
 * (left non-blocking) or a negative AFPB_E* code. */
int net_connect(const char *host, uint16_t port, int timeout_ms, char *err, size_t errlen);

/* Wait for events (POLLIN/POLLOUT) on fd. 0 when ready, AFPB_ETIMEOUT, or
 * AFPB_ENET on a poll error/hangup without the asked-for event. */
int net_wait(int fd, short events, int timeout_ms);

/* Write every byte of the iovec array (modified in place) with one writev in
 * the common case; each stall waits at most timeout_ms. 0 or AFPB_E*. */
int net_writev_all(int fd, struct iovec *iov, int iovcnt, int timeout_ms);

/* One recv of up to len bytes, waiting at most timeout_ms for the first byte.
 * Returns bytes read (> 0), AFPB_ECLOSED on orderly EOF, AFPB_ETIMEOUT or
 * AFPB_ENET. */
ssize_t net_recv_some(int fd, void *buf, size_t len, int timeout_ms);

/* Milliseconds on the monotonic clock. */
int64_t net_now_ms(void);

#endif

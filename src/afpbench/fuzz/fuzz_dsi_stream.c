/* libFuzzer target: the DSI receive engine (dsi_recv_reply) reading an
 * arbitrary byte stream from the "server" end of a socketpair: headers,
 * tickles, attentions, close requests and replies of any claimed length. */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dsi.h"
#include "fuzz.h"
#include "net.h"

#define STREAM_MAX 60000 /* stays below the socket buffer, so the write never blocks */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > STREAM_MAX)
        size = STREAM_MAX;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 0;
    int bufsz = 1 << 18;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof bufsz);
    struct dsi_conn c;
    if (dsi_init(&c, 1000) != 0)
        abort();
    c.fd = sv[0];
    net_set_timeouts(sv[0], 1000);
    if (size && write(sv[1], data, size) != (ssize_t)size)
        abort();
    shutdown(sv[1], SHUT_WR); /* then EOF: the engine never waits */
    uint8_t afp[2] = {0x3C, 0x00};
    static uint8_t dst[300];
    /* The first request's ID is 0: seeds can answer it. */
    for (int i = 0; i < 8; i++) {
        uint16_t id;
        if (dsi_send(&c, DSI_COMMAND, afp, sizeof afp, NULL, 0, &id) != 0)
            break;
        struct dsi_reply r;
        int rc = (i & 1) ? dsi_recv_reply(&c, id, dst, sizeof dst, &r)
                         : dsi_recv_reply(&c, id, NULL, 0, &r);
        if (rc != 0)
            break;
        if (r.length > DSI_MAX_CMD_REPLY || ((i & 1) && r.length > sizeof dst))
            abort(); /* a length beyond what was allowed got through */
    }
    dsi_free(&c);
    close(sv[1]);
    return 0;
}

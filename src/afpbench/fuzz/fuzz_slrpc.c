/* libFuzzer target: slrpc_parse_reply (an FPSpotlightRPC reply's payload). */
#include <stdlib.h>

#include "fuzz.h"
#include "slrpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct slrpc_reply r;
    char err[160];
    int rc = slrpc_parse_reply(data, size, &r, err, sizeof err);
    /* a count is never more than the words the reply holds */
    if (rc == 0 && r.has_cnids && r.cnids > size / 8)
        abort();
    if (rc != 0 && err[0] == '\0')
        abort();
    return 0;
}

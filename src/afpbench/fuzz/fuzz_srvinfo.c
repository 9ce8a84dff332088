/* libFuzzer target: srvinfo_decode (DSIGetStatus reply). */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct srvinfo si;
    if (srvinfo_decode(data, size, &si) == 0) {
        /* Every kept string is terminated inside its field. */
        if (!memchr(si.server_name, 0, sizeof si.server_name) ||
            !memchr(si.machine_type, 0, sizeof si.machine_type))
            abort();
    }
    return 0;
}

/* libFuzzer target: dsi_header_decode. */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct dsi_header h;
    if (dsi_header_decode(data, size, &h) == 0 && size < DSI_HEADER_LEN)
        abort(); /* accepted a short header */
    return 0;
}

/* libFuzzer target: dsi_opensession_decode (DSIOpenSession reply options). */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t quantum = 0, replay = 0;
    (void)dsi_opensession_decode(data, size, &quantum, &replay);
    return 0;
}

/* libFuzzer target: afp_dec_enumerate for FPEnumerate (1-byte record lengths). */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned count = 0;
    if (afp_dec_enumerate(data, size, false, NULL, NULL, &count) == 0 && count * 2u + 6 > size)
        abort(); /* more records than bytes to hold them */
    return 0;
}

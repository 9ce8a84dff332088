/* libFuzzer target: afp_dec_forkparms (FPGetForkParms reply). */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct afp_params p;
    (void)afp_dec_forkparms(data, size, &p);
    return 0;
}

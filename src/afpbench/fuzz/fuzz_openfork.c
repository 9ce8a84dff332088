/* libFuzzer target: afp_dec_openfork (FPOpenFork reply). */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct afp_params p;
    afp_fork_t f;
    (void)afp_dec_openfork(data, size, &f, &p);
    (void)afp_dec_openfork(data, size, &f, NULL);
    return 0;
}

/* libFuzzer target: afp_dec_volparms (FPOpenVol / FPGetVolParms reply). */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct afp_volparms vp;
    if (afp_dec_volparms(data, size, &vp) == 0 && !memchr(vp.name, 0, sizeof vp.name))
        abort();
    return 0;
}

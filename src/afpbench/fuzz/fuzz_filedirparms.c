/* libFuzzer target: afp_dec_filedirparms (FPGetFileDirParms reply). */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "dsi.h"
#include "fuzz.h"
#include "srvinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct afp_params p;
    if (afp_dec_filedirparms(data, size, &p) == 0 && (!memchr(p.long_name, 0, sizeof p.long_name) ||
                                                      !memchr(p.utf8_name, 0, sizeof p.utf8_name)))
        abort();
    return 0;
}

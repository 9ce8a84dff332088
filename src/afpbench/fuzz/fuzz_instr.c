/* libFuzzer target: instr_parse (valgrind callgrind/cachegrind files). */
#include <stdlib.h>

#include "fuzz.h"
#include "instr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct instr_profile p;
    char err[256];
    instr_profile_init(&p);
    if (instr_parse((const char *)data, size, &p, err, sizeof err) == 0) {
        /* Accepted: the functions add up to the total. */
        uint64_t sum = 0;
        for (size_t i = 0; i < p.cap; i++)
            if (p.funcs[i].name != NULL)
                sum += p.funcs[i].ir;
        if (sum != p.total)
            abort();
    } else if (p.nfuncs != 0) {
        abort();
    }
    instr_profile_free(&p);
    return 0;
}

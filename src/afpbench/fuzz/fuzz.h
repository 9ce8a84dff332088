/* Shared declaration of the libFuzzer entry point each fuzz_*.c defines. The
 * same files link against fuzz/replay.c for the corpus replay in make check. */
#ifndef AFPBENCH_FUZZ_H
#define AFPBENCH_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

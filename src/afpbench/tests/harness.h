/* Minimal unit-test harness shared by every tests/test_*.c binary.
 *
 *   static void test_something(void) { CHECK(x == 1); CHECK_MEM(got, want, n); }
 *   int main(void) { RUN(test_something); return harness_report(); }
 *
 * harness_report() prints the plain line "N passed, N failed" that
 * tests/run-all.sh adds up; a failed check prints file:line and continues. */
#ifndef AFPBENCH_TESTS_HARNESS_H
#define AFPBENCH_TESTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

bool harness_check(bool ok, const char *expr, const char *file, int line);
bool harness_check_int(long long got, long long want, const char *expr, const char *file, int line);
bool harness_check_str(const char *got, const char *want, const char *expr, const char *file,
                       int line);
bool harness_check_mem(const void *got, size_t got_len, const void *want, size_t want_len,
                       const char *expr, const char *file, int line);
void harness_run(void (*fn)(void), const char *name);
int harness_report(void);
/* Read a whole file (for corpus/golden files); NULL when unreadable. Free it. */
uint8_t *harness_read_file(const char *path, size_t *len);

#define CHECK(cond) harness_check((cond), #cond, __FILE__, __LINE__)
#define CHECK_INT(got, want)                                                                       \
    harness_check_int((long long)(got), (long long)(want), #got, __FILE__, __LINE__)
#define CHECK_STR(got, want) harness_check_str((got), (want), #got, __FILE__, __LINE__)
#define CHECK_MEM(got, got_len, want, want_len)                                                    \
    harness_check_mem((got), (got_len), (want), (want_len), #got, __FILE__, __LINE__)
#define RUN(fn) harness_run(fn, #fn)

#endif

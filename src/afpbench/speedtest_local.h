/* speedtest's local mode (-L, -P DIR): the tests with POSIX IO on a local
 * directory instead of a server. The driver (speedtest.c) runs a test here
 * as it runs one against the server: its directory made, the warm-up and
 * measured runs, then the check and the clean-up. Each returns 0 or an
 * EXIT_* code, the failure recorded in t and in c's results. */
#ifndef AFPBENCH_SPEEDTEST_LOCAL_H
#define AFPBENCH_SPEEDTEST_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "speedtest.h"

/* Make the test's directory (under -P DIR, or the current one); its path
 * into dir. */
int speedtest_local_prepare(struct st *c, struct result_test *t, enum speedtest_op op, char *dir,
                            size_t dirlen);
/* One run of op on a file of size bytes in dir, its time in *us; first:
 * the test's first run (its source written afresh, as with -N every run). */
int speedtest_local_run(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                        const char *dir, int first, uint64_t *us);
/* After the runs (rc: how they ended): the file written or copied read back
 * and checked when they succeeded, then the directory removed. rc, or the
 * check's failure. */
int speedtest_local_finish(struct st *c, struct result_test *t, enum speedtest_op op, uint64_t size,
                           const char *dir, int rc);

#endif

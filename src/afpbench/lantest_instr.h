/* lantest --instr-dir: each test iteration in its own AFP session, counted
 * in afpd instructions by the instrumented server (lantest_instr.c): the
 * hooks the runner (lantest.c) calls when c->instr is set. */
#ifndef AFPBENCH_LANTEST_INSTR_H
#define AFPBENCH_LANTEST_INSTR_H

#include "lantest.h"

/* After the test directory is made: end the set-up session and measure
 * the empty sessions. 0 or an exit code (recorded in c->res). */
int lt_instr_start(struct lt *c);
/* Open the session test c->test_id runs in (c->s, c->vol, c->io). */
int lt_instr_before_test(struct lt *c);
/* The test returned rc: log out, read the session's count into its
 * sample. Returns rc, or the failure to count when rc was 0. */
int lt_instr_after_test(struct lt *c, int rc);
/* After the tests: a session for removing the test directory. */
int lt_instr_finish(struct lt *c);
/* AFP ops of every session ended so far (the client CPU figure). */
uint64_t lt_instr_ops(const struct lt *c);
void lt_instr_free(struct lt *c);

#endif

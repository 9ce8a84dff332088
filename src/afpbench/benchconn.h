/* Opening the AFP session both suites run on: DSIGetStatus (the server's
 * identity for the results), connect, log in, open the volume, find the
 * server's processes for IO monitoring. Failures are recorded in the
 * results with afp_lantest's exit codes. */
#ifndef AFPBENCH_BENCHCONN_H
#define AFPBENCH_BENCHCONN_H

#include <stdint.h>

#include "cli.h"
#include "commands.h"
#include "iomon.h"
#include "results.h"
#include "srvfiles.h"

struct afp_session;

/* On success *s is a logged-in session, *vol the volume ID, and io started
 * on conn->proc_root (r->io points to it; whether monitoring is on, and
 * why not, is in io and on stderr: a run without it still goes ahead);
 * returns 0. Otherwise returns the exit code (failure recorded in r); *s may
 * still be set and must be freed. srv is always initialised: when our afpd
 * was found, the server's root is open in it and afp.conf hashed into
 * r->server.afp_conf_sha256; the caller srvfiles_close()s it. */
int benchconn_open(const struct cli_conn *conn, struct results *r, struct afp_session **s,
                   uint16_t *vol, struct iomon *io, struct srvfiles *srv);

/* Open another volume on the same session (speedtest -S). */
int benchconn_open_volume(struct afp_session *s, const char *name, struct results *r,
                          uint16_t *vol);

/* End the session (s may be NULL): count its AFP ops for the results' CPU
 * figure, log out unless the connection is lost, free it. */
void benchconn_close(struct afp_session *s, int connection_lost, struct results *r);

/* A failed call of a suite's test t (NULL: of no test) recorded in r: the
 * call's result and the session's detail after what; a local failure
 * (network, timeout, malformed reply) is EXIT_NETWORK and sets *lost, the
 * connection being unusable. Returns the exit code. */
int benchconn_fail(struct results *r, struct afp_session *s, int *lost, struct result_test *t,
                   int rc, int code, const char *what);

/* The testbed of a suite that needs many files (untimed): n empty files
 * PREFIX000001, PREFIX000002, ... in directory did; *made counts those made
 * so far. 0 or the failing call's result code (the run's deadline and a stop
 * signal end it there too, as every request: AFPB_ETIMEOUT). */
int benchconn_make_files(struct afp_session *s, uint16_t vol, uint32_t did, const char *prefix,
                         unsigned n, unsigned *made);

/* Remove a file or a whole directory tree (best effort, untimed). 0 or the
 * first failure's result code; a missing object is 0. */
int benchconn_delete_tree(struct afp_session *s, uint16_t vol, uint32_t did, const char *name);

#endif

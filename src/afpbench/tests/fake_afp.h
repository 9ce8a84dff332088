/* A scripted in-process AFP server for the unit tests of session.c and
 * xfer.c, over a real TCP connection on the loopback address.
 *
 * It is a mock: it plays back exactly the behaviours under test (a small
 * quantum, a file that ends mid-window, a server that misreports a write,
 * a refused login), which a real netatalk cannot be made to do on demand.
 * The real server is covered by tests/integration.sh and
 * scripts/tests/afpbench.bats. */
#ifndef AFPBENCH_TESTS_FAKE_AFP_H
#define AFPBENCH_TESTS_FAKE_AFP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "session.h"

#define FAKE_QUANTUM 4096
#define FAKE_FILE_SIZE 10000 /* what FPRead(Ext) finds in every fork */
#define FAKE_SEED 1          /* pattern seed of the writes it checks, and of serve_pattern */
#define FAKE_MAX_FORKS 8     /* refnums 1..8, then kFPTooManyFilesOpen */

struct fake {
    int listen_fd;
    uint16_t port;
    bool lie_about_writes; /* report one byte less than written */
    bool serve_pattern;    /* reads return the pattern (pattern.h), else fake_file_byte */
    uint64_t corrupt_at;   /* not 0: the file's byte at offset corrupt_at - 1 is read flipped */
    unsigned writes_ok;    /* write payloads that held the pattern for their offset */
    unsigned writes;
    unsigned commands;
    /* As netatalk: after an AFP 2.x login, FPReadExt and FPWriteExt are
     * kFPCallNotSupported. The calls seen, by family: */
    unsigned reads32, reads64, writes32, writes64;
    char login_version[64]; /* the version string of the last FPLogin */
    /* FPOpenFork hands out refnums 1, 2, ...; FPCloseFork marks them closed.
     * As netatalk, FPDelete is kFPFileBusy while any fork is open. */
    unsigned forks_opened;
    bool fork_open[FAKE_MAX_FORKS + 1];
    pthread_t thread;
};

/* The bytes of the fake's file unless serve_pattern: not the pattern. */
uint8_t fake_file_byte(uint64_t off);

/* Listen on a free loopback port and serve one connection in a thread. */
void fake_start(struct fake *f);
/* Wait until the connection ended (a DSICloseSession or a close). */
void fake_stop(struct fake *f);
/* fake_start, then a session connected and logged in (AFP3.4). */
struct afp_session *fake_logged_in(struct fake *f);
/* The same with another AFP version string, e.g. "AFP2.2". */
struct afp_session *fake_logged_in_as(struct fake *f, const char *afp_version);
/* Forks the fake holds open. */
unsigned fake_open_forks(const struct fake *f);

#endif

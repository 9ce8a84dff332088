/* afpbench smoke: one end-to-end pass through the AFP client layer against a
 * real server. Logs in, opens the volume, makes a fresh directory and a file,
 * writes an offset-dependent pattern (pipelined FPWriteExt through xfer.h,
 * the suites' transfer engine), checks the size, reads it back (pipelined
 * FPReadExt) and compares, exercises FPRead/FPWrite,
 * a byte-range lock and FPEnumerateExt2, then deletes everything and logs out.
 * Exit codes follow afp_lantest: 3 file/dir op, 4 fork op, 5 network/protocol,
 * 7 read-back mismatch, 8 bad parameter, 9 volume, 10 login. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "dsi.h"
#include "net.h"
#include "pattern.h"
#include "session.h"
#include "xfer.h"

#define SMOKE_DEFAULT_BYTES (3u * 1024 * 1024 + 4099) /* several quanta plus an odd tail */
#define SMOKE_DEFAULT_TIMEOUT_S 30
#define SMOKE_FILE "smoke.bin"
#define SMOKE_CHUNK_MAX (16u * 1024 * 1024) /* chunks never exceed it */
#define SMOKE_PATTERN_SEED 1

struct smoke_opts {
    struct cli_common common; /* the server: the option layer's (cli.h) */
    uint64_t bytes;
    unsigned window;
    int timeout_s;
};

static int find_entry(void *ctx, const struct afp_params *e)
{
    int *found = ctx;
    if (!e->is_dir && strcmp(e->utf8_name, SMOKE_FILE) == 0)
        *found = 1;
    return 0;
}

void smoke_usage(FILE *out)
{
    fprintf(out,
            "usage: afpbench smoke [-h HOST] [-p PORT] [-u USER] [-w PASS] [-s VOLUME]\n"
            "                      [-b BYTES] [-r WINDOW] [-t SECONDS] [-V AFPVERSION]\n"
            "  Log in (Cleartxt Passwrd), create a file in a fresh directory, write an\n"
            "  offset-dependent pattern, read it back and compare, delete, log out.\n"
            "  Unset options come from AFP_HOST, AFP_PORT, AFP_USER, AFP_PASS, SHARE_NAME,\n"
            "  as every suite's do (host: localhost, user: the current one).\n"
            "  -b BYTES    file size (default %u)     -r WINDOW  requests in flight (default 2)\n"
            "  -t SECONDS  per-wait timeout (default %d)  -V  AFP version (default %s)\n"
            "exit: 0 ok, 1 usage, 3 file/dir op, 4 fork op, 5 network/protocol,\n"
            "      7 read-back mismatch, 8 bad parameter, 9 volume, 10 login\n",
            SMOKE_DEFAULT_BYTES, SMOKE_DEFAULT_TIMEOUT_S, AFP_DEFAULT_VERSION);
}

/* smoke's own options, through the option layer (cli_parse). */
static int smoke_option(void *ctx, int opt, const char *arg)
{
    struct smoke_opts *o = ctx;
    unsigned long long v;
    switch (opt) {
    case 'V':
        o->common.conn.afp_version = arg;
        return 0;
    case 'b':
        if (cli_parse_uint(arg, 1, 1ull << 40, &v) != 0) {
            fprintf(stderr, "afpbench smoke: -b wants a byte count >= 1\n");
            return EXIT_USAGE;
        }
        o->bytes = v;
        return 0;
    case 'r':
        if (cli_parse_uint(arg, 1, XFER_MAX_WINDOW, &v) != 0) {
            fprintf(stderr, "afpbench smoke: -r wants 1-%d\n", XFER_MAX_WINDOW);
            return EXIT_USAGE;
        }
        o->window = (unsigned)v;
        return 0;
    case 't':
        if (cli_parse_uint(arg, 1, 3600, &v) != 0) {
            fprintf(stderr, "afpbench smoke: -t wants seconds 1-3600\n");
            return EXIT_USAGE;
        }
        o->timeout_s = (int)v;
        return 0;
    default:
        return CLI_NOT_MINE;
    }
}

static const struct cli_command smoke_command = {
    .name = "smoke",
    .shortopts = "b:r:t:V:",
    .longopts = NULL,
    .option = smoke_option,
    .usage = smoke_usage,
    .environment_only = 1,
};

/* Returns 0, or the exit status after saying why. */
static int parse_smoke_args(int argc, char **argv, struct smoke_opts *o)
{
    memset(o, 0, sizeof *o);
    o->bytes = SMOKE_DEFAULT_BYTES;
    o->window = 2;
    o->timeout_s = SMOKE_DEFAULT_TIMEOUT_S;
    int rc = cli_parse(&smoke_command, argc, argv, &o->common, o);
    if (rc == 0)
        rc = cli_common_finish(&o->common, "smoke");
    if (rc != 0)
        return rc;
    const struct cli_conn *c = &o->common.conn;
    if (o->common.have_base || o->common.json_path != NULL) {
        fprintf(stderr, "afpbench smoke: %s is for the suites; smoke tests one server\n",
                o->common.have_base ? "--base-host" : "--json");
        return EXIT_USAGE;
    }
    if (strlen(c->password) > AFP_CLEARTEXT_PASSLEN) {
        fprintf(stderr,
                "afpbench smoke: the password is longer than %d characters, which the "
                "cleartext UAM cannot send\n",
                AFP_CLEARTEXT_PASSLEN);
        return EXIT_PARAM;
    }
    /* FPReadExt/FPWriteExt need AFP 3.x. */
    if (strncmp(c->afp_version, "AFP3.", 5) != 0 && strcmp(c->afp_version, "AFPX03") != 0) {
        fprintf(stderr, "afpbench smoke: -V '%s': use AFPX03 or AFP3.1-AFP3.4\n", c->afp_version);
        return EXIT_PARAM;
    }
    return 0;
}

/* Exit code for a failed step: local failures are network/protocol errors. */
static int step_exit(int rc, int afp_exit)
{
    return afpb_is_local_error(rc) ? EXIT_NETWORK : afp_exit;
}

static int step_failed(struct afp_session *s, int rc, int afp_exit)
{
    fprintf(stderr, "afpbench smoke: %s\n", afp_session_error(s));
    return step_exit(rc, afp_exit);
}

struct smoke_state {
    struct afp_session *s;
    const struct smoke_opts *o;
    uint16_t vol;
    uint32_t did;
    char dirname[64];
    afp_fork_t fork;
    bool have_dir, have_file, fork_open;
    uint8_t *buf;           /* chunk bytes: what FPReadExt returns */
    struct pattern_buf pat; /* chunk-sized source of the pattern */
    uint32_t chunk;
};

/* A failed transfer: a fault of the data (xfer.h) is a validation failure,
 * anything else the session's. */
static int xfer_failed(struct afp_session *s, int rc, const char *what, const struct xfer_fault *f)
{
    if (!xfer_is_fault(rc))
        return step_failed(s, rc, EXIT_FORK);
    char why[160];
    fprintf(stderr, "afpbench smoke: %s: %s\n", what, xfer_fault_text(rc, f, why, sizeof why));
    return EXIT_VALIDATION;
}

/* Write, size-check, read back and compare; the fork is open read/write.
 * The file holds the suites' offset pattern (pattern.h), so a misplaced,
 * repeated or zeroed chunk cannot compare equal. */
static int smoke_data(struct smoke_state *st)
{
    struct afp_session *s = st->s;
    const struct smoke_opts *o = st->o;
    struct xfer_fault fault = {0};
    int rc = xfer_write(s, st->fork, o->bytes, st->chunk, o->window, &st->pat, &fault);
    if (rc)
        return xfer_failed(s, rc, "FPWriteExt", &fault);
    rc = afp_flushfork(s, st->fork);
    if (rc)
        return step_failed(s, rc, EXIT_FORK);
    struct afp_params fp;
    rc = afp_getforkparms(s, st->fork, AFP_FILE_EXTDFLEN, &fp);
    if (rc)
        return step_failed(s, rc, EXIT_FORK);
    if (fp.ext_data_len != o->bytes) {
        fprintf(stderr, "afpbench smoke: file size %" PRIu64 " after writing %" PRIu64 " bytes\n",
                fp.ext_data_len, o->bytes);
        return EXIT_VALIDATION;
    }
    fprintf(stderr, "smoke: wrote %" PRIu64 " bytes (FPWriteExt, window %u)\n", o->bytes,
            o->window);

    rc = xfer_read(s, st->fork, o->bytes, st->chunk, o->window, st->buf, &st->pat, &fault);
    if (rc)
        return xfer_failed(s, rc, "read-back (FPReadExt)", &fault);
    fprintf(stderr, "smoke: read back and verified %" PRIu64 " bytes (FPReadExt)\n", o->bytes);

    /* The 32-bit calls: overwrite 100 bytes in place, read them back, and one
     * past the end to see the short read the server reports as EOF. */
    uint8_t small[100];
    pattern_fill(small, 7, sizeof small, SMOKE_PATTERN_SEED);
    uint32_t next32 = 0;
    rc = afp_write(s, st->fork, 7, small, sizeof small, &next32);
    if (rc)
        return step_failed(s, rc, EXIT_FORK);
    size_t got = 0;
    memset(small, 0, sizeof small);
    rc = afp_read(s, st->fork, 7, sizeof small, small, &got);
    if (rc)
        return step_failed(s, rc, EXIT_FORK);
    if (next32 != 107 || got != sizeof small ||
        pattern_check(small, 7, got, SMOKE_PATTERN_SEED) >= 0) {
        fprintf(stderr, "afpbench smoke: FPWrite/FPRead round trip failed (end %u, %zu bytes)\n",
                next32, got);
        return EXIT_VALIDATION;
    }
    uint64_t size = o->bytes > 107 ? o->bytes : 107;
    if (size <= UINT32_MAX - 10) {
        rc = afp_read(s, st->fork, (uint32_t)size - 1, 10, small, &got);
        if (rc != AFPERR_EOF || got != 1) {
            fprintf(stderr, "afpbench smoke: read across end of file gave %s with %zu bytes\n",
                    afp_strerror(rc), got);
            return rc && afpb_is_local_error(rc) ? EXIT_NETWORK : EXIT_VALIDATION;
        }
    }

    /* Lock and unlock a range (the server must report where it starts). */
    uint64_t start = 0;
    rc = afp_byterangelock_ext(s, st->fork, 0, 10, 20, &start);
    if (rc == 0 && start != 10)
        rc = AFPB_EPROTO;
    if (rc == 0)
        rc = afp_byterangelock_ext(s, st->fork, AFP_LOCK_UNLOCK, 10, 20, NULL);
    if (rc)
        return step_failed(s, rc, EXIT_FORK);
    return EXIT_OK;
}

static int smoke_files(struct smoke_state *st)
{
    struct afp_session *s = st->s;
    snprintf(st->dirname, sizeof st->dirname, "smoke-%ld-%ld", (long)getpid(), (long)time(NULL));
    int rc = afp_createdir(s, st->vol, AFP_DID_ROOT, st->dirname, &st->did);
    if (rc)
        return step_failed(s, rc, EXIT_FILEDIR);
    st->have_dir = true;
    rc = afp_createfile(s, st->vol, st->did, SMOKE_FILE, false);
    if (rc)
        return step_failed(s, rc, EXIT_FILEDIR);
    st->have_file = true;
    rc = afp_openfork(s, st->vol, st->did, SMOKE_FILE, AFP_FORK_DATA, AFP_FILE_FNUM,
                      AFP_OPEN_READ | AFP_OPEN_WRITE | AFP_OPEN_DENY_WRITE, &st->fork, NULL);
    if (rc)
        return step_failed(s, rc, EXIT_FORK);
    st->fork_open = true;
    int ex = smoke_data(st);
    if (ex)
        return ex;
    rc = afp_closefork(s, st->fork);
    st->fork_open = false;
    if (rc)
        return step_failed(s, rc, EXIT_FORK);

    int found = 0;
    unsigned n = 0;
    rc = afp_enumerate_ext2(s, st->vol, st->did, "", AFP_FILE_UTF8NAME | AFP_FILE_EXTDFLEN,
                            AFP_DIR_UTF8NAME, 10, 1, 8192, find_entry, &found, &n);
    if (rc)
        return step_failed(s, rc, EXIT_FILEDIR);
    if (!found || n != 1) {
        fprintf(stderr, "afpbench smoke: FPEnumerateExt2 listed %u entries, file %s\n", n,
                found ? "found" : "missing");
        return EXIT_VALIDATION;
    }
    return EXIT_OK;
}

/* Best-effort removal of what the run created; reports only the first error. */
static int smoke_cleanup(struct smoke_state *st, int ex)
{
    struct afp_session *s = st->s;
    if (st->fork_open)
        (void)afp_closefork(s, st->fork);
    int rc = 0;
    if (st->have_file)
        rc = afp_delete(s, st->vol, st->did, SMOKE_FILE);
    if (rc == 0 && st->have_dir)
        rc = afp_delete(s, st->vol, AFP_DID_ROOT, st->dirname);
    if (rc && ex == EXIT_OK)
        ex = step_failed(s, rc, EXIT_FILEDIR);
    /* Gone for sure: the directory must no longer be found. */
    if (ex == EXIT_OK && st->have_dir) {
        rc = afp_getfiledirparms(s, st->vol, AFP_DID_ROOT, st->dirname, 0, AFP_DIR_DID, NULL);
        if (rc != AFPERR_NOOBJ) {
            fprintf(stderr, "afpbench smoke: '%s' still there after FPDelete (%s)\n", st->dirname,
                    afp_strerror(rc));
            ex = step_exit(rc, EXIT_FILEDIR);
        }
    }
    return ex;
}

static int smoke_run(const struct smoke_opts *o, struct afp_session *s)
{
    const struct cli_conn *c = &o->common.conn;
    afp_session_set_timeout(s, o->timeout_s * 1000);
    int rc = afp_session_connect(s, c->host, c->port);
    if (rc)
        return step_failed(s, rc, EXIT_NETWORK);
    rc = afp_session_login(s, c->afp_version, c->user, c->password);
    if (rc) {
        fprintf(stderr, "afpbench smoke: login failed: %s\n", afp_session_error(s));
        if (!afpb_is_local_error(rc))
            fprintf(stderr, "afpbench smoke: hint: check the user and password, and that "
                            "uams_clrtxt.so is in the server's 'uam list'\n");
        return step_exit(rc, EXIT_LOGIN);
    }
    fprintf(stderr, "smoke: logged in as %s (%s, quantum %u)\n", c->user, afp_session_version(s),
            afp_session_quantum(s));
    struct afp_volparms vp;
    rc = afp_openvol(s, c->volume, AFP_VOL_ATTR, &vp);
    if (rc == AFPERR_NOOBJ) {
        fprintf(stderr, "afpbench smoke: volume '%s' not found (or not allowed for '%s')\n",
                c->volume, c->user);
        return EXIT_VOLUME;
    }
    if (rc)
        return step_failed(s, rc, EXIT_VOLUME);

    /* One request's worth of data: a write request (parameters and data)
     * of at most the server's quantum (bounded). */
    struct smoke_state st = {.s = s, .o = o, .vol = vp.volid};
    uint32_t quantum = afp_session_quantum(s);
    st.chunk = quantum < SMOKE_CHUNK_MAX ? quantum : SMOKE_CHUNK_MAX;
    uint32_t fits = dsi_write_size(quantum);
    if (st.chunk > fits)
        st.chunk = fits;
    st.buf = malloc(st.chunk);
    if (st.buf == NULL || pattern_buf_init(&st.pat, st.chunk, SMOKE_PATTERN_SEED) != 0) {
        fprintf(stderr, "afpbench smoke: out of memory for %u-byte buffers\n", st.chunk);
        free(st.buf);
        return EXIT_ALLOC;
    }
    int ex = smoke_files(&st);
    ex = smoke_cleanup(&st, ex);
    pattern_buf_free(&st.pat);
    free(st.buf);
    if (ex == EXIT_OK) {
        rc = afp_logout(s);
        if (rc)
            return step_failed(s, rc, EXIT_NETWORK);
        printf("smoke: OK: %s:%u volume '%s': wrote, read back and deleted %" PRIu64
               " bytes in %" PRIu64 " AFP commands\n",
               c->host, c->port, c->volume, o->bytes, afp_session_ops(s));
    }
    return ex;
}

int smoke_main(int argc, char **argv)
{
    struct smoke_opts o;
    int perr = parse_smoke_args(argc, argv, &o);
    if (perr != 0)
        return perr;
    struct afp_session *s = afp_session_new();
    if (!s) {
        fprintf(stderr, "afpbench smoke: out of memory\n");
        return EXIT_ALLOC;
    }
    int ex = smoke_run(&o, s);
    afp_session_free(s);
    return ex;
}

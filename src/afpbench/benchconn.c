/* Session set-up and end shared by lantest and speedtest. */
#include "benchconn.h"

#include <stdio.h>
#include <stdlib.h>

#include "deadline.h"
#include "session.h"
#include "srvinfo.h"

static void record_server(struct results *r, const struct srvinfo *si)
{
    struct results_server *s = &r->server;
    s->known = 1;
    snprintf(s->name, sizeof s->name, "%s", si->utf8_name[0] ? si->utf8_name : si->server_name);
    snprintf(s->machine_type, sizeof s->machine_type, "%s", si->machine_type);
    for (unsigned i = 0; i < si->n_versions && i < SRVINFO_MAX_LIST && i < 16; i++)
        snprintf(s->versions[s->n_versions++], sizeof s->versions[0], "%s", si->versions[i]);
    for (unsigned i = 0; i < si->n_uams && i < SRVINFO_MAX_LIST && i < 16; i++)
        snprintf(s->uams[s->n_uams++], sizeof s->uams[0], "%s", si->uams[i]);
}

int benchconn_open_volume(struct afp_session *s, const char *name, struct results *r, uint16_t *vol)
{
    struct afp_volparms vp;
    int rc = afp_openvol(s, name, AFP_VOL_ATTR, &vp);
    if (rc != 0) {
        int code = afpb_is_local_error(rc) ? EXIT_NETWORK : EXIT_VOLUME;
        results_fail(r, code, "cannot open volume '%s': %s %s", name, afp_strerror(rc),
                     afp_session_error(s));
        return code;
    }
    *vol = vp.volid;
    return 0;
}

void benchconn_close(struct afp_session *s, int connection_lost, struct results *r)
{
    if (s == NULL)
        return;
    r->cpu_afp_ops = afp_session_ops(s);
    if (!connection_lost)
        afp_logout(s);
    afp_session_free(s);
}

/* The server's afp.conf through our afpd's proc root: its hash for the
 * results, and what was found said on stderr. */
static void record_server_conf(struct results *r, const struct iomon *io, struct srvfiles *srv)
{
    srvfiles_open(srv, io->proc_root, io->enabled ? io->afpd_pid : 0);
    snprintf(r->server.afp_conf_sha256, sizeof r->server.afp_conf_sha256, "%s", srv->conf_sha256);
    snprintf(r->server.afp_conf_settings, sizeof r->server.afp_conf_settings, "%s",
             srv->conf_settings);
    if (srv->conf_sha256[0] != '\0')
        fprintf(stderr, "Server config: %s (through %s), sha256 %s%s%s\n", srv->conf_path,
                srv->root_path, srv->conf_sha256,
                srv->conf_settings[0] ? ", settings under test: " : "", srv->conf_settings);
    else
        fprintf(stderr, "Server config: unknown: %s\n", srv->note);
}

int benchconn_open(const struct cli_conn *conn, struct results *r, struct afp_session **sp,
                   uint16_t *vol, struct iomon *io, struct srvfiles *srv)
{
    struct srvinfo si;
    char err[200] = "";

    *sp = NULL;
    srvfiles_init(srv);
    int rc = srvinfo_fetch(conn->host, conn->port, deadline_request_ms(), &si, err, sizeof err);
    if (rc != 0) {
        results_fail(r, EXIT_NETWORK, "cannot get the status of %s port %u: %s", conn->host,
                     conn->port, err[0] ? err : afp_strerror(rc));
        return EXIT_NETWORK;
    }
    record_server(r, &si);

    struct afp_session *s = afp_session_new();
    *sp = s;
    if (s == NULL) {
        results_fail(r, EXIT_ALLOC, "out of memory");
        return EXIT_ALLOC;
    }
    if ((rc = afp_session_connect(s, conn->host, conn->port)) != 0) {
        results_fail(r, EXIT_NETWORK, "cannot connect to %s port %u: %s %s", conn->host, conn->port,
                     afp_strerror(rc), afp_session_error(s));
        return EXIT_NETWORK;
    }
    r->server.quantum = afp_session_quantum(s);
    if (afp_session_quantum(s) > DSI_REQUEST_DEFAULT_MAX)
        fprintf(stderr,
                "Server quantum: %u bytes; requests are capped at %u bytes (speedtest -q asks "
                "for more, up to %u)\n",
                afp_session_quantum(s), DSI_REQUEST_DEFAULT_MAX, DSI_REQUEST_HARD_MAX);
    if ((rc = afp_session_login(s, conn->afp_version, conn->user, conn->password)) != 0) {
        int code = rc == AFPB_EPARAM         ? EXIT_PARAM
                   : afpb_is_local_error(rc) ? EXIT_NETWORK
                                             : EXIT_LOGIN;
        results_fail(r, code, "login as '%s' with %s and \"" AFP_UAM_CLEARTEXT "\" failed: %s %s%s",
                     conn->user, conn->afp_version, afp_strerror(rc), afp_session_error(s),
                     code == EXIT_LOGIN ? " (wrong password, unknown user, or uams_clrtxt.so "
                                          "not in the server's uam list)"
                                        : "");
        return code;
    }
    snprintf(r->server.afp_version, sizeof r->server.afp_version, "%s",
             afp_session_version(s) ? afp_session_version(s) : conn->afp_version);
    if ((rc = benchconn_open_volume(s, conn->volume, r, vol)) != 0)
        return rc;
    /* After the volume open: that is when the server starts its cnid_dbd. */
    iomon_start(io, conn->proc_root, afp_session_fd(s), conn->user, 0);
    if (conn->syscalls)
        iomon_count_syscalls(io, 0);
    else
        snprintf(io->sys.reason, sizeof io->sys.reason,
                 "system call counting off (--syscalls off)");
    r->io = io;
    record_server_conf(r, io, srv);
    return 0;
}

int benchconn_fail(struct results *r, struct afp_session *s, int *lost, struct result_test *t,
                   int rc, int code, const char *what)
{
    if (afpb_is_local_error(rc)) {
        code = EXIT_NETWORK;
        *lost = 1;
    }
    const char *detail = afp_session_error(s);
    return results_fail_test(r, t, code, "%s: %s%s%s", what, afp_strerror(rc),
                             detail[0] ? " - " : "", detail);
}

int benchconn_make_files(struct afp_session *s, uint16_t vol, uint32_t did, const char *prefix,
                         unsigned n, unsigned *made)
{
    for (unsigned i = 1; i <= n; i++) {
        char name[AFP_MAX_NAME + 1];
        snprintf(name, sizeof name, "%s%06u", prefix, i);
        int rc = afp_createfile(s, vol, did, name, false);
        if (rc != 0)
            return rc;
        *made = i;
    }
    return 0;
}

/* ---- recursive delete (untimed clean-up) ---- */

#define DELETE_BATCH 64
#define DELETE_MAX_DEPTH 64

struct name_batch {
    char names[DELETE_BATCH][AFP_MAX_NAME + 1];
    unsigned n;
};

static int collect_name(void *ctx, const struct afp_params *e)
{
    struct name_batch *b = ctx;
    if (b->n < DELETE_BATCH)
        snprintf(b->names[b->n++], sizeof b->names[0], "%s", e->long_name);
    return 0;
}

static int delete_tree(struct afp_session *s, uint16_t vol, uint32_t did, const char *name,
                       int depth)
{
    int rc = afp_delete(s, vol, did, name);
    if (rc == 0 || rc == AFPERR_NOOBJ || afpb_is_local_error(rc) || depth >= DELETE_MAX_DEPTH)
        return rc == AFPERR_NOOBJ ? 0 : rc;

    int refused = rc;
    struct afp_params p;
    rc = afp_getfiledirparms(s, vol, did, name, 0, AFP_DIR_DID, &p);
    if (rc != 0)
        return rc;
    if (!p.is_dir) /* a file that will not go (e.g. kFPFileBusy): say why */
        return refused;
    /* Delete the entries in batches; the listing shrinks as we go, so
     * always enumerate from the start until the directory is empty. */
    struct name_batch *b = malloc(sizeof *b);
    if (b == NULL)
        return AFPB_ENOMEM;
    for (int round = 0; round < 100000; round++) {
        b->n = 0;
        /* Plain FPEnumerate with long names works with every AFP version,
         * and the names lantest creates are ASCII. */
        rc = afp_enumerate(s, vol, p.id, "", AFP_FILE_LNAME, AFP_DIR_LNAME, DELETE_BATCH, 1, 8192,
                           collect_name, b, NULL);
        if (rc == AFPERR_NOOBJ || b->n == 0)
            break;
        if (rc != 0)
            goto out;
        for (unsigned i = 0; i < b->n; i++)
            if ((rc = delete_tree(s, vol, p.id, b->names[i], depth + 1)) != 0)
                goto out;
    }
    rc = afp_delete(s, vol, did, name);
out:
    free(b);
    return rc;
}

int benchconn_delete_tree(struct afp_session *s, uint16_t vol, uint32_t did, const char *name)
{
    return delete_tree(s, vol, did, name, 0);
}

/* Capture real server replies as golden vectors and fuzz seeds.
 *
 *   make capture && tests/capture_replies OUTDIR   (AFP_HOST, AFP_PORT, AFP_USER,
 *                                                  AFP_PASS, SHARE_NAME from the env)
 *
 * Drives the server through the DSI layer and the AFP encoders directly (no
 * session calls), so what it saves is exactly the reply payload each decoder
 * sees: OUTDIR/<decoder>/netatalk-<what>.bin. It builds a known layout in a
 * fresh directory (alpha.txt = "hello", beta.bin empty, sub-directory gamma),
 * which tests/test_golden.c relies on, and removes it again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afp.h"
#include "dsi.h"
#include "slrpc.h"
#include "srvinfo.h"

static const char *outdir;

static void save(const char *decoder, const char *what, const uint8_t *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", outdir, decoder);
    if (mkdir(path, 0755) && errno != EEXIST) {
        perror(path);
        exit(1);
    }
    snprintf(path, sizeof path, "%s/%s/netatalk-%s.bin", outdir, decoder, what);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
        perror(path);
        exit(1);
    }
    printf("saved %s (%zu bytes)\n", path, n);
}

/* Send the block, require result want, return the reply. */
static struct dsi_reply call(struct dsi_conn *c, const struct bw *w, int want, const char *what)
{
    struct dsi_reply r;
    int rc = dsi_transact(c, DSI_COMMAND, w->p, w->len, NULL, 0, NULL, 0, &r);
    if (!bw_ok(w) || rc || r.code != want) {
        fprintf(stderr, "capture: %s: rc %d code %d (%s) %s\n", what, rc, rc ? 0 : r.code,
                afp_strerror(rc ? rc : r.code), c->err);
        exit(1);
    }
    return r;
}

/* Spotlight's replies (slrpc.c) where the server has it on (netatalk 4.5):
 * a search by name that finds alpha.txt (and whatever else on
 * the volume has a name starting so), each reply saved without its 4-byte
 * head: the open, the first and the last fetch, the close. */
static struct dsi_reply spotlight_rpc(struct dsi_conn *c, uint16_t vol, const uint8_t *rpc,
                                      size_t n, const char *what)
{
    uint8_t req[1024];
    struct bw w;
    bw_init(&w, req, sizeof req);
    afp_enc_spotlight(&w, vol, AFP_SPOTLIGHT_RPC, rpc, n);
    struct dsi_reply r = call(c, &w, 0, what);
    if (r.length <= 4) {
        fprintf(stderr, "capture: %s: a reply of %u bytes\n", what, r.length);
        exit(1);
    }
    return r;
}

static void capture_spotlight(struct dsi_conn *c, uint16_t vol)
{
    uint8_t req[1024], rpc[512];
    struct bw w;
    struct dsi_reply r;
    bw_init(&w, req, sizeof req);
    afp_enc_spotlight(&w, vol, AFP_SPOTLIGHT_OPEN, NULL, 0);
    if (dsi_transact(c, DSI_COMMAND, w.p, w.len, NULL, 0, NULL, 0, &r) || r.code != 0) {
        printf("Spotlight is off on this server: no slrpc replies captured\n");
        return;
    }
    r = spotlight_rpc(c, vol, rpc,
                      slrpc_open_query(rpc, sizeof rpc, 9, "kMDItemFSName==\"alpha*\"cd"),
                      "open-query");
    save("slrpc", "open-query", r.data + 4, r.length - 4);
    for (int k = 0; k < 1000; k++) {
        r = spotlight_rpc(c, vol, rpc, slrpc_fetch_results(rpc, sizeof rpc, 9), "fetch");
        struct slrpc_reply out;
        char err[160];
        int more = slrpc_parse_reply(r.data + 4, r.length - 4, &out, err, sizeof err) == 0 &&
                   out.status == SLRPC_STATUS_MORE;
        if (k == 0)
            save("slrpc", "fetch-first", r.data + 4, r.length - 4);
        if (!more) {
            save("slrpc", "fetch-last", r.data + 4, r.length - 4);
            break;
        }
    }
    r = spotlight_rpc(c, vol, rpc, slrpc_close_query(rpc, sizeof rpc, 9), "close-query");
    save("slrpc", "close-query", r.data + 4, r.length - 4);
}

int main(int argc, char **argv)
{
    const char *host = getenv("AFP_HOST"), *port_s = getenv("AFP_PORT");
    const char *user = getenv("AFP_USER"), *pass = getenv("AFP_PASS");
    const char *vol_name = getenv("SHARE_NAME");
    if (argc != 2 || !host || !port_s || !user || !pass || !vol_name) {
        fprintf(stderr,
                "usage: AFP_HOST=.. AFP_PORT=.. AFP_USER=.. AFP_PASS=.. SHARE_NAME=.. "
                "%s OUTDIR\n",
                argv[0]);
        return 1;
    }
    outdir = argv[1];
    uint16_t port = (uint16_t)atoi(port_s);
    uint8_t req[1024];
    struct bw w;
    struct dsi_reply r;

    /* Status block on its own connection. */
    struct dsi_conn st;
    if (dsi_init(&st, 5000) || dsi_connect(&st, host, port) ||
        dsi_transact(&st, DSI_GETSTATUS, NULL, 0, NULL, 0, NULL, 0, &r)) {
        fprintf(stderr, "capture: status: %s\n", st.err);
        return 1;
    }
    save("srvinfo", "status", r.data, r.length);
    dsi_free(&st);

    struct dsi_conn c;
    if (dsi_init(&c, 10000) || dsi_connect(&c, host, port)) {
        fprintf(stderr, "capture: connect: %s\n", c.err);
        return 1;
    }
    uint8_t opts[8];
    size_t olen = dsi_opensession_encode(opts, sizeof opts, 1024);
    if (dsi_transact(&c, DSI_OPENSESSION, opts, olen, NULL, 0, NULL, 0, &r) || r.code) {
        fprintf(stderr, "capture: open session: %s\n", c.err);
        return 1;
    }
    save("opensession", "reply", r.data, r.length);

    bw_init(&w, req, sizeof req);
    afp_enc_login_cleartext(&w, "AFP3.4", user, pass);
    call(&c, &w, 0, "login");

    bw_init(&w, req, sizeof req);
    afp_enc_openvol(&w, AFP_VOL_ATTR | AFP_VOL_SIG | AFP_VOL_VID | AFP_VOL_NAME, vol_name);
    r = call(&c, &w, 0, "openvol");
    save("volparms", "openvol", r.data, r.length);
    struct afp_volparms vp;
    if (afp_dec_volparms(r.data, r.length, &vp))
        return 1;
    uint16_t vol = vp.volid;

    bw_init(&w, req, sizeof req);
    afp_enc_getvolparms(&w, vol, 0x0FFF);
    r = call(&c, &w, 0, "getvolparms");
    save("volparms", "getvolparms-all", r.data, r.length);

    char dirname[64];
    snprintf(dirname, sizeof dirname, "capture-%ld", (long)getpid());
    bw_init(&w, req, sizeof req);
    afp_enc_createdir(&w, vol, AFP_DID_ROOT, dirname, true);
    r = call(&c, &w, 0, "createdir");
    uint32_t did = be32_load(r.data);

    const uint16_t dir_all = 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040 | 0x0100 |
                             0x0200 | 0x0400 | 0x0800 | 0x1000 | 0x2000 | 0x8000;
    const uint16_t file_all = 0x0001 | 0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040 |
                              0x0100 | 0x0200 | 0x0400 | 0x0800 | 0x2000 | 0x4000 | 0x8000;

    bw_init(&w, req, sizeof req);
    afp_enc_createfile(&w, false, vol, did, "alpha.txt", true);
    call(&c, &w, 0, "createfile alpha");
    bw_init(&w, req, sizeof req);
    afp_enc_createfile(&w, false, vol, did, "beta.bin", true);
    call(&c, &w, 0, "createfile beta");
    bw_init(&w, req, sizeof req);
    afp_enc_createdir(&w, vol, did, "gamma", true);
    call(&c, &w, 0, "createdir gamma");

    bw_init(&w, req, sizeof req);
    afp_enc_openfork(&w, AFP_FORK_DATA, vol, did,
                     AFP_FILE_PDID | AFP_FILE_LNAME | AFP_FILE_FNUM | AFP_FILE_DFLEN,
                     AFP_OPEN_READ | AFP_OPEN_WRITE, "alpha.txt", true);
    r = call(&c, &w, 0, "openfork");
    save("openfork", "reply", r.data, r.length);
    afp_fork_t fork;
    if (afp_dec_openfork(r.data, r.length, &fork, NULL))
        return 1;

    bw_init(&w, req, sizeof req);
    afp_enc_writeext(&w, 0, fork, 0, 5);
    if (dsi_transact(&c, DSI_WRITE, req, w.len, "hello", 5, NULL, 0, &r) || r.code) {
        fprintf(stderr, "capture: write: %s\n", c.err);
        return 1;
    }
    bw_init(&w, req, sizeof req);
    afp_enc_getforkparms(&w, fork,
                         AFP_FILE_PDID | AFP_FILE_LNAME | AFP_FILE_DFLEN | AFP_FILE_EXTDFLEN |
                             AFP_FILE_UTF8NAME);
    r = call(&c, &w, 0, "getforkparms");
    save("forkparms", "reply", r.data, r.length);
    bw_init(&w, req, sizeof req);
    afp_enc_closefork(&w, fork);
    call(&c, &w, 0, "closefork");

    bw_init(&w, req, sizeof req);
    afp_enc_getfiledirparms(&w, vol, did, file_all, dir_all, "alpha.txt", true);
    r = call(&c, &w, 0, "getfiledirparms file");
    save("filedirparms", "file-all", r.data, r.length);
    bw_init(&w, req, sizeof req);
    afp_enc_getfiledirparms(&w, vol, AFP_DID_ROOT, file_all, dir_all, dirname, true);
    r = call(&c, &w, 0, "getfiledirparms dir");
    save("filedirparms", "dir-all", r.data, r.length);
    bw_init(&w, req, sizeof req);
    afp_enc_getfiledirparms(&w, vol, AFP_DID_ROOT, 0x0042, 0x0042, "", true);
    r = call(&c, &w, 0, "getfiledirparms root");
    save("filedirparms", "root-lname", r.data, r.length);

    /* The bitmaps afp_lantest uses for its FPEnumerate. */
    bw_init(&w, req, sizeof req);
    afp_enc_enumerate(&w, vol, did, 0x077D, 0x117F, 40, 1, 8192, "", true);
    r = call(&c, &w, 0, "enumerate");
    save("enumerate", "enumerate", r.data, r.length);
    bw_init(&w, req, sizeof req);
    afp_enc_enumerate_ext2(&w, vol, did, AFP_FILE_UTF8NAME | AFP_FILE_EXTDFLEN | AFP_FILE_FNUM,
                           AFP_DIR_UTF8NAME | AFP_DIR_DID | AFP_DIR_OFFCNT, 40, 1, 65000, "", true);
    r = call(&c, &w, 0, "enumerate_ext2");
    save("enumerate_ext2", "enumerate-ext2", r.data, r.length);

    capture_spotlight(&c, vol);

    const char *names[] = {"alpha.txt", "beta.bin", "gamma"};
    for (int i = 0; i < 3; i++) {
        bw_init(&w, req, sizeof req);
        afp_enc_delete(&w, vol, did, names[i], true);
        call(&c, &w, 0, "delete");
    }
    bw_init(&w, req, sizeof req);
    afp_enc_delete(&w, vol, AFP_DID_ROOT, dirname, true);
    call(&c, &w, 0, "delete dir");
    bw_init(&w, req, sizeof req);
    afp_enc_logout(&w);
    call(&c, &w, 0, "logout");
    dsi_close(&c);
    dsi_free(&c);
    return 0;
}

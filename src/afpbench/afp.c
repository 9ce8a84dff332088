/* AFP wire codecs and result names (see afp.h). */
#include "afp.h"

#include <stdio.h>
#include <string.h>

#define UTF8_HINT 0x08000103u /* kTextEncodingUTF8; netatalk ignores it on input */
#define PATH_TYPE_LONG 2
#define PATH_TYPE_UTF8 3

struct code_name {
    int code;
    const char *name;
};

static const struct code_name result_names[] = {
    {AFPB_OK, "OK (0)"},
    {AFPB_ENET, "network error (local)"},
    {AFPB_ETIMEOUT, "timeout: the server went silent (local)"},
    {AFPB_EPROTO, "malformed or unexpected data from the server (local)"},
    {AFPB_ECLOSED, "connection closed by the server (local)"},
    {AFPB_ENOMEM, "out of memory (local)"},
    {AFPB_EPARAM, "invalid request parameters (local)"},
    {AFPB_EDESYNC, "connection unusable after an earlier failure (local)"},
    {AFPERR_MAXSESS, "kFPNoMoreSessions (-1068)"},
    {AFPERR_ACCESS, "kFPAccessDenied (-5000)"},
    {AFPERR_AUTHCONT, "kFPAuthContinue (-5001)"},
    {AFPERR_BADUAM, "kFPBadUAM (-5002)"},
    {AFPERR_BADVERS, "kFPBadVersNum (-5003)"},
    {AFPERR_BITMAP, "kFPBitmapErr (-5004)"},
    {AFPERR_CANTMOVE, "kFPCantMove (-5005)"},
    {AFPERR_DENYCONF, "kFPDenyConflict (-5006)"},
    {AFPERR_DIRNEMPT, "kFPDirNotEmpty (-5007)"},
    {AFPERR_DFULL, "kFPDiskFull (-5008)"},
    {AFPERR_EOF, "kFPEOFErr (-5009)"},
    {AFPERR_BUSY, "kFPFileBusy (-5010)"},
    {AFPERR_NOITEM, "kFPItemNotFound (-5012)"},
    {AFPERR_LOCK, "kFPLockErr (-5013)"},
    {AFPERR_MISC, "kFPMiscErr (-5014)"},
    {AFPERR_NLOCK, "kFPNoMoreLocks (-5015)"},
    {AFPERR_EXIST, "kFPObjectExists (-5017)"},
    {AFPERR_NOOBJ, "kFPObjectNotFound (-5018)"},
    {AFPERR_PARAM, "kFPParamErr (-5019)"},
    {AFPERR_NORANGE, "kFPRangeNotLocked (-5020)"},
    {AFPERR_RANGEOVR, "kFPRangeOverlap (-5021)"},
    {AFPERR_SESSCLOS, "kFPSessClosed (-5022)"},
    {AFPERR_NOTAUTH, "kFPUserNotAuth (-5023)"},
    {AFPERR_NOOP, "kFPCallNotSupported (-5024)"},
    {AFPERR_BADTYPE, "kFPObjectTypeErr (-5025)"},
    {AFPERR_NFILE, "kFPTooManyFilesOpen (-5026)"},
    {AFPERR_SHUTDOWN, "kFPServerGoingDown (-5027)"},
    {AFPERR_NORENAME, "kFPCantRename (-5028)"},
    {AFPERR_NODIR, "kFPDirNotFound (-5029)"},
    {AFPERR_VLOCK, "kFPVolLocked (-5031)"},
    {AFPERR_OLOCK, "kFPObjectLocked (-5032)"},
    {AFPERR_NOID, "kFPIDNotFound (-5034)"},
    {AFPERR_DIFFVOL, "kFPDiffVolErr (-5036)"},
    {AFPERR_SAMEOBJ, "kFPSameObjectErr (-5038)"},
    {AFPERR_PWDEXPR, "kFPPwdExpiredErr (-5042)"},
    {AFPERR_QUOTA, "kFPDiskQuotaExceeded (-5047)"},
    /* DSI-level codes: 16-bit values, netatalk does not sign-extend them. */
    {0xFBD6, "DSI bad version (0xFBD6)"},
    {0xFBD5, "DSI buffer too small (0xFBD5)"},
    {0xFBD4, "DSI no more sessions (0xFBD4)"},
    {0xFBD3, "DSI no servers (0xFBD3)"},
    {0xFBD2, "DSI parameter error (0xFBD2)"},
    {0xFBD1, "DSI server busy (0xFBD1)"},
    {0xFBD0, "DSI session closed (0xFBD0)"},
    {0xFBCF, "DSI size error (0xFBCF)"},
    {0xFBCE, "DSI too many (0xFBCE)"},
    {0xFBCD, "DSI no ack (0xFBCD)"},
};

const char *afp_command_name(uint8_t code)
{
    /* AFP 3.4's command numbers (Apple's AFP reference). */
    static const char *const names[] = {
        [1] = "FPByteRangeLock",
        [2] = "FPCloseVol",
        [3] = "FPCloseDir",
        [4] = "FPCloseFork",
        [5] = "FPCopyFile",
        [6] = "FPCreateDir",
        [7] = "FPCreateFile",
        [8] = "FPDelete",
        [9] = "FPEnumerate",
        [10] = "FPFlush",
        [11] = "FPFlushFork",
        [14] = "FPGetForkParms",
        [15] = "FPGetSrvrInfo",
        [16] = "FPGetSrvrParms",
        [17] = "FPGetVolParms",
        [18] = "FPLogin",
        [19] = "FPLoginCont",
        [20] = "FPLogout",
        [21] = "FPMapID",
        [22] = "FPMapName",
        [23] = "FPMoveAndRename",
        [24] = "FPOpenVol",
        [25] = "FPOpenDir",
        [26] = "FPOpenFork",
        [27] = "FPRead",
        [28] = "FPRename",
        [29] = "FPSetDirParms",
        [30] = "FPSetFileParms",
        [31] = "FPSetForkParms",
        [32] = "FPSetVolParms",
        [33] = "FPWrite",
        [34] = "FPGetFileDirParms",
        [35] = "FPSetFileDirParms",
        [36] = "FPChangePassword",
        [37] = "FPGetUserInfo",
        [38] = "FPGetSrvrMsg",
        [39] = "FPCreateID",
        [40] = "FPDeleteID",
        [41] = "FPResolveID",
        [42] = "FPExchangeFiles",
        [43] = "FPCatSearch",
        [48] = "FPOpenDT",
        [49] = "FPCloseDT",
        [51] = "FPGetIcon",
        [52] = "FPGetIconInfo",
        [53] = "FPAddAPPL",
        [54] = "FPRemoveAPPL",
        [55] = "FPGetAPPL",
        [56] = "FPAddComment",
        [57] = "FPRemoveComment",
        [58] = "FPGetComment",
        [59] = "FPByteRangeLockExt",
        [60] = "FPReadExt",
        [61] = "FPWriteExt",
        [62] = "FPGetAuthMethods",
        [63] = "FPLoginExt",
        [64] = "FPGetSessionToken",
        [65] = "FPDisconnectOldSession",
        [66] = "FPEnumerateExt",
        [67] = "FPCatSearchExt",
        [68] = "FPEnumerateExt2",
        [69] = "FPGetExtAttr",
        [70] = "FPSetExtAttr",
        [71] = "FPRemoveExtAttr",
        [72] = "FPListExtAttrs",
        [73] = "FPGetACL",
        [74] = "FPSetACL",
        [75] = "FPAccess",
        [76] = "FPSpotlightRPC",
        [78] = "FPSyncDir",
        [79] = "FPSyncFork",
        [122] = "FPZzzzz",
        [192] = "FPAddIcon",
    };
    return code < sizeof names / sizeof names[0] ? names[code] : NULL;
}

int afp_command_code(const char *name)
{
    for (unsigned code = 1; code < 256; code++) {
        const char *n = afp_command_name((uint8_t)code);
        if (n != NULL && strcmp(n, name) == 0)
            return (int)code;
    }
    return -1;
}

const char *afp_strerror(int rc)
{
    for (size_t i = 0; i < sizeof result_names / sizeof result_names[0]; i++)
        if (result_names[i].code == rc)
            return result_names[i].name;
    static char unknown[40];
    snprintf(unknown, sizeof unknown, "unknown result %d", rc);
    return unknown;
}

/* ---- Encoders ---- */

void afp_enc_path(struct bw *w, const char *name, bool utf8)
{
    size_t n = name ? strlen(name) : 0;
    if (n > AFP_MAX_NAME) {
        w->overflow = true;
        return;
    }
    /* one bounds check for the whole path: it is in most requests */
    uint8_t *p = bw_reserve(w, (utf8 ? 7 : 2) + n);
    if (!p)
        return;
    if (utf8) {
        p[0] = PATH_TYPE_UTF8;
        be32_store(p + 1, UTF8_HINT);
        be16_store(p + 5, (uint16_t)n);
        p += 7;
    } else {
        p[0] = PATH_TYPE_LONG;
        p[1] = (uint8_t)n;
        p += 2;
    }
    if (n)
        memcpy(p, name, n);
}

void afp_enc_login_cleartext(struct bw *w, const char *afp_version, const char *user,
                             const char *pass)
{
    size_t plen = pass ? strlen(pass) : 0;
    if (plen > AFP_CLEARTEXT_PASSLEN) {
        w->overflow = true;
        return;
    }
    uint8_t pw[AFP_CLEARTEXT_PASSLEN] = {0};
    memcpy(pw, pass ? pass : "", plen);
    bw_u8(w, AFP_LOGIN); /* FPLogin has no pad byte after the command */
    bw_pstr(w, afp_version);
    bw_pstr(w, AFP_UAM_CLEARTEXT);
    bw_pstr(w, user);
    bw_pad_even(w);
    bw_bytes(w, pw, sizeof pw);
}

void afp_enc_logout(struct bw *w)
{
    bw_u8(w, AFP_LOGOUT);
    bw_u8(w, 0);
}

void afp_enc_openvol(struct bw *w, uint16_t bitmap, const char *volname)
{
    bw_u8(w, AFP_OPENVOL);
    bw_u8(w, 0);
    bw_u16(w, bitmap);
    bw_pstr(w, volname);
}

void afp_enc_getvolparms(struct bw *w, uint16_t vol, uint16_t bitmap)
{
    bw_u8(w, AFP_GETVOLPARMS);
    bw_u8(w, 0);
    bw_u16(w, vol);
    bw_u16(w, bitmap);
}

/* Command byte, flag byte, volume, directory: the head most calls share. */
static void enc_head(struct bw *w, uint8_t cmd, uint8_t flag, uint16_t vol, uint32_t did)
{
    uint8_t *p = bw_reserve(w, 8);
    if (!p)
        return;
    p[0] = cmd;
    p[1] = flag;
    be16_store(p + 2, vol);
    be32_store(p + 4, did);
}

void afp_enc_getfiledirparms(struct bw *w, uint16_t vol, uint32_t did, uint16_t fbitmap,
                             uint16_t dbitmap, const char *name, bool utf8)
{
    enc_head(w, AFP_GETFILEDIRPARMS, 0, vol, did);
    bw_u16(w, fbitmap);
    bw_u16(w, dbitmap);
    afp_enc_path(w, name, utf8);
}

void afp_enc_createdir(struct bw *w, uint16_t vol, uint32_t did, const char *name, bool utf8)
{
    enc_head(w, AFP_CREATEDIR, 0, vol, did);
    afp_enc_path(w, name, utf8);
}

void afp_enc_createfile(struct bw *w, bool hard, uint16_t vol, uint32_t did, const char *name,
                        bool utf8)
{
    enc_head(w, AFP_CREATEFILE, hard ? 0x80 : 0x00, vol, did);
    afp_enc_path(w, name, utf8);
}

void afp_enc_delete(struct bw *w, uint16_t vol, uint32_t did, const char *name, bool utf8)
{
    enc_head(w, AFP_DELETE, 0, vol, did);
    afp_enc_path(w, name, utf8);
}

void afp_enc_set_file_mdate(struct bw *w, uint16_t vol, uint32_t did, const char *name, bool utf8,
                            int32_t mdate)
{
    enc_head(w, AFP_SETFILEPARMS, 0, vol, did);
    bw_u16(w, AFP_FILE_MDATE);
    afp_enc_path(w, name, utf8);
    /* afpd reads the parameters from an even offset of the command */
    bw_pad_even(w);
    bw_u32(w, (uint32_t)mdate);
}

void afp_enc_spotlight(struct bw *w, uint16_t vol, uint32_t subcmd, const uint8_t *rpc, size_t len)
{
    bw_u8(w, AFP_SPOTLIGHTRPC);
    bw_u8(w, 0);
    bw_u16(w, vol);
    bw_u32(w, 0x00008004); /* always so in macOS's requests; afpd ignores it */
    bw_u32(w, subcmd);
    bw_u32(w, 0);
    bw_zeros(w, 8);
    if (len > 0)
        bw_bytes(w, rpc, len);
}

void afp_enc_enumerate(struct bw *w, uint16_t vol, uint32_t did, uint16_t fbitmap, uint16_t dbitmap,
                       uint16_t reqcount, uint16_t start, uint16_t maxreply, const char *name,
                       bool utf8)
{
    enc_head(w, AFP_ENUMERATE, 0, vol, did);
    bw_u16(w, fbitmap);
    bw_u16(w, dbitmap);
    bw_u16(w, reqcount);
    bw_u16(w, start);
    bw_u16(w, maxreply);
    afp_enc_path(w, name, utf8);
}

void afp_enc_enumerate_ext2(struct bw *w, uint16_t vol, uint32_t did, uint16_t fbitmap,
                            uint16_t dbitmap, uint16_t reqcount, uint32_t start, uint32_t maxreply,
                            const char *name, bool utf8)
{
    enc_head(w, AFP_ENUMERATEEXT2, 0, vol, did);
    bw_u16(w, fbitmap);
    bw_u16(w, dbitmap);
    bw_u16(w, reqcount);
    bw_u32(w, start);
    bw_u32(w, maxreply);
    afp_enc_path(w, name, utf8);
}

void afp_enc_openfork(struct bw *w, uint8_t fork, uint16_t vol, uint32_t did, uint16_t bitmap,
                      uint16_t access, const char *name, bool utf8)
{
    enc_head(w, AFP_OPENFORK, fork, vol, did);
    bw_u16(w, bitmap);
    bw_u16(w, access);
    afp_enc_path(w, name, utf8);
}

/* The fork commands' fixed blocks: command, flag, fork, then `rest` bytes
 * the caller fills through the pointer returned (NULL when the block does
 * not fit: the writer's flag is set). One bounds check per request. */
static uint8_t *fork_head(struct bw *w, uint8_t cmd, uint8_t flag, afp_fork_t fork, size_t rest)
{
    uint8_t *p = bw_reserve(w, 4 + rest);
    if (!p)
        return NULL;
    p[0] = cmd;
    p[1] = flag;
    p[2] = fork.b[0];
    p[3] = fork.b[1];
    return p + 4;
}

void afp_enc_closefork(struct bw *w, afp_fork_t fork)
{
    fork_head(w, AFP_CLOSEFORK, 0, fork, 0);
}

void afp_enc_read(struct bw *w, afp_fork_t fork, uint32_t offset, uint32_t count)
{
    uint8_t *p = fork_head(w, AFP_READ, 0, fork, 10);
    if (!p)
        return;
    be32_store(p, offset);
    be32_store(p + 4, count);
    p[8] = 0; /* newline mask: none */
    p[9] = 0; /* newline char */
}

void afp_enc_readext(struct bw *w, afp_fork_t fork, uint64_t offset, uint64_t count)
{
    uint8_t *p = fork_head(w, AFP_READEXT, 0, fork, 16);
    if (!p)
        return;
    be64_store(p, offset);
    be64_store(p + 8, count);
}

void afp_enc_write(struct bw *w, uint8_t flag, afp_fork_t fork, uint32_t offset, uint32_t count)
{
    uint8_t *p = fork_head(w, AFP_WRITE, flag, fork, 8);
    if (!p)
        return;
    be32_store(p, offset);
    be32_store(p + 4, count);
}

void afp_enc_writeext(struct bw *w, uint8_t flag, afp_fork_t fork, uint64_t offset, uint64_t count)
{
    uint8_t *p = fork_head(w, AFP_WRITEEXT, flag, fork, 16);
    if (!p)
        return;
    be64_store(p, offset);
    be64_store(p + 8, count);
}

void afp_enc_flushfork(struct bw *w, afp_fork_t fork)
{
    fork_head(w, AFP_FLUSHFORK, 0, fork, 0);
}

void afp_enc_byterangelock(struct bw *w, uint8_t flags, afp_fork_t fork, int32_t offset,
                           int32_t length)
{
    uint8_t *p = fork_head(w, AFP_BYTERANGELOCK, flags, fork, 8);
    if (!p)
        return;
    be32_store(p, (uint32_t)offset);
    be32_store(p + 4, (uint32_t)length);
}

void afp_enc_byterangelock_ext(struct bw *w, uint8_t flags, afp_fork_t fork, int64_t offset,
                               int64_t length)
{
    uint8_t *p = fork_head(w, AFP_BYTERANGELOCKEXT, flags, fork, 16);
    if (!p)
        return;
    be64_store(p, (uint64_t)offset);
    be64_store(p + 8, (uint64_t)length);
}

void afp_enc_getforkparms(struct bw *w, afp_fork_t fork, uint16_t bitmap)
{
    uint8_t *p = fork_head(w, AFP_GETFORKPARMS, 0, fork, 2);
    if (p)
        be16_store(p, bitmap);
}

void afp_enc_setforkparms(struct bw *w, afp_fork_t fork, uint16_t bitmap, uint64_t length)
{
    bool narrow = bitmap == AFP_FILE_DFLEN || bitmap == AFP_FILE_RFLEN;
    bool wide = bitmap == AFP_FILE_EXTDFLEN || bitmap == AFP_FILE_EXTRFLEN;
    if ((!narrow && !wide) || (narrow && length > UINT32_MAX)) {
        w->overflow = true;
        return;
    }
    uint8_t *p = fork_head(w, AFP_SETFORKPARMS, 0, fork, narrow ? 6 : 10);
    if (!p)
        return;
    be16_store(p, bitmap);
    if (narrow)
        be32_store(p + 2, (uint32_t)length);
    else
        be64_store(p + 2, length);
}

void afp_enc_copyfile(struct bw *w, uint16_t src_vol, uint32_t src_did, uint16_t dst_vol,
                      uint32_t dst_did, const char *src_name, const char *new_name, bool utf8)
{
    enc_head(w, AFP_COPYFILE, 0, src_vol, src_did);
    bw_u16(w, dst_vol);
    bw_u32(w, dst_did);
    afp_enc_path(w, src_name, utf8);
    afp_enc_path(w, "", utf8); /* destination directory = dst_did itself */
    afp_enc_path(w, new_name, utf8);
}

/* ---- Decoders ---- */

/* A pstring found through a u16 offset relative to base[0]; 0 = absent. */
static void dec_pstr_at(struct br *r, const uint8_t *base, size_t len, char *dst, size_t cap)
{
    uint16_t off = br_u16(r);
    if (!br_ok(r) || off == 0)
        return;
    struct br s;
    br_init(&s, base, len);
    br_seek(&s, off);
    br_pstr(&s, dst, cap);
    if (!br_ok(&s))
        r->err = true;
}

/* A UTF-8 name (hint u32, length u16, bytes) found through a u16 offset. */
static void dec_utf8_at(struct br *r, const uint8_t *base, size_t len, char *dst, size_t cap)
{
    uint16_t off = br_u16(r);
    br_skip(r, 4); /* reserved */
    if (!br_ok(r) || off == 0)
        return;
    struct br s;
    br_init(&s, base, len);
    br_seek(&s, off);
    br_skip(&s, 4); /* text encoding hint: the bytes are UTF-8 regardless */
    uint16_t n = br_u16(&s);
    if (n >= cap) {
        r->err = true;
        return;
    }
    br_bytes(&s, dst, n);
    dst[n] = '\0';
    if (!br_ok(&s))
        r->err = true;
}

int afp_dec_params(const uint8_t *p, size_t len, uint16_t bitmap, bool is_dir,
                   struct afp_params *out)
{
    memset(out, 0, sizeof *out);
    out->is_dir = is_dir;
    out->bitmap = bitmap;
    struct br r;
    br_init(&r, p, len);
    for (unsigned bit = 0; bit < 16 && br_ok(&r); bit++) {
        if (!(bitmap & (1u << bit)))
            continue;
        switch (bit) {
        case 0:
            out->attributes = br_u16(&r);
            break;
        case 1:
            out->parent_did = br_u32(&r);
            break;
        case 2:
            out->create_date = (int32_t)br_u32(&r);
            break;
        case 3:
            out->modify_date = (int32_t)br_u32(&r);
            break;
        case 4:
            out->backup_date = (int32_t)br_u32(&r);
            break;
        case 5:
            br_bytes(&r, out->finder_info, sizeof out->finder_info);
            break;
        case 6:
            dec_pstr_at(&r, p, len, out->long_name, sizeof out->long_name);
            break;
        case 7: {
            char sname[256];
            sname[0] = '\0';
            dec_pstr_at(&r, p, len, sname, sizeof sname);
            break;
        }
        case 8:
            out->id = br_u32(&r);
            break;
        case 9:
            if (is_dir)
                out->offspring = br_u16(&r);
            else
                out->data_len = br_u32(&r);
            break;
        case 10:
            if (is_dir)
                out->owner_id = br_u32(&r);
            else
                out->rsrc_len = br_u32(&r);
            break;
        case 11:
            if (is_dir)
                out->group_id = br_u32(&r);
            else
                out->ext_data_len = br_u64(&r);
            break;
        case 12:
            if (is_dir)
                out->access_rights = br_u32(&r);
            else
                br_skip(&r, 2); /* launch limit */
            break;
        case 13:
            dec_utf8_at(&r, p, len, out->utf8_name, sizeof out->utf8_name);
            break;
        case 14:
            if (is_dir)
                return AFPB_EPROTO; /* no such directory field */
            out->ext_rsrc_len = br_u64(&r);
            break;
        case 15:
            out->unix_uid = br_u32(&r);
            out->unix_gid = br_u32(&r);
            out->unix_mode = br_u32(&r);
            out->unix_access = br_u32(&r);
            break;
        }
    }
    return br_ok(&r) ? 0 : AFPB_EPROTO;
}

int afp_dec_volparms(const uint8_t *p, size_t len, struct afp_volparms *out)
{
    memset(out, 0, sizeof *out);
    struct br r;
    br_init(&r, p, len);
    out->bitmap = br_u16(&r);
    if (out->bitmap & 0xF000)
        return AFPB_EPROTO;
    /* Name offsets count from the byte after the bitmap. */
    const uint8_t *base = p + (len >= 2 ? 2 : len);
    size_t blen = len >= 2 ? len - 2 : 0;
    uint16_t bm = out->bitmap;
    if (bm & AFP_VOL_ATTR)
        out->attributes = br_u16(&r);
    if (bm & AFP_VOL_SIG)
        out->signature = br_u16(&r);
    if (bm & AFP_VOL_CDATE)
        out->create_date = (int32_t)br_u32(&r);
    if (bm & AFP_VOL_MDATE)
        out->modify_date = (int32_t)br_u32(&r);
    if (bm & AFP_VOL_BDATE)
        out->backup_date = (int32_t)br_u32(&r);
    if (bm & AFP_VOL_VID)
        out->volid = br_u16(&r);
    if (bm & AFP_VOL_BFREE)
        out->bytes_free = br_u32(&r);
    if (bm & AFP_VOL_BTOTAL)
        out->bytes_total = br_u32(&r);
    if (bm & AFP_VOL_NAME)
        dec_pstr_at(&r, base, blen, out->name, sizeof out->name);
    if (bm & AFP_VOL_XBFREE)
        out->ext_bytes_free = br_u64(&r);
    if (bm & AFP_VOL_XBTOTAL)
        out->ext_bytes_total = br_u64(&r);
    if (bm & AFP_VOL_BLOCKSZ)
        out->block_size = br_u32(&r);
    return br_ok(&r) ? 0 : AFPB_EPROTO;
}

int afp_dec_filedirparms(const uint8_t *p, size_t len, struct afp_params *out)
{
    struct br r;
    br_init(&r, p, len);
    uint16_t fbitmap = br_u16(&r);
    uint16_t dbitmap = br_u16(&r);
    uint8_t kind = br_u8(&r);
    br_skip(&r, 1);
    if (!br_ok(&r) || (kind != 0x00 && kind != 0x80))
        return AFPB_EPROTO;
    bool is_dir = kind == 0x80;
    return afp_dec_params(p + 6, len - 6, is_dir ? dbitmap : fbitmap, is_dir, out);
}

int afp_dec_openfork(const uint8_t *p, size_t len, afp_fork_t *fork, struct afp_params *out)
{
    if (len < 4)
        return AFPB_EPROTO;
    uint16_t bitmap = be16_load(p);
    memcpy(fork->b, p + 2, 2);
    if (!out)
        return 0;
    return afp_dec_params(p + 4, len - 4, bitmap, false, out);
}

int afp_dec_forkparms(const uint8_t *p, size_t len, struct afp_params *out)
{
    if (len < 2)
        return AFPB_EPROTO;
    return afp_dec_params(p + 2, len - 2, be16_load(p), false, out);
}

int afp_dec_enumerate(const uint8_t *p, size_t len, bool ext2, afp_enum_cb cb, void *ctx,
                      unsigned *count)
{
    *count = 0;
    if (len < 6)
        return AFPB_EPROTO;
    uint16_t fbitmap = be16_load(p);
    uint16_t dbitmap = be16_load(p + 2);
    unsigned n = be16_load(p + 4);
    size_t hdr = ext2 ? 4 : 2;
    size_t pos = 6;
    struct afp_params entry;
    for (unsigned i = 0; i < n; i++) {
        if (len - pos < hdr)
            return AFPB_EPROTO;
        size_t rlen = ext2 ? be16_load(p + pos) : p[pos];
        uint8_t kind = p[pos + (ext2 ? 2 : 1)];
        if (rlen < hdr || rlen > len - pos || (kind != 0x00 && kind != 0x80))
            return AFPB_EPROTO;
        bool is_dir = kind == 0x80;
        int rc =
            afp_dec_params(p + pos + hdr, rlen - hdr, is_dir ? dbitmap : fbitmap, is_dir, &entry);
        if (rc)
            return rc;
        pos += rlen;
        *count = i + 1;
        if (cb && cb(ctx, &entry))
            break;
    }
    return 0;
}

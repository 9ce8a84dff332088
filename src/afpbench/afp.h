/* AFP protocol constants, result names and wire codecs.
 *
 * API (how the pieces fit; callers include session.h, which includes this):
 *   srvinfo_fetch()                    DSIGetStatus on a throw-away connection (srvinfo.h)
 *   afp_session_new()                  allocate a session (buffers preallocated once)
 *   afp_session_connect(s, host, port) TCP connect with timeout + DSIOpenSession (quantum)
 *   afp_session_login(s, "AFP3.4", user, pass)   FPLogin, "Cleartxt Passwrd"
 *   afp_openvol(s, name, bitmap, &vp)  FPOpenVol; vp.volid is the volume ID
 *   afp_createdir/createfile/delete/getfiledirparms/... one call per AFP command,
 *                                      addressed as (volid, parent DID, one name component)
 *   afp_readext_send/_recv, afp_writeext_send/_recv   pipelining: issue up to a window,
 *                                      reap in issue order (the caller times what it wants);
 *                                      afp_read_send/... the same with AFP 2.x's FPRead/FPWrite
 *   xfer_write/xfer_read/xfer_copy (xfer.h)            that loop over a whole file: the
 *                                      pattern written, reads checked, write ends checked,
 *                                      the calls picked by the session's AFP version
 *   afp_logout(s); afp_session_free(s) FPLogout, DSICloseSession, close, free
 *   afp_session_fd/_quantum/_ops       socket fd (IO monitor, TCP_INFO), quantum,
 *                                      AFP commands issued so far (the suites' op count)
 *   afp_strerror(rc)                   name of any result code (AFP, DSI or local)
 * Every call returns 0 on success, a negative AFPB_E* code on a local failure
 * (network, timeout, malformed reply: see dsi.h), or the server's result code
 * (AFPERR_*). afp_session_error(s) has a one-line detail for the last failure.
 * No call allocates after afp_session_new(). */
#ifndef AFPBENCH_AFP_H
#define AFPBENCH_AFP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "dsi.h"

/* AFP command codes. */
#define AFP_BYTERANGELOCK 1
#define AFP_CLOSEVOL 2
#define AFP_CLOSEFORK 4
#define AFP_COPYFILE 5
#define AFP_CREATEDIR 6
#define AFP_CREATEFILE 7
#define AFP_DELETE 8
#define AFP_ENUMERATE 9
#define AFP_FLUSHFORK 11
#define AFP_GETFORKPARMS 14
#define AFP_GETSRVRINFO 15
#define AFP_GETVOLPARMS 17
#define AFP_LOGIN 18
#define AFP_LOGOUT 20
#define AFP_OPENVOL 24
#define AFP_OPENFORK 26
#define AFP_READ 27
#define AFP_SETFILEPARMS 30
#define AFP_SETFORKPARMS 31
#define AFP_WRITE 33
#define AFP_GETFILEDIRPARMS 34
#define AFP_SETFILEDIRPARMS 35
#define AFP_BYTERANGELOCKEXT 59
#define AFP_READEXT 60
#define AFP_WRITEEXT 61
#define AFP_ENUMERATEEXT2 68
#define AFP_SPOTLIGHTRPC 76

/* AFP result codes (signed, as in the DSI code field). */
#define AFPERR_MAXSESS (-1068)
#define AFPERR_ACCESS (-5000)
#define AFPERR_AUTHCONT (-5001)
#define AFPERR_BADUAM (-5002)
#define AFPERR_BADVERS (-5003)
#define AFPERR_BITMAP (-5004)
#define AFPERR_CANTMOVE (-5005)
#define AFPERR_DENYCONF (-5006)
#define AFPERR_DIRNEMPT (-5007)
#define AFPERR_DFULL (-5008)
#define AFPERR_EOF (-5009)
#define AFPERR_BUSY (-5010)
#define AFPERR_NOITEM (-5012)
#define AFPERR_LOCK (-5013)
#define AFPERR_MISC (-5014)
#define AFPERR_NLOCK (-5015)
#define AFPERR_EXIST (-5017)
#define AFPERR_NOOBJ (-5018)
#define AFPERR_PARAM (-5019)
#define AFPERR_NORANGE (-5020)
#define AFPERR_RANGEOVR (-5021)
#define AFPERR_SESSCLOS (-5022)
#define AFPERR_NOTAUTH (-5023)
#define AFPERR_NOOP (-5024)
#define AFPERR_BADTYPE (-5025)
#define AFPERR_NFILE (-5026)
#define AFPERR_SHUTDOWN (-5027)
#define AFPERR_NORENAME (-5028)
#define AFPERR_NODIR (-5029)
#define AFPERR_VLOCK (-5031)
#define AFPERR_OLOCK (-5032)
#define AFPERR_NOID (-5034)
#define AFPERR_DIFFVOL (-5036)
#define AFPERR_SAMEOBJ (-5038)
#define AFPERR_PWDEXPR (-5042)
#define AFPERR_QUOTA (-5047)

/* "kFPObjectNotFound (-5018)", "timeout (local)", "DSI server busy (0xFBD1)",
 * "unknown result -1234". Never NULL; static storage (not thread-safe for
 * unknown codes). */
const char *afp_strerror(int rc);
/* The name of AFP command `code` as the protocol names it
 * ("FPGetFileDirParms"), or NULL for a code AFP does not define. */
const char *afp_command_name(uint8_t code);
/* The code of the AFP command so named (case matters), or -1. */
int afp_command_code(const char *name);

/* Special directory IDs. */
#define AFP_DID_ROOT_PARENT 1
#define AFP_DID_ROOT 2

/* Volume bitmap (FPOpenVol, FPGetVolParms). */
#define AFP_VOL_ATTR 0x0001
#define AFP_VOL_SIG 0x0002
#define AFP_VOL_CDATE 0x0004
#define AFP_VOL_MDATE 0x0008
#define AFP_VOL_BDATE 0x0010
#define AFP_VOL_VID 0x0020
#define AFP_VOL_BFREE 0x0040
#define AFP_VOL_BTOTAL 0x0080
#define AFP_VOL_NAME 0x0100
#define AFP_VOL_XBFREE 0x0200
#define AFP_VOL_XBTOTAL 0x0400
#define AFP_VOL_BLOCKSZ 0x0800

/* File bitmap. */
#define AFP_FILE_ATTR 0x0001
#define AFP_FILE_PDID 0x0002
#define AFP_FILE_CDATE 0x0004
#define AFP_FILE_MDATE 0x0008
#define AFP_FILE_BDATE 0x0010
#define AFP_FILE_FINFO 0x0020
#define AFP_FILE_LNAME 0x0040
#define AFP_FILE_SNAME 0x0080
#define AFP_FILE_FNUM 0x0100
#define AFP_FILE_DFLEN 0x0200
#define AFP_FILE_RFLEN 0x0400
#define AFP_FILE_EXTDFLEN 0x0800
#define AFP_FILE_LAUNCHLIMIT 0x1000 /* netatalk: unsupported (-5004) */
#define AFP_FILE_UTF8NAME 0x2000
#define AFP_FILE_EXTRFLEN 0x4000
#define AFP_FILE_UNIXPRIV 0x8000

/* Directory bitmap (bits 0-8, 13 and 15 as for files). */
#define AFP_DIR_ATTR 0x0001
#define AFP_DIR_PDID 0x0002
#define AFP_DIR_CDATE 0x0004
#define AFP_DIR_MDATE 0x0008
#define AFP_DIR_BDATE 0x0010
#define AFP_DIR_FINFO 0x0020
#define AFP_DIR_LNAME 0x0040
#define AFP_DIR_SNAME 0x0080
#define AFP_DIR_DID 0x0100
#define AFP_DIR_OFFCNT 0x0200
#define AFP_DIR_OWNERID 0x0400
#define AFP_DIR_GROUPID 0x0800
#define AFP_DIR_ACCESS 0x1000
#define AFP_DIR_UTF8NAME 0x2000
#define AFP_DIR_UNIXPRIV 0x8000

/* FPOpenFork access modes. */
#define AFP_OPEN_READ 0x0001
#define AFP_OPEN_WRITE 0x0002
#define AFP_OPEN_DENY_READ 0x0010
#define AFP_OPEN_DENY_WRITE 0x0020

/* FPOpenFork fork selector, FPWrite(Ext) and FPByteRangeLock(Ext) flags. */
#define AFP_FORK_DATA 0x00
#define AFP_FORK_RSRC 0x80
#define AFP_WRITE_FROM_END 0x80
#define AFP_LOCK_UNLOCK 0x01
#define AFP_LOCK_FROM_END 0x80

/* Attributes bit 15 on set requests: 1 sets the given bits, 0 clears them. */
#define AFP_ATTR_SETCLR 0x8000

/* AFP dates: seconds since 2000-01-01 UTC. */
#define AFP_DATE_DELTA 946684800
#define AFP_DATE_NEVER ((int32_t)0x80000000)

#define AFP_UAM_CLEARTEXT "Cleartxt Passwrd"
#define AFP_DEFAULT_VERSION "AFP3.4"
#define AFP_CLEARTEXT_PASSLEN 8
#define AFP_MAX_NAME 255 /* bytes in one name component */

/* Fork reference number: opaque bytes, echoed verbatim (netatalk sends its
 * host-order value). */
typedef struct {
    uint8_t b[2];
} afp_fork_t;

/* Decoded file/directory parameters (FPGetFileDirParms, FPOpenFork,
 * FPGetForkParms, FPEnumerate records). Only fields whose bit is in bitmap
 * are set; the rest are zero. */
struct afp_params {
    bool is_dir;
    uint16_t bitmap;
    uint16_t attributes;
    uint32_t parent_did;
    int32_t create_date, modify_date, backup_date; /* AFP epoch */
    uint8_t finder_info[32];
    uint32_t id;       /* file: CNID (FNUM); dir: directory ID */
    uint32_t data_len; /* file DFLEN (32-bit, saturating) */
    uint32_t rsrc_len; /* file RFLEN */
    uint64_t ext_data_len, ext_rsrc_len;
    uint16_t offspring;                                  /* dir OFFCNT */
    uint32_t owner_id, group_id, access_rights;          /* dir */
    uint32_t unix_uid, unix_gid, unix_mode, unix_access; /* UNIXPRIV */
    char long_name[256];                                 /* LNAME (Mac charset) */
    char utf8_name[256];                                 /* UTF8NAME */
};

/* Decoded volume parameters (FPOpenVol, FPGetVolParms). */
struct afp_volparms {
    uint16_t bitmap;
    uint16_t attributes, signature;
    int32_t create_date, modify_date, backup_date;
    uint16_t volid;
    uint32_t bytes_free, bytes_total;
    uint64_t ext_bytes_free, ext_bytes_total;
    uint32_t block_size;
    char name[256];
};

/* Called for each enumerated entry; return non-zero to stop early. */
typedef int (*afp_enum_cb)(void *ctx, const struct afp_params *entry);

/* ---- Wire encoders: each writes one AFP request block into w (check
 * bw_ok(w) afterwards). `name` is one path component ("" or NULL = the
 * directory itself); `utf8` selects path type 3 (AFP >= 3.0) instead of 2. */
void afp_enc_path(struct bw *w, const char *name, bool utf8);
void afp_enc_login_cleartext(struct bw *w, const char *afp_version, const char *user,
                             const char *pass);
void afp_enc_logout(struct bw *w);
void afp_enc_openvol(struct bw *w, uint16_t bitmap, const char *volname);
void afp_enc_getvolparms(struct bw *w, uint16_t vol, uint16_t bitmap);
void afp_enc_getfiledirparms(struct bw *w, uint16_t vol, uint32_t did, uint16_t fbitmap,
                             uint16_t dbitmap, const char *name, bool utf8);
void afp_enc_createdir(struct bw *w, uint16_t vol, uint32_t did, const char *name, bool utf8);
void afp_enc_createfile(struct bw *w, bool hard, uint16_t vol, uint32_t did, const char *name,
                        bool utf8);
void afp_enc_delete(struct bw *w, uint16_t vol, uint32_t did, const char *name, bool utf8);
/* FPSetFileParms setting only the file's modification date (an AFP date:
 * seconds since 2000, AFP_DATE_DELTA). */
void afp_enc_set_file_mdate(struct bw *w, uint16_t vol, uint32_t did, const char *name, bool utf8,
                            int32_t mdate);
/* FPSpotlightRPC: subcommand subcmd (AFP_SPOTLIGHT_*) on volume vol, then
 * rpc[len] (slrpc.h), after the fixed 24 bytes afpd skips. */
#define AFP_SPOTLIGHT_OPEN 1
#define AFP_SPOTLIGHT_RPC 3
void afp_enc_spotlight(struct bw *w, uint16_t vol, uint32_t subcmd, const uint8_t *rpc, size_t len);
void afp_enc_enumerate(struct bw *w, uint16_t vol, uint32_t did, uint16_t fbitmap, uint16_t dbitmap,
                       uint16_t reqcount, uint16_t start, uint16_t maxreply, const char *name,
                       bool utf8);
void afp_enc_enumerate_ext2(struct bw *w, uint16_t vol, uint32_t did, uint16_t fbitmap,
                            uint16_t dbitmap, uint16_t reqcount, uint32_t start, uint32_t maxreply,
                            const char *name, bool utf8);
void afp_enc_openfork(struct bw *w, uint8_t fork, uint16_t vol, uint32_t did, uint16_t bitmap,
                      uint16_t access, const char *name, bool utf8);
void afp_enc_closefork(struct bw *w, afp_fork_t fork);
void afp_enc_read(struct bw *w, afp_fork_t fork, uint32_t offset, uint32_t count);
void afp_enc_readext(struct bw *w, afp_fork_t fork, uint64_t offset, uint64_t count);
/* Write headers only: the data follows in the DSIWrite payload. */
void afp_enc_write(struct bw *w, uint8_t flag, afp_fork_t fork, uint32_t offset, uint32_t count);
void afp_enc_writeext(struct bw *w, uint8_t flag, afp_fork_t fork, uint64_t offset, uint64_t count);
void afp_enc_flushfork(struct bw *w, afp_fork_t fork);
void afp_enc_byterangelock(struct bw *w, uint8_t flags, afp_fork_t fork, int32_t offset,
                           int32_t length);
void afp_enc_byterangelock_ext(struct bw *w, uint8_t flags, afp_fork_t fork, int64_t offset,
                               int64_t length);
void afp_enc_getforkparms(struct bw *w, afp_fork_t fork, uint16_t bitmap);
/* bitmap: exactly one of FILE_DFLEN/RFLEN (4-byte length) or EXTDFLEN/EXTRFLEN (8). */
void afp_enc_setforkparms(struct bw *w, afp_fork_t fork, uint16_t bitmap, uint64_t length);
void afp_enc_copyfile(struct bw *w, uint16_t src_vol, uint32_t src_did, uint16_t dst_vol,
                      uint32_t dst_did, const char *src_name, const char *new_name, bool utf8);

/* ---- Wire decoders: 0, or AFPB_EPROTO when anything (a field, an offset,
 * a name) lies outside the given bytes. Outputs may be partly written then. */
/* Parameter area for one object; name offsets are relative to p. */
int afp_dec_params(const uint8_t *p, size_t len, uint16_t bitmap, bool is_dir,
                   struct afp_params *out);
/* FPOpenVol / FPGetVolParms reply. */
int afp_dec_volparms(const uint8_t *p, size_t len, struct afp_volparms *out);
/* FPGetFileDirParms reply. */
int afp_dec_filedirparms(const uint8_t *p, size_t len, struct afp_params *out);
/* FPOpenFork reply (out may be NULL). */
int afp_dec_openfork(const uint8_t *p, size_t len, afp_fork_t *fork, struct afp_params *out);
/* FPGetForkParms reply. */
int afp_dec_forkparms(const uint8_t *p, size_t len, struct afp_params *out);
/* FPEnumerate (ext2 = false: 1-byte record lengths) or FPEnumerateExt2 reply
 * (2-byte record lengths); calls cb per record (cb may be NULL). *count gets
 * the number of records decoded. */
int afp_dec_enumerate(const uint8_t *p, size_t len, bool ext2, afp_enum_cb cb, void *ctx,
                      unsigned *count);

#endif

/* Every AFP reply decoder: golden vectors (hand-built from the layouts in the
 * protocol reference), every truncation of them, and hostile variants. Inputs
 * are copied into exactly-sized heap blocks so ASan flags any read past them. */
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "harness.h"

/* FPGetFileDirParms reply for a file: ATTR|PDID|LNAME|FNUM|DFLEN|EXTDFLEN|UTF8NAME. */
static const uint8_t file_reply[] = {
    0x2B, 0x43, 0x00, 0x00, 0x00, 0x00,             /* fbitmap, dbitmap, file, pad */
    0x00, 0x20,                                     /* attributes */
    0x00, 0x00, 0x00, 0x02,                         /* parent DID */
    0x00, 0x1E,                                     /* long name at 30 */
    0x00, 0x00, 0x00, 0x2A,                         /* file ID */
    0x00, 0x00, 0x10, 0x00,                         /* data fork length */
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00, /* ext data fork length */
    0x00, 0x24, 0x00, 0x00, 0x00, 0x00,             /* UTF-8 name at 36 + 4 reserved */
    0x05, 'h',  'e',  'l',  'l',  'o',              /* long name */
    0x08, 0x00, 0x01, 0x03, 0x00, 0x05, 'h',  'e',  'l', 'l', 'o'}; /* UTF-8 name */

/* Same call answered for a directory: ATTR|DID|OFFCNT|ACCESS|UTF8NAME|UNIXPRIV. */
static const uint8_t dir_reply[] = {
    0x00, 0x00, 0xB3, 0x01, 0x80, 0x00, /* fbitmap, dbitmap, directory, pad */
    0x00, 0x00,                         /* attributes */
    0x00, 0x00, 0x00, 0x11,             /* directory ID */
    0x00, 0x03,                         /* offspring */
    0x87, 0x07, 0x07, 0x07,             /* access rights */
    0x00, 0x22, 0x00, 0x00, 0x00, 0x00, /* UTF-8 name at 34 */
    0x00, 0x00, 0x06, 0x0C, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x41, 0xED, 0x87,
    0x07, 0x07, 0x07, 0x08, 0x00, 0x01, 0x03, 0x00, 0x03, 'd',  'i',  'r'};

/* FPOpenVol reply as netatalk 4.2.3 sent it: ATTR|SIG|VID|NAME. */
static const uint8_t vol_reply[] = {0x01, 0x23, 0x1C, 0xEC, 0x00, 0x02, 0x00, 0x01,
                                    0x00, 0x08, 0x0C, 'f',  'i',  'l',  'e',  ' ',
                                    's',  'h',  'a',  'r',  'i',  'n',  'g'};

/* FPOpenFork reply as netatalk sent it: PDID|LNAME|FNUM|DFLEN, refnum 01 00. */
static const uint8_t openfork_reply[] = {0x03, 0x42, 0x01, 0x00, 0x00, 0x00, 0x00, 0x1B, 0x00, 0x0E,
                                         0x00, 0x00, 0x00, 0x1C, 0x00, 0x00, 0x00, 0x00, 0x09, 'a',
                                         'l',  'p',  'h',  'a',  '.',  't',  'x',  't'};

/* FPGetForkParms reply: PDID|LNAME|DFLEN. */
static const uint8_t forkparms_reply[] = {0x02, 0x42, 0x00, 0x00, 0x00, 0x05, 0x00, 0x0A,
                                          0x00, 0x00, 0x02, 0x00, 0x03, 'a',  'b',  'c'};

/* FPEnumerate reply: file "a" (ID 7) and directory "bc" (DID 8, padded). */
static const uint8_t enum_reply[] = {0x01, 0x40, 0x01, 0x40, 0x00, 0x02, /* head */
                                     0x0A, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x07,
                                     0x01, 'a',  0x0C, 0x80, 0x00, 0x06, 0x00, 0x00,
                                     0x00, 0x08, 0x02, 'b',  'c',  0x00};

/* FPEnumerateExt2: the same entries with 2-byte lengths and a pad after the kind. */
static const uint8_t enum2_reply[] = {
    0x01, 0x40, 0x01, 0x40, 0x00, 0x02, 0x00, 0x0C, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x07,
    0x01, 'a',  0x00, 0x0E, 0x80, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x08, 0x02, 'b',  'c',  0x00};

static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* Decoder adapters with one signature, for the truncation sweep. */
typedef int (*decode_fn)(const uint8_t *p, size_t len);

static int dec_fdp(const uint8_t *p, size_t len)
{
    struct afp_params out;
    return afp_dec_filedirparms(p, len, &out);
}

static int dec_vol(const uint8_t *p, size_t len)
{
    struct afp_volparms out;
    return afp_dec_volparms(p, len, &out);
}

static int dec_openfork(const uint8_t *p, size_t len)
{
    struct afp_params out;
    afp_fork_t f;
    return afp_dec_openfork(p, len, &f, &out);
}

static int dec_forkparms(const uint8_t *p, size_t len)
{
    struct afp_params out;
    return afp_dec_forkparms(p, len, &out);
}

static int dec_enum(const uint8_t *p, size_t len)
{
    unsigned n;
    return afp_dec_enumerate(p, len, false, NULL, NULL, &n);
}

static int dec_enum2(const uint8_t *p, size_t len)
{
    unsigned n;
    return afp_dec_enumerate(p, len, true, NULL, NULL, &n);
}

/* Every proper prefix of a golden reply is malformed: each byte is needed. */
static void truncations(decode_fn fn, const uint8_t *vec, size_t n)
{
    unsigned bad = 0;
    for (size_t len = 0; len < n; len++) {
        uint8_t *p = dup_exact(vec, len);
        if (fn(p, len) != AFPB_EPROTO)
            bad++;
        free(p);
    }
    CHECK_INT(bad, 0);
    uint8_t *p = dup_exact(vec, n);
    CHECK_INT(fn(p, n), 0);
    free(p);
}

static void test_filedirparms_golden(void)
{
    struct afp_params o;
    uint8_t *p = dup_exact(file_reply, sizeof file_reply);
    CHECK_INT(afp_dec_filedirparms(p, sizeof file_reply, &o), 0);
    CHECK(!o.is_dir);
    CHECK_INT(o.bitmap, 0x2B43);
    CHECK_INT(o.attributes, 0x0020);
    CHECK_INT(o.parent_did, 2);
    CHECK_INT(o.id, 42);
    CHECK_INT(o.data_len, 4096);
    CHECK_INT(o.ext_data_len, 0x100001000ll);
    CHECK_STR(o.long_name, "hello");
    CHECK_STR(o.utf8_name, "hello");
    free(p);

    p = dup_exact(dir_reply, sizeof dir_reply);
    CHECK_INT(afp_dec_filedirparms(p, sizeof dir_reply, &o), 0);
    CHECK(o.is_dir);
    CHECK_INT(o.id, 0x11);
    CHECK_INT(o.offspring, 3);
    CHECK_INT(o.access_rights, 0x87070707);
    CHECK_INT(o.unix_uid, 1548);
    CHECK_INT(o.unix_gid, 100);
    CHECK_INT(o.unix_mode, 040755);
    CHECK_STR(o.utf8_name, "dir");
    free(p);
}

static void test_filedirparms_truncated(void)
{
    truncations(dec_fdp, file_reply, sizeof file_reply);
    truncations(dec_fdp, dir_reply, sizeof dir_reply);
}

static void test_filedirparms_hostile(void)
{
    uint8_t v[sizeof file_reply];
    struct afp_params o;

    memcpy(v, file_reply, sizeof v);
    v[4] = 0x42; /* neither file nor directory */
    CHECK_INT(afp_dec_filedirparms(v, sizeof v, &o), AFPB_EPROTO);

    memcpy(v, file_reply, sizeof v);
    v[12] = 0xFF, v[13] = 0xFF; /* long name offset far outside */
    CHECK_INT(afp_dec_filedirparms(v, sizeof v, &o), AFPB_EPROTO);

    memcpy(v, file_reply, sizeof v);
    v[36] = 0xC8; /* long name claims 200 bytes */
    CHECK_INT(afp_dec_filedirparms(v, sizeof v, &o), AFPB_EPROTO);

    memcpy(v, file_reply, sizeof v);
    v[46] = 0x01, v[47] = 0x2C; /* UTF-8 name claims 300 bytes: more than fits anywhere */
    CHECK_INT(afp_dec_filedirparms(v, sizeof v, &o), AFPB_EPROTO);

    memcpy(v, file_reply, sizeof v);
    v[46] = 0x00, v[47] = 0x06; /* one byte more than there is */
    CHECK_INT(afp_dec_filedirparms(v, sizeof v, &o), AFPB_EPROTO);

    memcpy(v, file_reply, sizeof v);
    v[12] = 0x00, v[13] = 0x00; /* offset 0: no long name, still fine */
    CHECK_INT(afp_dec_filedirparms(v, sizeof v, &o), 0);
    CHECK_STR(o.long_name, "");

    /* Directory bit 14 does not exist. */
    uint8_t d[sizeof dir_reply];
    memcpy(d, dir_reply, sizeof d);
    d[2] = 0xF3;
    CHECK_INT(afp_dec_filedirparms(d, sizeof d, &o), AFPB_EPROTO);
}

static void test_volparms(void)
{
    struct afp_volparms vp;
    uint8_t *p = dup_exact(vol_reply, sizeof vol_reply);
    CHECK_INT(afp_dec_volparms(p, sizeof vol_reply, &vp), 0);
    CHECK_INT(vp.attributes, 0x1CEC);
    CHECK_INT(vp.signature, 2);
    CHECK_INT(vp.volid, 1);
    CHECK_STR(vp.name, "file sharing");
    free(p);
    truncations(dec_vol, vol_reply, sizeof vol_reply);

    uint8_t v[sizeof vol_reply];
    memcpy(v, vol_reply, sizeof v);
    v[0] |= 0x10; /* undefined bit 12 */
    CHECK_INT(afp_dec_volparms(v, sizeof v, &vp), AFPB_EPROTO);
    memcpy(v, vol_reply, sizeof v);
    v[9] = 0x20; /* name offset past the end */
    CHECK_INT(afp_dec_volparms(v, sizeof v, &vp), AFPB_EPROTO);
    memcpy(v, vol_reply, sizeof v);
    v[10] = 0xFF; /* name longer than the reply */
    CHECK_INT(afp_dec_volparms(v, sizeof v, &vp), AFPB_EPROTO);
}

static void test_forks(void)
{
    struct afp_params o;
    afp_fork_t f = {{0, 0}};
    uint8_t *p = dup_exact(openfork_reply, sizeof openfork_reply);
    CHECK_INT(afp_dec_openfork(p, sizeof openfork_reply, &f, &o), 0);
    CHECK_INT(f.b[0], 0x01);
    CHECK_INT(f.b[1], 0x00);
    CHECK_INT(o.parent_did, 0x1B);
    CHECK_INT(o.id, 0x1C);
    CHECK_INT(o.data_len, 0);
    CHECK_STR(o.long_name, "alpha.txt");
    free(p);
    /* Without a params struct only the refnum matters. */
    p = dup_exact(openfork_reply, 4);
    CHECK_INT(afp_dec_openfork(p, 4, &f, NULL), 0);
    free(p);
    truncations(dec_openfork, openfork_reply, sizeof openfork_reply);

    p = dup_exact(forkparms_reply, sizeof forkparms_reply);
    CHECK_INT(afp_dec_forkparms(p, sizeof forkparms_reply, &o), 0);
    CHECK_INT(o.parent_did, 5);
    CHECK_INT(o.data_len, 512);
    CHECK_STR(o.long_name, "abc");
    free(p);
    truncations(dec_forkparms, forkparms_reply, sizeof forkparms_reply);

    uint8_t v[sizeof forkparms_reply];
    memcpy(v, forkparms_reply, sizeof v);
    v[7] = 0x0F; /* name offset points at the last byte: length byte 'c' runs past */
    CHECK_INT(afp_dec_forkparms(v, sizeof v, &o), AFPB_EPROTO);
}

struct seen {
    unsigned n;
    char names[4][256];
    bool dir[4];
    uint32_t id[4];
    unsigned stop_after;
};

static int collect(void *ctx, const struct afp_params *e)
{
    struct seen *s = ctx;
    if (s->n < 4) {
        strcpy(s->names[s->n], e->long_name);
        s->dir[s->n] = e->is_dir;
        s->id[s->n] = e->id;
    }
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

static void test_enumerate(void)
{
    const struct {
        const uint8_t *v;
        size_t n;
        bool ext2;
    } cases[] = {{enum_reply, sizeof enum_reply, false}, {enum2_reply, sizeof enum2_reply, true}};
    for (size_t i = 0; i < 2; i++) {
        struct seen s = {0};
        unsigned count = 99;
        uint8_t *p = dup_exact(cases[i].v, cases[i].n);
        CHECK_INT(afp_dec_enumerate(p, cases[i].n, cases[i].ext2, collect, &s, &count), 0);
        CHECK_INT(count, 2);
        CHECK_INT(s.n, 2);
        CHECK_STR(s.names[0], "a");
        CHECK(!s.dir[0]);
        CHECK_INT(s.id[0], 7);
        CHECK_STR(s.names[1], "bc");
        CHECK(s.dir[1]);
        CHECK_INT(s.id[1], 8);
        /* The callback can stop early. */
        struct seen one = {.stop_after = 1};
        CHECK_INT(afp_dec_enumerate(p, cases[i].n, cases[i].ext2, collect, &one, &count), 0);
        CHECK_INT(count, 1);
        free(p);
    }
    truncations(dec_enum, enum_reply, sizeof enum_reply);
    truncations(dec_enum2, enum2_reply, sizeof enum2_reply);
}

static void test_enumerate_hostile(void)
{
    unsigned count;
    uint8_t v[sizeof enum2_reply];

    memcpy(v, enum_reply, sizeof enum_reply);
    v[6] = 0x00; /* zero record length: must not loop forever */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum_reply, false, NULL, NULL, &count), AFPB_EPROTO);
    memcpy(v, enum_reply, sizeof enum_reply);
    v[6] = 0x01; /* shorter than the record header */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum_reply, false, NULL, NULL, &count), AFPB_EPROTO);
    memcpy(v, enum_reply, sizeof enum_reply);
    v[16] = 0xF0; /* second record runs past the end */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum_reply, false, NULL, NULL, &count), AFPB_EPROTO);
    memcpy(v, enum_reply, sizeof enum_reply);
    v[4] = 0xFF, v[5] = 0xFF; /* 65535 entries promised, two present */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum_reply, false, NULL, NULL, &count), AFPB_EPROTO);
    CHECK_INT(count, 2);
    memcpy(v, enum_reply, sizeof enum_reply);
    v[7] = 0x01; /* kind neither file nor directory */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum_reply, false, NULL, NULL, &count), AFPB_EPROTO);
    memcpy(v, enum_reply, sizeof enum_reply);
    v[9] = 0x0A; /* name offset outside its own record (but inside the reply) */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum_reply, false, NULL, NULL, &count), AFPB_EPROTO);

    memcpy(v, enum2_reply, sizeof enum2_reply);
    v[6] = 0xFF, v[7] = 0xFE; /* huge even record length */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum2_reply, true, NULL, NULL, &count), AFPB_EPROTO);
    memcpy(v, enum2_reply, sizeof enum2_reply);
    v[4] = 0x00, v[5] = 0x00; /* zero entries: fine, nothing decoded */
    CHECK_INT(afp_dec_enumerate(v, sizeof enum2_reply, true, NULL, NULL, &count), 0);
    CHECK_INT(count, 0);
}

static void test_params_bit_walk(void)
{
    /* All file bits netatalk supports, zero-filled: sizes must add up to
     * 2+4+4+4+4+32+2+2+4+4+4+8+6+8+16 = 104 with names absent (offsets 0). */
    uint8_t zeros[104] = {0};
    struct afp_params o;
    uint16_t all_file = 0xEFFF;
    CHECK_INT(afp_dec_params(zeros, sizeof zeros, all_file, false, &o), 0);
    CHECK_INT(afp_dec_params(zeros, sizeof zeros - 1, all_file, false, &o), AFPB_EPROTO);
    /* Directory: 2+4+4+4+4+32+2+2+4+2+4+4+4+6+16 = 94. */
    uint16_t all_dir = 0xBFFF;
    CHECK_INT(afp_dec_params(zeros, 94, all_dir, true, &o), 0);
    CHECK_INT(afp_dec_params(zeros, 93, all_dir, true, &o), AFPB_EPROTO);
}

int main(void)
{
    RUN(test_filedirparms_golden);
    RUN(test_filedirparms_truncated);
    RUN(test_filedirparms_hostile);
    RUN(test_volparms);
    RUN(test_forks);
    RUN(test_enumerate);
    RUN(test_enumerate_hostile);
    RUN(test_params_bit_walk);
    return harness_report();
}

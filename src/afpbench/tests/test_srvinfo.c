/* Server information block decoder: a hand-built golden block, every
 * truncation of it, hostile variants, and the block a real netatalk 4.2.3
 * sent (captured into fuzz/corpus/srvinfo by tests/capture_replies). */
#include <stdlib.h>
#include <string.h>

#include "dsi.h"
#include "harness.h"
#include "srvinfo.h"

static const uint8_t block[] = {
    0x00, 0x16, 0x00, 0x24, 0x00, 0x33, 0x00, 0x00, /* machine, versions, UAMs, icon */
    0x02, 0x30,                                     /* flags: signature, TCP/IP, UTF-8 name */
    0x03, 's',  'r',  'v',                          /* server name, ends even */
    0x00, 0x45, 0x00, 0x55, 0x00, 0x00, 0x00, 0x70, /* signature, addresses, dirsvc, utf8 */
    0x0D, 'N',  'e',  't',  'a',  't',  'a',  'l',  'k',  '4',  '.',  '2',  '.',  '3', /* @22 */
    0x02, 0x06, 'A',  'F',  'P',  '3',  '.',  '3',  0x06, 'A',  'F',  'P',  '3',  '.',
    '4', /* @36 */
    0x01, 0x10, 'C',  'l',  'e',  'a',  'r',  't',  'x',  't',  ' ',  'P',  'a',  's',
    's',  'w',  'r',  'd', /* @51 */
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD,
    0xEE, 0xFF,                                           /* @69 signature */
    0x02, 0x08, 0x02, 127,  0,    0,    1,    0x02, 0x24, /* @85 IPv4 + port 548 */
    0x12, 0x06, 0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    1,                            /* IPv6 ::1 */
    0x00, 0x06, 's',  'r',  'v',  '-',  'u',  '8'}; /* @112 UTF-8 name */

static int decode_copy(const uint8_t *v, size_t n, struct srvinfo *si)
{
    uint8_t *p = malloc(n ? n : 1);
    memcpy(p, v, n);
    int rc = srvinfo_decode(p, n, si);
    free(p);
    return rc;
}

static void test_golden(void)
{
    static struct srvinfo si;
    CHECK_INT(sizeof block, 120);
    CHECK_INT(decode_copy(block, sizeof block, &si), 0);
    CHECK_STR(si.server_name, "srv");
    CHECK_STR(si.machine_type, "Netatalk4.2.3");
    CHECK_INT(si.flags, 0x0230);
    CHECK_INT(si.n_versions, 2);
    CHECK_STR(si.versions[0], "AFP3.3");
    CHECK_STR(si.versions[1], "AFP3.4");
    CHECK_INT(si.n_uams, 1);
    CHECK_STR(si.uams[0], "Cleartxt Passwrd");
    CHECK(si.has_signature);
    CHECK_INT(si.signature[15], 0xFF);
    CHECK_INT(si.n_addresses, 2);
    CHECK_STR(si.addresses[0], "127.0.0.1:548");
    CHECK_STR(si.addresses[1], "[::1]");
    CHECK_STR(si.utf8_name, "srv-u8");
}

static void test_truncated(void)
{
    static struct srvinfo si;
    unsigned accepted = 0;
    for (size_t len = 0; len < sizeof block; len++)
        if (decode_copy(block, len, &si) != AFPB_EPROTO)
            accepted++;
    CHECK_INT(accepted, 0);
}

static void test_hostile(void)
{
    static struct srvinfo si;
    uint8_t v[sizeof block];

    memcpy(v, block, sizeof v);
    v[2] = 0xFF, v[3] = 0xFF; /* version list offset outside */
    CHECK_INT(decode_copy(v, sizeof v, &si), AFPB_EPROTO);

    memcpy(v, block, sizeof v);
    v[36] = 200; /* 200 versions promised */
    CHECK_INT(decode_copy(v, sizeof v, &si), AFPB_EPROTO);

    memcpy(v, block, sizeof v);
    v[86] = 0x01; /* address entry shorter than its own header */
    CHECK_INT(decode_copy(v, sizeof v, &si), AFPB_EPROTO);

    memcpy(v, block, sizeof v);
    v[112] = 0x01, v[113] = 0x2C; /* UTF-8 name of 300 bytes */
    CHECK_INT(decode_copy(v, sizeof v, &si), AFPB_EPROTO);

    memcpy(v, block, sizeof v);
    v[10] = 0xF0; /* server name runs off the end */
    CHECK_INT(decode_copy(v, sizeof v, &si), AFPB_EPROTO);

    /* Optional fields whose flag is clear are ignored, even if their offsets are junk. */
    memcpy(v, block, sizeof v);
    v[8] = 0x00, v[9] = 0x00;
    v[14] = 0xFF, v[16] = 0xFF, v[20] = 0xFF;
    CHECK_INT(decode_copy(v, sizeof v, &si), 0);
    CHECK(!si.has_signature);
    CHECK_INT(si.n_addresses, 0);
    CHECK_STR(si.utf8_name, "");
}

static void test_long_lists_are_counted(void)
{
    /* 20 one-letter UAMs: the first SRVINFO_MAX_LIST kept, all counted. */
    uint8_t v[64];
    size_t n = 0;
    v[n++] = 0x00, v[n++] = 0x0E; /* machine @14 */
    v[n++] = 0x00, v[n++] = 0x10; /* versions @16 */
    v[n++] = 0x00, v[n++] = 0x11; /* UAMs @17 */
    v[n++] = 0x00, v[n++] = 0x00; /* icon */
    v[n++] = 0x00, v[n++] = 0x00; /* flags */
    v[n++] = 0x01, v[n++] = 'x';  /* name "x", ends at 12 */
    v[n++] = 0x00, v[n++] = 0x00; /* not enough for the 4 trailing offsets: none */
    v[n++] = 0x01, v[n++] = 'M';  /* @14 machine */
    v[n++] = 0x00;                /* @16 no versions */
    v[n++] = 20;                  /* @17 UAM count */
    for (int i = 0; i < 20; i++)
        v[n++] = 0x01, v[n++] = (uint8_t)('a' + i);
    static struct srvinfo si;
    CHECK_INT(decode_copy(v, n, &si), 0);
    CHECK_INT(si.n_uams, 20);
    CHECK_STR(si.uams[15], "p");
    CHECK_INT(si.n_versions, 0);
}

static void test_real_server_block(void)
{
    size_t n = 0;
    uint8_t *p = harness_read_file("fuzz/corpus/srvinfo/netatalk-status.bin", &n);
    if (!CHECK(p != NULL))
        return;
    static struct srvinfo si;
    CHECK_INT(srvinfo_decode(p, n, &si), 0);
    CHECK(strncmp(si.machine_type, "Netatalk", 8) == 0);
    bool has34 = false, has_clear = false;
    for (unsigned i = 0; i < si.n_versions && i < SRVINFO_MAX_LIST; i++)
        has34 |= strcmp(si.versions[i], "AFP3.4") == 0;
    for (unsigned i = 0; i < si.n_uams && i < SRVINFO_MAX_LIST; i++)
        has_clear |= strcmp(si.uams[i], "Cleartxt Passwrd") == 0;
    CHECK(has34);
    CHECK(has_clear);
    CHECK(si.has_signature);
    CHECK(si.n_addresses >= 1);
    free(p);
}

int main(void)
{
    RUN(test_golden);
    RUN(test_truncated);
    RUN(test_hostile);
    RUN(test_long_lists_are_counted);
    RUN(test_real_server_block);
    return harness_report();
}

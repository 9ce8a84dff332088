/* Golden byte vectors for every AFP request encoder (layouts from
 * docs/../shared reference afp-protocol.md §3-4, written out by hand). */
#include <string.h>

#include "afp.h"
#include "harness.h"

static uint8_t mem[1024];
static struct bw w;

static struct bw *fresh(void)
{
    memset(mem, 0xEE, sizeof mem);
    bw_init(&w, mem, sizeof mem);
    return &w;
}

#define EXPECT(...)                                                                                \
    do {                                                                                           \
        static const uint8_t want_[] = {__VA_ARGS__};                                              \
        CHECK(bw_ok(&w));                                                                          \
        CHECK_MEM(w.p, w.len, want_, sizeof want_);                                                \
    } while (0)

static const afp_fork_t fork1 = {{0x01, 0x00}}; /* refnum 1 as an x86 netatalk sends it */

static void test_path(void)
{
    afp_enc_path(fresh(), "file.bin", true);
    EXPECT(0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x08, 'f', 'i', 'l', 'e', '.', 'b', 'i', 'n');
    afp_enc_path(fresh(), "file.bin", false);
    EXPECT(0x02, 0x08, 'f', 'i', 'l', 'e', '.', 'b', 'i', 'n');
    afp_enc_path(fresh(), "", true);
    EXPECT(0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x00);
    afp_enc_path(fresh(), NULL, false);
    EXPECT(0x02, 0x00);
    /* 255 bytes is the limit of one component. */
    char longname[300];
    memset(longname, 'a', sizeof longname);
    longname[255] = '\0';
    afp_enc_path(fresh(), longname, true);
    CHECK(bw_ok(&w));
    CHECK_INT(w.len, 7 + 255);
    longname[255] = 'a';
    longname[256] = '\0';
    afp_enc_path(fresh(), longname, true);
    CHECK(!bw_ok(&w));
}

static void test_login(void)
{
    /* The reference's example: 40 bytes, pad after the odd-length user. */
    afp_enc_login_cleartext(fresh(), "AFP3.4", "bench", "secret");
    EXPECT(0x12, 6, 'A', 'F', 'P', '3', '.', '4', 16, 'C', 'l', 'e', 'a', 'r', 't', 'x', 't', ' ',
           'P', 'a', 's', 's', 'w', 'r', 'd', 5, 'b', 'e', 'n', 'c', 'h', 0x00, 's', 'e', 'c', 'r',
           'e', 't', 0, 0);
    /* Even length after the user name: no pad; an 8-character password fills it. */
    afp_enc_login_cleartext(fresh(), "AFP3.4", "ab", "12345678");
    EXPECT(0x12, 6, 'A', 'F', 'P', '3', '.', '4', 16, 'C', 'l', 'e', 'a', 'r', 't', 'x', 't', ' ',
           'P', 'a', 's', 's', 'w', 'r', 'd', 2, 'a', 'b', '1', '2', '3', '4', '5', '6', '7', '8');
    afp_enc_login_cleartext(fresh(), "AFP3.4", "ab", "123456789");
    CHECK(!bw_ok(&w));
}

static void test_session_commands(void)
{
    afp_enc_logout(fresh());
    EXPECT(0x14, 0x00);
    afp_enc_openvol(fresh(), 0x0021, "bench");
    EXPECT(0x18, 0x00, 0x00, 0x21, 0x05, 'b', 'e', 'n', 'c', 'h');
    afp_enc_getvolparms(fresh(), 0x0001, 0x0208);
    EXPECT(0x11, 0x00, 0x00, 0x01, 0x02, 0x08);
}

static void test_filedir_commands(void)
{
    afp_enc_getfiledirparms(fresh(), 0x0001, 0x00000002, 0x0042, 0x0142, "x", true);
    EXPECT(0x22, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x42, 0x01, 0x42, 0x03, 0x08, 0x00,
           0x01, 0x03, 0x00, 0x01, 'x');
    afp_enc_createdir(fresh(), 0x0001, 0x00000010, "d", true);
    EXPECT(0x06, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x01,
           'd');
    afp_enc_createfile(fresh(), false, 0x0001, 0x00000010, "f", true);
    EXPECT(0x07, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x01,
           'f');
    afp_enc_createfile(fresh(), true, 0x0001, 0x00000010, "f", false);
    EXPECT(0x07, 0x80, 0x00, 0x01, 0x00, 0x00, 0x00, 0x10, 0x02, 0x01, 'f');
    afp_enc_delete(fresh(), 0x0001, 0xA0B0C0D0, "f", true);
    EXPECT(0x08, 0x00, 0x00, 0x01, 0xA0, 0xB0, 0xC0, 0xD0, 0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x01,
           'f');
    afp_enc_enumerate(fresh(), 0x0001, 0x00000011, 0x073D, 0x133F, 40, 41, 8192, "", false);
    EXPECT(0x09, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x07, 0x3D, 0x13, 0x3F, 0x00, 40, 0x00,
           41, 0x20, 0x00, 0x02, 0x00);
    afp_enc_enumerate_ext2(fresh(), 0x0001, 0x00000011, 0x2000, 0x2100, 100, 0x00010001, 65000, "",
                           true);
    EXPECT(0x44, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x20, 0x00, 0x21, 0x00, 0x00, 100, 0x00,
           0x01, 0x00, 0x01, 0x00, 0x00, 0xFD, 0xE8, 0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x00);
    afp_enc_copyfile(fresh(), 0x0001, 0x00000011, 0x0002, 0x00000022, "s", "n", true);
    EXPECT(0x05, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x00, 0x02, 0x00, 0x00, 0x00, 0x22, 0x03,
           0x08, 0x00, 0x01, 0x03, 0x00, 0x01, 's',  /* source */
           0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x00, /* destination dir: dst_did */
           0x03, 0x08, 0x00, 0x01, 0x03, 0x00, 0x01, 'n');
}

static void test_fork_commands(void)
{
    afp_enc_openfork(fresh(), AFP_FORK_DATA, 0x0001, 0x00000011, 0x0342,
                     AFP_OPEN_READ | AFP_OPEN_DENY_WRITE, "f", true);
    EXPECT(0x1A, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x03, 0x42, 0x00, 0x21, 0x03, 0x08, 0x00,
           0x01, 0x03, 0x00, 0x01, 'f');
    afp_enc_openfork(fresh(), AFP_FORK_RSRC, 0x0001, 0x00000011, 0, AFP_OPEN_WRITE, "f", false);
    EXPECT(0x1A, 0x80, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x02, 0x02, 0x01, 'f');
    afp_enc_closefork(fresh(), fork1);
    EXPECT(0x04, 0x00, 0x01, 0x00);
    afp_enc_flushfork(fresh(), fork1);
    EXPECT(0x0B, 0x00, 0x01, 0x00);
    afp_enc_read(fresh(), fork1, 0x00010000, 512);
    EXPECT(0x1B, 0x00, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00);
    afp_enc_readext(fresh(), fork1, 0x0000000100000000ull, 0x100000);
    EXPECT(0x3C, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x00, 0x10, 0x00, 0x00);
    afp_enc_write(fresh(), 0, fork1, 20480, 20480);
    EXPECT(0x21, 0x00, 0x01, 0x00, 0x00, 0x00, 0x50, 0x00, 0x00, 0x00, 0x50, 0x00);
    afp_enc_writeext(fresh(), AFP_WRITE_FROM_END, fork1, 0, 5);
    EXPECT(0x3D, 0x80, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5);
    afp_enc_byterangelock(fresh(), AFP_LOCK_UNLOCK, fork1, 390, 10);
    EXPECT(0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x01, 0x86, 0x00, 0x00, 0x00, 0x0A);
    afp_enc_byterangelock_ext(fresh(), 0, fork1, 10, -1);
    EXPECT(0x3B, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
           0xFF, 0xFF);
    afp_enc_getforkparms(fresh(), fork1, 0x0242);
    EXPECT(0x0E, 0x00, 0x01, 0x00, 0x02, 0x42);
    afp_enc_setforkparms(fresh(), fork1, AFP_FILE_EXTDFLEN, 0x123456789ull);
    EXPECT(0x1F, 0x00, 0x01, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89);
    afp_enc_setforkparms(fresh(), fork1, AFP_FILE_DFLEN, 4096);
    EXPECT(0x1F, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x10, 0x00);
    afp_enc_setforkparms(fresh(), fork1, AFP_FILE_DFLEN, 0x100000000ull); /* too big for 32 bits */
    CHECK(!bw_ok(&w));
    afp_enc_setforkparms(fresh(), fork1, AFP_FILE_DFLEN | AFP_FILE_RFLEN, 1); /* two bits */
    CHECK(!bw_ok(&w));
}

static void test_overflow_small_buffer(void)
{
    /* Every encoder must stay inside a too-small buffer and say so. */
    uint8_t tiny[5];
    memset(tiny, 0xEE, sizeof tiny);
    struct bw t;
    bw_init(&t, tiny, 4);
    afp_enc_openvol(&t, 0x0021, "bench");
    CHECK(!bw_ok(&t));
    CHECK_INT(tiny[4], 0xEE);
    bw_init(&t, tiny, 4);
    afp_enc_readext(&t, fork1, 0, 1);
    CHECK(!bw_ok(&t));
    CHECK_INT(tiny[4], 0xEE);
}

int main(void)
{
    RUN(test_path);
    RUN(test_login);
    RUN(test_session_commands);
    RUN(test_filedir_commands);
    RUN(test_fork_commands);
    RUN(test_overflow_small_buffer);
    return harness_report();
}

/* The AFP decoders on replies a real netatalk 4.2.3 sent (captured by
 * tests/capture_replies into fuzz/corpus/, which builds a known layout:
 * alpha.txt = "hello", beta.bin empty, directory gamma, volume "File Sharing"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "afp.h"
#include "harness.h"

static uint8_t *load(const char *path, size_t *n)
{
    uint8_t *p = harness_read_file(path, n);
    if (!p)
        CHECK(!"captured reply missing (run make capture against a server)");
    return p;
}

static void test_opensession(void)
{
    size_t n;
    uint8_t *p = load("fuzz/corpus/opensession/netatalk-reply.bin", &n);
    if (!p)
        return;
    uint32_t q = 0, replay = 0;
    CHECK_INT(dsi_opensession_decode(p, n, &q, &replay), 0);
    CHECK_INT(q, 1048576);
    CHECK_INT(replay, 128);
    free(p);
}

static void test_volparms(void)
{
    size_t n;
    struct afp_volparms vp;
    uint8_t *p = load("fuzz/corpus/volparms/netatalk-getvolparms-all.bin", &n);
    if (!p)
        return;
    CHECK_INT(afp_dec_volparms(p, n, &vp), 0);
    CHECK_INT(vp.bitmap, 0x0FFF);
    CHECK_STR(vp.name, "file sharing");
    CHECK(vp.ext_bytes_total >= vp.ext_bytes_free);
    CHECK(vp.block_size > 0);
    CHECK(vp.volid != 0);
    free(p);
}

static void test_filedirparms(void)
{
    size_t n;
    struct afp_params o;
    uint8_t *p = load("fuzz/corpus/filedirparms/netatalk-file-all.bin", &n);
    if (p) {
        CHECK_INT(afp_dec_filedirparms(p, n, &o), 0);
        CHECK(!o.is_dir);
        CHECK_STR(o.long_name, "alpha.txt");
        CHECK_STR(o.utf8_name, "alpha.txt");
        CHECK_INT(o.data_len, 5);
        CHECK_INT(o.ext_data_len, 5);
        CHECK_INT(o.unix_mode & 0170000, 0100000); /* a regular file */
        free(p);
    }
    p = load("fuzz/corpus/filedirparms/netatalk-dir-all.bin", &n);
    if (p) {
        CHECK_INT(afp_dec_filedirparms(p, n, &o), 0);
        CHECK(o.is_dir);
        CHECK_INT(o.offspring, 3);
        CHECK(strncmp(o.utf8_name, "capture-", 8) == 0);
        CHECK_INT(o.unix_mode & 0170000, 0040000); /* a directory */
        free(p);
    }
    p = load("fuzz/corpus/filedirparms/netatalk-root-lname.bin", &n);
    if (p) {
        CHECK_INT(afp_dec_filedirparms(p, n, &o), 0);
        CHECK(o.is_dir);
        CHECK_INT(o.parent_did, 1);             /* the root's parent */
        CHECK_STR(o.long_name, "file sharing"); /* netatalk lower-cases the section name */
        free(p);
    }
}

static void test_forks(void)
{
    size_t n;
    struct afp_params o;
    afp_fork_t f;
    uint8_t *p = load("fuzz/corpus/openfork/netatalk-reply.bin", &n);
    if (p) {
        CHECK_INT(afp_dec_openfork(p, n, &f, &o), 0);
        CHECK_STR(o.long_name, "alpha.txt");
        CHECK(f.b[0] != 0 || f.b[1] != 0);
        free(p);
    }
    p = load("fuzz/corpus/forkparms/netatalk-reply.bin", &n);
    if (p) {
        CHECK_INT(afp_dec_forkparms(p, n, &o), 0);
        CHECK_INT(o.data_len, 5);
        CHECK_INT(o.ext_data_len, 5);
        CHECK_STR(o.utf8_name, "alpha.txt");
        free(p);
    }
}

struct names {
    unsigned n, dirs;
    char all[256];
    uint64_t alpha_len;
};

static int add_name(void *ctx, const struct afp_params *e)
{
    struct names *s = ctx;
    const char *name = e->utf8_name[0] ? e->utf8_name : e->long_name;
    s->n++;
    s->dirs += e->is_dir;
    size_t used = strlen(s->all);
    snprintf(s->all + used, sizeof s->all - used, "%s ", name);
    if (strcmp(name, "alpha.txt") == 0)
        s->alpha_len = e->ext_data_len ? e->ext_data_len : e->data_len;
    return 0;
}

static void test_enumerate(void)
{
    size_t n;
    unsigned count;
    uint8_t *p = load("fuzz/corpus/enumerate/netatalk-enumerate.bin", &n);
    if (p) {
        struct names s = {0};
        CHECK_INT(afp_dec_enumerate(p, n, false, add_name, &s, &count), 0);
        CHECK_INT(count, 3);
        CHECK_INT(s.dirs, 1);
        CHECK(strstr(s.all, "alpha.txt ") && strstr(s.all, "beta.bin ") && strstr(s.all, "gamma "));
        CHECK_INT(s.alpha_len, 5);
        free(p);
    }
    p = load("fuzz/corpus/enumerate_ext2/netatalk-enumerate-ext2.bin", &n);
    if (p) {
        struct names s = {0};
        CHECK_INT(afp_dec_enumerate(p, n, true, add_name, &s, &count), 0);
        CHECK_INT(count, 3);
        CHECK_INT(s.dirs, 1);
        CHECK(strstr(s.all, "alpha.txt ") && strstr(s.all, "beta.bin ") && strstr(s.all, "gamma "));
        CHECK_INT(s.alpha_len, 5);
        free(p);
    }
}

int main(void)
{
    RUN(test_opensession);
    RUN(test_volparms);
    RUN(test_filedirparms);
    RUN(test_forks);
    RUN(test_enumerate);
    return harness_report();
}

/* safetext: server-supplied strings escaped before printing (issue 10). */
#include <string.h>

#include "harness.h"
#include "safetext.h"

static void test_plain_text_unchanged(void)
{
    char out[64];
    safetext(out, sizeof out, "Netatalk4.2.3 afpbench-server");
    CHECK_STR(out, "Netatalk4.2.3 afpbench-server");
    safetext(out, sizeof out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € emoji */
    CHECK_STR(out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    safetext(out, sizeof out, "a:b");
    CHECK_STR(out, "a:b");
}

static void test_controls_and_commands_escaped(void)
{
    char out[256];
    safetext(out, sizeof out, "srv\x1b[2J\r\n::error::pwned\n::set-output name=x::y");
    CHECK_STR(out, "srv\\x1b[2J\\x0d\\x0a:\\x3aerror:\\x3apwned\\x0a:\\x3aset-output "
                   "name=x:\\x3ay");
    CHECK(strchr(out, '\x1b') == NULL && strchr(out, '\n') == NULL && strchr(out, '\r') == NULL);
    CHECK(strstr(out, "::") == NULL);
    /* DEL, a backslash, a C1 CSI (U+009B), malformed UTF-8, an overlong '/' */
    safetext(out, sizeof out, "\x7f\\\xc2\x9b\xff\xc0\xaf");
    CHECK_STR(out, "\\x7f\\x5c\\xc2\\x9b\\xff\\xc0\\xaf");
    /* a truncated sequence at the end */
    safetext(out, sizeof out, "x\xe2\x82");
    CHECK_STR(out, "x\\xe2\\x82");
}

static void test_bounded(void)
{
    char out[8];
    CHECK_INT(safetext(out, sizeof out, "abcdefghij"), 7);
    CHECK_STR(out, "abcdefg");
    /* an escape is never cut: "ab" + "\x1b" needs 7 bytes, "\x1b" twice does not fit */
    safetext(out, sizeof out, "ab\x1b\x1b");
    CHECK_STR(out, "ab\\x1b");
    char in_place[16] = "a\nb";
    safetext_inplace(in_place, sizeof in_place);
    CHECK_STR(in_place, "a\\x0ab");
}

int main(void)
{
    RUN(test_plain_text_unchanged);
    RUN(test_controls_and_commands_escaped);
    RUN(test_bounded);
    return harness_report();
}

/* cli.c: test selection (afp_lantest's digits and our lists), sizes, ops,
 * the connection options all subcommands share, the full lantest/speedtest
 * parsers and password redaction. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "harness.h"
#include "pin.h"

#define BIT(n) (1u << ((n)-1))

/* getopt wants char **; the literals are const. Copies are freed at the end. */
static char **made[128];
static int nmade;

static char **make_argv(const char *const *in)
{
    int n = 0;
    while (in[n] != NULL)
        n++;
    char **out = calloc((size_t)n + 1, sizeof *out);
    for (int i = 0; out != NULL && i < n; i++)
        out[i] = strdup(in[i]);
    if (nmade < 128)
        made[nmade++] = out;
    return out;
}

static void free_argvs(void)
{
    for (int i = 0; i < nmade; i++) {
        for (char **p = made[i]; p && *p; p++)
            free(*p);
        free(made[i]);
    }
}

static int count_args(char **argv)
{
    int n = 0;
    while (argv[n] != NULL)
        n++;
    return n;
}

static void test_test_list_forms(void)
{
    uint32_t m;
    char err[160];
    CHECK_INT(cli_parse_test_list("134", &m, err, sizeof err), 0);
    CHECK_INT(m, BIT(1) | BIT(3) | BIT(4));
    CHECK_INT(cli_parse_test_list("1,10,12", &m, err, sizeof err), 0);
    CHECK_INT(m, BIT(1) | BIT(10) | BIT(12));
    CHECK_INT(cli_parse_test_list("2-5,9", &m, err, sizeof err), 0);
    CHECK_INT(m, BIT(2) | BIT(3) | BIT(4) | BIT(5) | BIT(9));
    /* "12" is tests 1 and 2, as in afp_lantest; "12," is test 12 */
    CHECK_INT(cli_parse_test_list("12", &m, err, sizeof err), 0);
    CHECK_INT(m, BIT(1) | BIT(2));
    CHECK_INT(cli_parse_test_list("12,", &m, err, sizeof err), 0);
    CHECK_INT(m, BIT(12));
    CHECK_INT(cli_parse_test_list("10-12", &m, err, sizeof err), 0);
    CHECK_INT(m, BIT(10) | BIT(11) | BIT(12));
}

static void test_test_list_errors(void)
{
    uint32_t m;
    char err[160];
    CHECK_INT(cli_parse_test_list("", &m, err, sizeof err), -1);
    CHECK_INT(cli_parse_test_list("0", &m, err, sizeof err), -1);
    CHECK(strstr(err, "use commas") != NULL);
    CHECK_INT(cli_parse_test_list("13,", &m, err, sizeof err), -1);
    CHECK(strstr(err, "13") != NULL);
    CHECK_INT(cli_parse_test_list("5-3", &m, err, sizeof err), -1);
    CHECK_INT(cli_parse_test_list("1,,2", &m, err, sizeof err), -1);
    CHECK_INT(cli_parse_test_list("a", &m, err, sizeof err), -1);
}

static void test_dependencies(void)
{
    uint32_t m = BIT(3) | BIT(6);
    uint32_t added = cli_add_test_dependencies(&m, 0);
    CHECK_INT(added, BIT(2) | BIT(5));
    m = BIT(3) | BIT(7);
    CHECK_INT(cli_add_test_dependencies(&m, 1), BIT(5)); /* -F: 3 needs no 2 */
    m = BIT(1);
    CHECK_INT(cli_add_test_dependencies(&m, 0), 0);
}

static void test_sizes_and_ops(void)
{
    uint64_t sizes[4];
    char err[160];
    CHECK_INT(cli_parse_sizes("0.00390625,1,64", sizes, 4, err, sizeof err), 3);
    CHECK_INT(sizes[0], 4096);
    CHECK_INT(sizes[1], 1048576);
    CHECK_INT(sizes[2], 64ull << 20);
    CHECK_INT(cli_parse_sizes("1,2,3,4,5", sizes, 4, err, sizeof err), -1);
    CHECK_INT(cli_parse_sizes("1,x", sizes, 4, err, sizeof err), -1);
    CHECK_INT(cli_parse_sizes("0", sizes, 4, err, sizeof err), -1);
    CHECK_INT(cli_parse_sizes("-1", sizes, 4, err, sizeof err), -1);
    CHECK_INT(cli_parse_sizes("5000", sizes, 4, err, sizeof err), -1);

    unsigned ops;
    CHECK_INT(cli_parse_ops("Read,write,SERVERCOPY", &ops, err, sizeof err), 0);
    CHECK_INT(ops, (1u << SPEED_READ) | (1u << SPEED_WRITE) | (1u << SPEED_SERVERCOPY));
    CHECK_INT(cli_parse_ops("Read,Move", &ops, err, sizeof err), -1);
    CHECK(strstr(err, "Move") != NULL);
}

static void test_uint(void)
{
    unsigned long long v;
    CHECK_INT(cli_parse_uint("42", 1, 100, &v), 0);
    CHECK_INT(v, 42);
    CHECK_INT(cli_parse_uint("0", 1, 100, &v), -1);
    CHECK_INT(cli_parse_uint("101", 1, 100, &v), -1);
    CHECK_INT(cli_parse_uint("-1", 0, 100, &v), -1);
    CHECK_INT(cli_parse_uint("1x", 0, 100, &v), -1);
    CHECK_INT(cli_parse_uint("99999999999999999999999", 0, ~0ull, &v), -1);
}

static void test_lantest_parse(void)
{
    unsetenv("AFP_PASS");
    unsetenv("AFP_HOST");
    struct lantest_opts o;
    char **argv = make_argv(
        (const char *[]){"lantest", "-h", "srv",      "-p", "10570",  "-s",       "Vol",
                         "-u",      "me", "-wsecret", "-n", "3",      "-f",       "1,10,12",
                         "-g",      "-G", "-c",       "-5", "--json", "out.json", NULL});
    CHECK_INT(cli_parse_lantest(count_args(argv), argv, &o), 0);
    CHECK_STR(o.common.conn.host, "srv");
    CHECK_INT(o.common.conn.port, 10570);
    CHECK_STR(o.common.conn.password, "secret");
    CHECK_STR(o.common.conn.afp_version, "AFP3.2");
    CHECK_INT(o.common.iterations, 3);
    CHECK_INT(o.tests, BIT(1) | BIT(10) | BIT(12));
    CHECK_INT(o.bigfile_bytes, 100ull * 1048576 * 1000); /* -g and -G multiply */
    CHECK(o.csv);
    CHECK_STR(o.common.json_path, "out.json");

    char **red = cli_redacted_argv(count_args(argv), argv, o.common.conn.password);
    CHECK(red != NULL);
    CHECK_STR(red[0], "afpbench");
    CHECK_STR(red[10], "-w***");
    for (int i = 0; red && red[i]; i++)
        CHECK(strstr(red[i], "secret") == NULL);
    cli_free_argv(red);
}

static void test_lantest_defaults_and_errors(void)
{
    struct lantest_opts o;
    setenv("AFP_PASS", "envpass", 1);
    setenv("SHARE_NAME", "Env Share", 1);
    char **k = make_argv((const char *[]){"lantest", "-K", "-u", "x", NULL});
    CHECK_INT(cli_parse_lantest(count_args(k), k, &o), 0);
    CHECK_INT(o.tests, BIT(9) | BIT(10) | BIT(11) | BIT(12));
    CHECK_INT(o.common.iterations, 2);
    CHECK_INT(o.bigfile_bytes, 100ull * 1048576);
    CHECK_STR(o.common.conn.password, "envpass");
    CHECK_STR(o.common.conn.volume, "Env Share");
    char **dep = make_argv((const char *[]){"lantest", "-f", "3", "-u", "x", NULL});
    CHECK_INT(cli_parse_lantest(count_args(dep), dep, &o), 0);
    CHECK_INT(o.tests, BIT(2) | BIT(3));
    unsetenv("AFP_PASS");
    char **nopass = make_argv((const char *[]){"lantest", "-u", "x", NULL});
    CHECK_INT(cli_parse_lantest(count_args(nopass), nopass, &o), 1);
    char **badn = make_argv((const char *[]){"lantest", "-n", "0", "-w", "p", "-u", "x", NULL});
    CHECK_INT(cli_parse_lantest(count_args(badn), badn, &o), 1);
    char **badf = make_argv((const char *[]){"lantest", "-f", "13,", "-w", "p", "-u", "x", NULL});
    CHECK_INT(cli_parse_lantest(count_args(badf), badf, &o), 1);
    char **extra = make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "stray", NULL});
    CHECK_INT(cli_parse_lantest(count_args(extra), extra, &o), 1);
    /* --instr-dir: off unless given, never empty */
    CHECK(o.instr_dir == NULL);
    char **instr =
        make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "--instr-dir", "/i", NULL});
    CHECK_INT(cli_parse_lantest(count_args(instr), instr, &o), 0);
    CHECK_STR(o.instr_dir, "/i");
    char **noinstr =
        make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "--instr-dir", "", NULL});
    CHECK_INT(cli_parse_lantest(count_args(noinstr), noinstr, &o), 1);
    unsetenv("SHARE_NAME");
}

static void test_speedtest_parse(void)
{
    struct speedtest_opts o;
    setenv("SHARE_NAME", "S", 1);
    char **def = make_argv((const char *[]){"speedtest", "-w", "p", "-u", "x", NULL});
    CHECK_INT(cli_parse_speedtest(count_args(def), def, &o), 0);
    CHECK_INT(o.num_sizes, 18); /* the default sweep: 4 KiB .. 512 MiB */
    CHECK_INT(o.sizes[0], 4096);
    CHECK_INT(o.sizes[17], 512ull << 20);
    CHECK(o.sweep && o.stats);
    CHECK_INT(o.ops, 1u << SPEED_WRITE);
    CHECK_INT(o.warmup, 1);
    char **one = make_argv((const char *[]){"speedtest", "-w", "p", "-u", "x", "-d", "8", "-r", "4",
                                            "-q", "512", "-f", "Read,Copy", "-W", "0", NULL});
    CHECK_INT(cli_parse_speedtest(count_args(one), one, &o), 0);
    CHECK_INT(o.num_sizes, 1);
    CHECK_INT(o.sizes[0], 8ull << 20);
    CHECK(!o.sweep && !o.stats);
    CHECK_INT(o.window, 4);
    CHECK_INT(o.quantum, 512 * 1024);
    CHECK_INT(o.warmup, 0);
    char **local = make_argv((const char *[]){"speedtest", "-P", "/tmp", "-d", "1", NULL});
    unsetenv("SHARE_NAME");
    CHECK_INT(cli_parse_speedtest(count_args(local), local, &o), 0); /* no server settings needed */
    CHECK(o.local);
    char **badr = make_argv((const char *[]){"speedtest", "-L", "-r", "65", NULL});
    CHECK_INT(cli_parse_speedtest(count_args(badr), badr, &o), 1);
}

/* Both suites find the server's procfs alike: --proc-root, else $PROC_IO,
 * else /proc_io. */
static void test_proc_root(void)
{
    struct speedtest_opts so;
    struct lantest_opts lo;
    char **sp = make_argv((const char *[]){"speedtest", "-w", "p", "-u", "x", "-s", "V", NULL});
    char **lp = make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "-s", "V", NULL});
    unsetenv("PROC_IO");
    CHECK_INT(cli_parse_speedtest(count_args(sp), sp, &so), 0);
    CHECK_STR(so.common.conn.proc_root, "/proc_io");
    CHECK_INT(cli_parse_lantest(count_args(lp), lp, &lo), 0);
    CHECK_STR(lo.common.conn.proc_root, "/proc_io");
    setenv("PROC_IO", "/srv/proc", 1);
    CHECK_INT(cli_parse_speedtest(count_args(sp), sp, &so), 0);
    CHECK_STR(so.common.conn.proc_root, "/srv/proc");
    CHECK_INT(cli_parse_lantest(count_args(lp), lp, &lo), 0);
    CHECK_STR(lo.common.conn.proc_root, "/srv/proc");
    char **sp2 = make_argv((const char *[]){"speedtest", "-w", "p", "-u", "x", "-s", "V",
                                            "--proc-root", "/elsewhere", NULL});
    char **lp2 = make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "-s", "V",
                                            "--proc-root", "/elsewhere", NULL});
    CHECK_INT(cli_parse_speedtest(count_args(sp2), sp2, &so), 0);
    CHECK_STR(so.common.conn.proc_root, "/elsewhere");
    CHECK_INT(cli_parse_lantest(count_args(lp2), lp2, &lo), 0);
    CHECK_STR(lo.common.conn.proc_root, "/elsewhere");
    char **sp3 = make_argv(
        (const char *[]){"speedtest", "-w", "p", "-u", "x", "-s", "V", "--proc-root", NULL});
    CHECK_INT(cli_parse_speedtest(count_args(sp3), sp3, &so), 1); /* needs its value */
    unsetenv("PROC_IO");
}

/* AFPBENCH_SYSCALLS=off turns counting off for both sides of an A/B run;
 * anything else leaves it on. */
static void test_syscalls_switch(void)
{
    struct lantest_opts lo;
    char **lp = make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "-s", "V", "-h", "h",
                                           "--base-host", "b", NULL});
    unsetenv("AFPBENCH_SYSCALLS");
    CHECK_INT(cli_parse_lantest(count_args(lp), lp, &lo), 0);
    CHECK(lo.common.have_base);
    CHECK_INT(lo.common.conn.syscalls, 1);
    CHECK_INT(lo.common.base.syscalls, 1);
    setenv("AFPBENCH_SYSCALLS", "off", 1);
    CHECK_INT(cli_parse_lantest(count_args(lp), lp, &lo), 0);
    CHECK_INT(lo.common.conn.syscalls, 0);
    CHECK_INT(lo.common.base.syscalls, 0);
    setenv("AFPBENCH_SYSCALLS", "on", 1);
    CHECK_INT(cli_parse_lantest(count_args(lp), lp, &lo), 0);
    CHECK_INT(lo.common.base.syscalls, 1);
    unsetenv("AFPBENCH_SYSCALLS");
}

/* --cpu: off by default, auto, a CPU number; anything else is a usage error.
 * pin_run refuses a CPU afpbench may not run on and moves nothing then. */
static void test_cpu_option(void)
{
    struct lantest_opts lo;
    char **none = make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "-s", "V", NULL});
    CHECK_INT(cli_parse_lantest(count_args(none), none, &lo), 0);
    CHECK_INT(lo.common.cpu, PIN_OFF);
    const char *const good[][2] = {{"auto", "-2"}, {"off", "-1"}, {"0", "0"}, {"7", "7"}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char **a = make_argv((const char *[]){"lantest", "-w", "p", "-u", "x", "-s", "V", "--cpu",
                                              good[i][0], NULL});
        CHECK_INT(cli_parse_lantest(count_args(a), a, &lo), 0);
        CHECK_INT(lo.common.cpu, atoi(good[i][1]));
    }
    const char *const bad[] = {"", "-1", "1024", "one", "1,2", "0x1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char **a = make_argv(
            (const char *[]){"lantest", "-w", "p", "-u", "x", "-s", "V", "--cpu", bad[i], NULL});
        CHECK_INT(cli_parse_lantest(count_args(a), a, &lo), 1); /* usage */
    }
    char note[200] = "";
    struct pin_state ps;
    CHECK_INT(pin_run(&ps, PIN_MAX_CPU, NULL, 0, note, sizeof note), -1);
    CHECK_INT(ps.n, 0);
    CHECK(strstr(note, "CPU 1023 is not one afpbench may run on") != NULL);
}

/* The shared connection options: what each sets, what is not one of them,
 * and the environment as the commands start from it. */
static void test_conn_options(void)
{
    struct cli_conn c;
    setenv("AFP_HOST", "envhost", 1);
    setenv("AFP_USER", "envuser", 1);
    unsetenv("AFP_PASS");
    unsetenv("SHARE_NAME");
    unsetenv("PROC_IO");
    cli_conn_from_env(&c);
    CHECK_STR(c.host, "envhost");
    CHECK_STR(c.user, "envuser");
    CHECK(c.password == NULL && c.volume == NULL && c.volume2 == NULL);
    CHECK_INT(c.port, 548);
    CHECK_STR(c.afp_version, "AFP3.4");
    CHECK_STR(c.proc_root, "/proc_io");
    unsetenv("AFP_HOST");
    unsetenv("AFP_USER");

    CHECK_INT(cli_conn_option(&c, 'h', "srv", "test"), 1);
    CHECK_INT(cli_conn_option(&c, 'p', "10570", "test"), 1);
    CHECK_INT(cli_conn_option(&c, 's', "Vol", "test"), 1);
    CHECK_INT(cli_conn_option(&c, 'S', "Vol2", "test"), 1);
    CHECK_INT(cli_conn_option(&c, 'u', "me", "test"), 1);
    CHECK_INT(cli_conn_option(&c, 'w', "pw", "test"), 1);
    CHECK_STR(c.host, "srv");
    CHECK_INT(c.port, 10570);
    CHECK_STR(c.volume, "Vol");
    CHECK_STR(c.volume2, "Vol2");
    CHECK_STR(c.user, "me");
    CHECK_STR(c.password, "pw");
    static const char *const versions[] = {"AFPVersion 2.1", "AFP2.2", "AFPX03", "AFP3.1",
                                           "AFP3.2",         "AFP3.3", "AFP3.4"};
    for (int v = 0; v < 7; v++) {
        CHECK_INT(cli_conn_option(&c, '1' + v, NULL, "test"), 1);
        CHECK_STR(c.afp_version, versions[v]);
    }
    /* A bad port is an error and leaves the port as it was. */
    CHECK_INT(cli_conn_option(&c, 'p', "0", "test"), -1);
    CHECK_INT(cli_conn_option(&c, 'p', "65536", "test"), -1);
    CHECK_INT(cli_conn_option(&c, 'p', "", "test"), -1);
    CHECK_INT(c.port, 10570);
    /* Not connection options: left to the command. */
    CHECK_INT(cli_conn_option(&c, 'n', "3", "test"), 0);
    CHECK_INT(cli_conn_option(&c, 'V', "AFP3.1", "test"), 0);
    CHECK_INT(cli_conn_option(&c, '8', NULL, "test"), 0);
    CHECK_INT(cli_conn_option(&c, '?', NULL, "test"), 0);
    CHECK_STR(c.afp_version, "AFP3.4");
}

static void test_load_lists(void)
{
    unsigned n[LOAD_MAX_STEPS], w[CLI_LOAD_OPS];
    char err[160];
    CHECK_INT(cli_parse_sessions("1,8,32,256", n, LOAD_MAX_STEPS, err, sizeof err), 4);
    CHECK_INT(n[3], 256);
    CHECK_INT(cli_parse_sessions("0", n, LOAD_MAX_STEPS, err, sizeof err), -1);
    CHECK_INT(cli_parse_sessions("1,,2", n, LOAD_MAX_STEPS, err, sizeof err), -1);
    CHECK_INT(cli_parse_sessions("1025", n, LOAD_MAX_STEPS, err, sizeof err), -1);
    CHECK_INT(cli_parse_sessions("1,2", n, 1, err, sizeof err), -1);
    CHECK_INT(cli_parse_mix("read:8,stat,enum:2", w, err, sizeof err), 0);
    CHECK_INT(w[0], 8);
    CHECK_INT(w[1], 1);
    CHECK_INT(w[2], 2);
    CHECK_INT(w[3] + w[4] + w[5], 0);
    CHECK_INT(cli_parse_mix("read:0", w, err, sizeof err), -1); /* nothing to do */
    CHECK_INT(cli_parse_mix("copy", w, err, sizeof err), -1);
    CHECK_INT(cli_parse_mix("read:", w, err, sizeof err), -1);
    CHECK_INT(cli_parse_mix("read:x", w, err, sizeof err), -1);
}

/* The option layer with a command of the test's own: every suite's options
 * work for it, its own reach its callback, and what it does not take fails. */
struct toy {
    int x_count;
    const char *name;
    int fail_with;
};

static int toy_option(void *ctx, int opt, const char *arg)
{
    struct toy *t = ctx;
    switch (opt) {
    case 'x':
        t->x_count++;
        return 0;
    case CLI_OPT_OWN:
        t->name = arg;
        return t->fail_with;
    default:
        return CLI_NOT_MINE;
    }
}

static int toy_usage_calls;
static void toy_usage(FILE *out)
{
    (void)out;
    toy_usage_calls++;
}

static void test_option_layer(void)
{
    static const struct option own[] = {{"name", 1, NULL, CLI_OPT_OWN}, {NULL, 0, NULL, 0}};
    const struct cli_command toy_cmd = {"toy", "x7", own, toy_option, toy_usage, 0, 0};
    unsetenv("BASE_AFP_PASS");
    setenv("AFP_PORT", "600", 1);
    struct cli_common c;
    struct toy t;
    memset(&c, 0, sizeof c);
    memset(&t, 0, sizeof t);
    char **ok = make_argv((const char *[]){
        "toy", "-x", "-h", "srv",    "-x", "--name",     "n", "-7",          "-w", "pw", "-u",
        "me",  "-s", "V",  "--json", "j",  "--deadline", "9", "--base-host", "b",  NULL});
    CHECK_INT(cli_parse(&toy_cmd, count_args(ok), ok, &c, &t), 0);
    CHECK_INT(t.x_count, 2);
    CHECK_STR(t.name, "n");
    CHECK_STR(c.conn.host, "srv");
    CHECK_INT(c.conn.port, 600); /* $AFP_PORT */
    CHECK_INT(c.conn.deadline_s, 9);
    CHECK_STR(c.json_path, "j");
    CHECK_INT(c.have_base, 0); /* settled by cli_common_finish */
    CHECK_INT(cli_common_finish(&c, "toy"), 0);
    CHECK_INT(c.have_base, 1);
    CHECK_STR(c.base.host, "b");
    CHECK_INT(c.base.port, 548);
    CHECK_STR(c.base.user, "me");
    CHECK_STR(c.base.password, "pw");
    unsetenv("AFP_PORT");

    /* -3 and -S are not in its option string: usage, exit 1, no callback */
    int calls = toy_usage_calls;
    memset(&c, 0, sizeof c);
    char **three = make_argv((const char *[]){"toy", "-3", NULL});
    CHECK_INT(cli_parse(&toy_cmd, count_args(three), three, &c, &t), 1);
    CHECK_INT(toy_usage_calls, calls + 1);
    /* a callback's own exit status comes back as it is */
    t.fail_with = 7;
    char **bad = make_argv((const char *[]){"toy", "--name", "z", NULL});
    CHECK_INT(cli_parse(&toy_cmd, count_args(bad), bad, &c, &t), 7);
    /* a bad common value: the layer's message, exit 1 */
    char **port = make_argv((const char *[]){"toy", "--base-port", "0", NULL});
    CHECK_INT(cli_parse(&toy_cmd, count_args(port), port, &c, &t), 1);
    char **stray = make_argv((const char *[]){"toy", "-x", "stray", NULL});
    CHECK_INT(cli_parse(&toy_cmd, count_args(stray), stray, &c, &t), 1);
    /* --base-user without --base-host */
    memset(&c, 0, sizeof c);
    char **lone = make_argv(
        (const char *[]){"toy", "-w", "p", "-u", "x", "-s", "v", "--base-user", "y", NULL});
    CHECK_INT(cli_parse(&toy_cmd, count_args(lone), lone, &c, &t), 0);
    CHECK_INT(cli_common_finish(&c, "toy"), 1);
}

/* -n is the option layer's: parsed once, 1..CLI_MAX_ITERATIONS, for the
 * commands that declare a default, and refused by those that take none. */
static void test_iterations_once(void)
{
    setenv("AFP_PASS", "p", 1);
    setenv("SHARE_NAME", "v", 1);
    static const char *const bounds[][2] = {
        {"1000", "1000"}, {"1", "1"}, {"0", NULL}, {"1001", NULL}, {"2x", NULL}};
    for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
        int want = bounds[i][1] != NULL ? 0 : 1;
        unsigned n = bounds[i][1] != NULL ? (unsigned)atoi(bounds[i][1]) : 0;
        struct lantest_opts lo;
        struct speedtest_opts so;
        struct spotlight_opts po;
        struct bigdir_opts bo;
        char **a = make_argv((const char *[]){"lantest", "-u", "x", "-n", bounds[i][0], NULL});
        CHECK_INT(cli_parse_lantest(count_args(a), a, &lo), want);
        char **b = make_argv((const char *[]){"speedtest", "-u", "x", "-n", bounds[i][0], NULL});
        CHECK_INT(cli_parse_speedtest(count_args(b), b, &so), want);
        char **c = make_argv((const char *[]){"spotlight", "-u", "x", "-n", bounds[i][0], NULL});
        CHECK_INT(cli_parse_spotlight(count_args(c), c, &po), want);
        char **d = make_argv((const char *[]){"bigdir", "-u", "x", "-n", bounds[i][0], NULL});
        CHECK_INT(cli_parse_bigdir(count_args(d), d, &bo), want);
        if (want == 0) {
            CHECK_INT(lo.common.iterations, n);
            CHECK_INT(so.common.iterations, n);
            CHECK_INT(po.common.iterations, n);
            CHECK_INT(bo.common.iterations, n);
        }
    }
    /* load takes no -n (its steps are -N) */
    struct load_opts lo;
    char **l = make_argv((const char *[]){"load", "-u", "x", "-n", "3", NULL});
    CHECK_INT(cli_parse_load(count_args(l), l, &lo), 1);
    unsetenv("AFP_PASS");
    unsetenv("SHARE_NAME");
}

int main(void)
{
    RUN(test_test_list_forms);
    RUN(test_test_list_errors);
    RUN(test_dependencies);
    RUN(test_sizes_and_ops);
    RUN(test_uint);
    RUN(test_conn_options);
    RUN(test_lantest_parse);
    RUN(test_lantest_defaults_and_errors);
    RUN(test_speedtest_parse);
    RUN(test_proc_root);
    RUN(test_syscalls_switch);
    RUN(test_cpu_option);
    RUN(test_load_lists);
    RUN(test_option_layer);
    RUN(test_iterations_once);
    free_argvs();
    return harness_report();
}

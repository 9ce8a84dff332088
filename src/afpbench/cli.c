/* The option layer every suite's command line goes through: the connection
 * (-h -p -s -S -u -w -1..-7, --proc-root), the run's bounds (--deadline,
 * --timeout), the A/B base (--base-*) and --json, then the suite's own
 * options through its struct cli_command (cli_lantest.c, cli_speedtest.c,
 * cli_load.c). */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "afp.h"
#include "commands.h"
#include "deadline.h"
#include "dsi.h"
#include "pin.h"

/* The values of the long options every suite takes; a suite's own start at
 * CLI_OPT_OWN. */
enum {
    OPT_JSON = 256,
    OPT_PROC_ROOT,
    OPT_DEADLINE,
    OPT_TIMEOUT,
    OPT_BASE_HOST,
    OPT_BASE_PORT,
    OPT_BASE_USER,
    OPT_BASE_VOLUME,
    OPT_BASE_PROC_ROOT,
    OPT_SYSCALLS,
    OPT_CPU,
};

static const struct option common_longopts[] = {
    {"json", required_argument, NULL, OPT_JSON},
    {"proc-root", required_argument, NULL, OPT_PROC_ROOT},
    {"deadline", required_argument, NULL, OPT_DEADLINE},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"base-host", required_argument, NULL, OPT_BASE_HOST},
    {"base-port", required_argument, NULL, OPT_BASE_PORT},
    {"base-user", required_argument, NULL, OPT_BASE_USER},
    {"base-volume", required_argument, NULL, OPT_BASE_VOLUME},
    {"base-proc-root", required_argument, NULL, OPT_BASE_PROC_ROOT},
    {"syscalls", required_argument, NULL, OPT_SYSCALLS},
    {"cpu", required_argument, NULL, OPT_CPU},
};
#define NUM_COMMON_LONGOPTS (sizeof common_longopts / sizeof common_longopts[0])
/* Room for the common long options, a suite's own and the closing entry. */
#define MAX_LONGOPTS 32

int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max,
                   unsigned long long *out)
{
    if (s == NULL || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

char **cli_redacted_argv(int argc, char **argv, const char *secret)
{
    char **out = calloc((size_t)argc + 2, sizeof *out);
    if (out == NULL)
        return NULL;
    out[0] = strdup("afpbench");
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        size_t len = strlen(a);
        if (secret != NULL && secret >= a && secret <= a + len) {
            size_t keep = (size_t)(secret - a);
            out[i + 1] = malloc(keep + 4);
            if (out[i + 1] != NULL) {
                memcpy(out[i + 1], a, keep);
                memcpy(out[i + 1] + keep, "***", 4);
            }
        } else {
            out[i + 1] = strdup(a);
        }
    }
    for (int i = 0; i <= argc; i++) {
        if (out[i] == NULL) {
            cli_free_argv(out);
            return NULL;
        }
    }
    return out;
}

void cli_free_argv(char **argv)
{
    if (argv == NULL)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

void cli_conn_from_env(struct cli_conn *c)
{
    const char *env = getenv("PROC_IO");
    c->host = getenv("AFP_HOST");
    c->port = DSI_DEFAULT_PORT;
    c->user = getenv("AFP_USER");
    c->password = getenv("AFP_PASS");
    c->volume = getenv("SHARE_NAME");
    c->volume2 = NULL;
    c->afp_version = AFP_DEFAULT_VERSION;
    c->proc_root = env && *env ? env : "/proc_io";
    env = getenv("AFPBENCH_SYSCALLS");
    c->syscalls = !(env != NULL && strcmp(env, "off") == 0);
}

int cli_conn_option(struct cli_conn *c, int opt, const char *arg, const char *cmd)
{
    /* -1 .. -7: afp_speedtest's AFP version flags (afp_lantest has -3 .. -7). */
    static const char *const versions[] = {"AFPVersion 2.1", "AFP2.2", "AFPX03", "AFP3.1",
                                           "AFP3.2",         "AFP3.3", "AFP3.4"};
    unsigned long long v;
    switch (opt) {
    case 'h':
        c->host = arg;
        return 1;
    case 'p':
        if (cli_parse_uint(arg, 1, 65535, &v) != 0) {
            fprintf(stderr, "afpbench %s: bad port '%s' (1-65535)\n", cmd, arg);
            return -1;
        }
        c->port = (uint16_t)v;
        return 1;
    case 's':
        c->volume = arg;
        return 1;
    case 'S':
        c->volume2 = arg;
        return 1;
    case 'u':
        c->user = arg;
        return 1;
    case 'w':
        c->password = arg;
        return 1;
    case OPT_PROC_ROOT:
        c->proc_root = arg;
        return 1;
    case OPT_SYSCALLS:
        if (strcmp(arg, "on") != 0 && strcmp(arg, "off") != 0) {
            fprintf(stderr, "afpbench %s: bad --syscalls '%s' (on or off)\n", cmd, arg);
            return -1;
        }
        c->syscalls = strcmp(arg, "on") == 0;
        return 1;
    case OPT_DEADLINE:
    case OPT_TIMEOUT:
        if (cli_parse_uint(arg, 1, DEADLINE_MAX_S, &v) != 0) {
            fprintf(stderr, "afpbench %s: bad %s '%s' (whole seconds, 1-%u)\n", cmd,
                    opt == OPT_DEADLINE ? "--deadline" : "--timeout", arg, DEADLINE_MAX_S);
            return -1;
        }
        if (opt == OPT_DEADLINE)
            c->deadline_s = (unsigned)v;
        else
            c->timeout_s = (unsigned)v;
        return 1;
    default:
        if (opt >= '1' && opt <= '7') {
            c->afp_version = versions[opt - '1'];
            return 1;
        }
        return 0;
    }
}

/* One A/B option (--base-*): 1 when opt was one, 0 when not, -1 for a bad
 * port (after printing why). */
static int base_option(struct cli_conn *b, int opt, const char *arg, const char *cmd)
{
    unsigned long long v;
    switch (opt) {
    case OPT_BASE_HOST:
        b->host = arg;
        return 1;
    case OPT_BASE_PORT:
        if (cli_parse_uint(arg, 1, 65535, &v) != 0) {
            fprintf(stderr, "afpbench %s: bad --base-port '%s' (1-65535)\n", cmd, arg);
            return -1;
        }
        b->port = (uint16_t)v;
        return 1;
    case OPT_BASE_USER:
        b->user = arg;
        return 1;
    case OPT_BASE_VOLUME:
        b->volume = arg;
        return 1;
    case OPT_BASE_PROC_ROOT:
        b->proc_root = arg;
        return 1;
    default:
        return 0;
    }
}

/* Complete the base's settings from the head's once both are parsed.
 * Returns 0 (no base, or a complete one) or EXIT_USAGE. */
static int base_finish(const struct cli_conn *head, struct cli_conn *b, int *have_base,
                       const char *cmd)
{
    int any = b->port != 0 || b->user != NULL || b->volume != NULL || b->proc_root != NULL;
    *have_base = b->host != NULL;
    if (!*have_base) {
        if (any) {
            fprintf(stderr, "afpbench %s: --base-* options need --base-host\n", cmd);
            return EXIT_USAGE;
        }
        return 0;
    }
    if (*b->host == '\0') {
        fprintf(stderr, "afpbench %s: --base-host is empty\n", cmd);
        return EXIT_USAGE;
    }
    if (b->port == 0)
        b->port = DSI_DEFAULT_PORT;
    if (b->user == NULL || *b->user == '\0')
        b->user = head->user;
    if (b->volume == NULL || *b->volume == '\0')
        b->volume = head->volume;
    if (b->proc_root == NULL || *b->proc_root == '\0')
        b->proc_root = head->proc_root;
    const char *pass = getenv("BASE_AFP_PASS");
    b->password = pass != NULL && *pass != '\0' ? pass : head->password;
    b->afp_version = head->afp_version;
    b->volume2 = NULL;
    b->syscalls = head->syscalls;
    if (strcmp(b->host, head->host) == 0 && b->port == head->port)
        fprintf(stderr,
                "afpbench %s: note: base and head are the same server (%s port %u): an A/A run\n",
                cmd, b->host, b->port);
    return 0;
}

void cli_conn_apply_bounds(const struct cli_conn *c)
{
    deadline_set_run(c->deadline_s);
    deadline_set_request_ms(c->timeout_s ? (int)(c->timeout_s * 1000) : 0);
    deadline_install_signals();
}

/* The suites' defaults: a host and a port even when the environment has
 * none (an empty or bad one counts as none). */
static void conn_defaults(struct cli_conn *c)
{
    cli_conn_from_env(c);
    if (c->host == NULL || *c->host == '\0')
        c->host = "localhost";
    const char *env = getenv("AFP_PORT");
    unsigned long long v;
    if (env != NULL && cli_parse_uint(env, 1, 65535, &v) == 0)
        c->port = (uint16_t)v;
}

static int conn_finish(struct cli_conn *c, const char *cmd)
{
    if (c->user == NULL || *c->user == '\0') {
        struct passwd *pw = getpwuid(geteuid());
        if (pw == NULL) {
            fprintf(stderr, "afpbench %s: no user name: give -u USER\n", cmd);
            return EXIT_USAGE;
        }
        c->user = pw->pw_name;
    }
    if (c->password == NULL || *c->password == '\0') {
        fprintf(stderr, "afpbench %s: no password: give -w PASSWORD or set AFP_PASS\n", cmd);
        return EXIT_USAGE;
    }
    if (c->volume == NULL || *c->volume == '\0') {
        fprintf(stderr, "afpbench %s: no volume: give -s VOLUME or set SHARE_NAME\n", cmd);
        return EXIT_USAGE;
    }
    return 0;
}

/* One option every suite takes (-n only for those that take it): 1 when
 * opt was one, 0 when not, -1 when its value is bad (after printing why). */
static int common_option(struct cli_common *c, const struct cli_command *cmd, int opt,
                         const char *arg)
{
    unsigned long long v;
    if (opt == OPT_JSON) {
        c->json_path = arg;
        return 1;
    }
    if (opt == OPT_CPU) {
        /* "off", "auto" or a CPU number (pin.h) */
        if (strcmp(arg, "off") == 0)
            c->cpu = PIN_OFF;
        else if (strcmp(arg, "auto") == 0)
            c->cpu = PIN_AUTO;
        else if (cli_parse_uint(arg, 0, PIN_MAX_CPU, &v) == 0)
            c->cpu = (int)v;
        else {
            fprintf(stderr, "afpbench %s: bad --cpu '%s' (a CPU number, auto or off)\n", cmd->name,
                    arg);
            return -1;
        }
        return 1;
    }
    if (opt == 'n' && cmd->iterations != 0) {
        if (cli_parse_uint(arg, 1, CLI_MAX_ITERATIONS, &v) != 0) {
            fprintf(stderr, "afpbench %s: bad -n '%s' (iterations, 1-%d)\n", cmd->name, arg,
                    CLI_MAX_ITERATIONS);
            return -1;
        }
        c->iterations = (unsigned)v;
        return 1;
    }
    int r = cli_conn_option(&c->conn, opt, arg, cmd->name);
    return r != 0 ? r : base_option(&c->base, opt, arg, cmd->name);
}

/* getopt_long's table: the common long options, then the command's own.
 * Returns 0, or -1 when they do not fit (a programming error). */
static int merge_longopts(const struct option *own, struct option *out)
{
    size_t n = 0;
    for (size_t i = 0; i < NUM_COMMON_LONGOPTS; i++)
        out[n++] = common_longopts[i];
    for (; own != NULL && own->name != NULL; own++) {
        if (n == MAX_LONGOPTS - 1)
            return -1;
        out[n++] = *own;
    }
    out[n] = (struct option){NULL, 0, NULL, 0};
    return 0;
}

int cli_parse(const struct cli_command *cmd, int argc, char **argv, struct cli_common *common,
              void *ctx)
{
    struct option longopts[MAX_LONGOPTS];
    char shortopts[96];
    if (merge_longopts(cmd->longopts, longopts) != 0 ||
        (size_t)snprintf(shortopts, sizeof shortopts, "%sh:p:s:u:w:%s", cmd->shortopts,
                         cmd->iterations != 0 ? "n:" : "") >= sizeof shortopts) {
        fprintf(stderr, "afpbench %s: too many options\n", cmd->name);
        return EXIT_USAGE;
    }
    conn_defaults(&common->conn);
    common->iterations = cmd->iterations;
    common->cpu = PIN_OFF;
    if (argc < 2 && !(cmd->environment_only && getenv("AFP_HOST") != NULL)) {
        cmd->usage(stderr);
        return EXIT_USAGE;
    }
    optind = 1;
    opterr = 1;
    int c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        int r = common_option(common, cmd, c, optarg);
        if (r < 0)
            return EXIT_USAGE;
        if (r > 0)
            continue;
        r = c == '?' ? CLI_NOT_MINE : cmd->option(ctx, c, optarg);
        if (r == CLI_NOT_MINE) {
            cmd->usage(stderr);
            return EXIT_USAGE;
        }
        if (r != 0)
            return r;
    }
    if (optind < argc) {
        fprintf(stderr, "afpbench %s: unexpected argument '%s'\n", cmd->name, argv[optind]);
        return EXIT_USAGE;
    }
    return 0;
}

int cli_common_finish(struct cli_common *c, const char *cmd)
{
    int rc = conn_finish(&c->conn, cmd);
    return rc != 0 ? rc : base_finish(&c->conn, &c->base, &c->have_base, cmd);
}

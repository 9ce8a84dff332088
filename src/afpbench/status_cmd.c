/* afpbench status HOST[:PORT]: print a server's DSIGetStatus. The containers'
 * health check: exit 0 when the server answers, 5 when it does not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "deadline.h"
#include "dsi.h"
#include "net.h"
#include "srvinfo.h"

#define STATUS_DEFAULT_TIMEOUT_S 5

void status_usage(FILE *out)
{
    fprintf(out,
            "usage: afpbench status [-t SECONDS] HOST[:PORT]\n"
            "  Ask an AFP server for its DSIGetStatus on a throw-away connection and\n"
            "  print its name, machine type, AFP versions and UAMs.\n"
            "  -t SECONDS  give up after this long (default %d)\n"
            "  PORT defaults to %d; IPv6 addresses go in brackets: [::1]:548\n"
            "exit: 0 the server answered, 1 usage, 5 no (valid) answer\n",
            STATUS_DEFAULT_TIMEOUT_S, DSI_DEFAULT_PORT);
}

static void print_flags(uint16_t flags)
{
    static const char *const names[16] = {"CopyFile",
                                          "ChangePassword",
                                          "NoSavePassword",
                                          "ServerMessages",
                                          "ServerSignature",
                                          "TCP/IP",
                                          "ServerNotifications",
                                          "Reconnect",
                                          "DirectoryServices",
                                          "UTF8ServerName",
                                          "UUIDs",
                                          "ExtendedSleep",
                                          NULL,
                                          NULL,
                                          NULL,
                                          "SuperClient"};
    printf("flags:        0x%04x", flags);
    const char *sep = " (";
    for (unsigned bit = 0; bit < 16; bit++) {
        if (!(flags & (1u << bit)))
            continue;
        if (names[bit])
            printf("%s%s", sep, names[bit]);
        else
            printf("%sbit%u", sep, bit);
        sep = ", ";
    }
    printf("%s\n", flags ? ")" : "");
}

/* Print a list, noting entries announced but not kept. */
static void print_list(const char *label, unsigned n, const char list[][256], const char *sep)
{
    printf("%-14s", label);
    unsigned kept = n < SRVINFO_MAX_LIST ? n : SRVINFO_MAX_LIST;
    for (unsigned i = 0; i < kept; i++)
        printf("%s%s", i ? sep : "", list[i]);
    if (n > kept)
        printf("%s(+%u more)", sep, n - kept);
    printf("\n");
}

static void print_srvinfo(const struct srvinfo *si)
{
    printf("server:       %s\n", si->server_name);
    if (si->utf8_name[0])
        printf("utf8 name:    %s\n", si->utf8_name);
    printf("machine type: %s\n", si->machine_type);
    print_list("AFP versions:", si->n_versions, si->versions, " ");
    print_list("UAMs:", si->n_uams, si->uams, ", ");
    print_flags(si->flags);
    if (si->n_addresses) {
        printf("addresses:    ");
        unsigned kept = si->n_addresses < SRVINFO_MAX_LIST ? si->n_addresses : SRVINFO_MAX_LIST;
        for (unsigned i = 0; i < kept; i++)
            printf("%s%s", i ? " " : "", si->addresses[i]);
        printf("\n");
    }
    if (si->has_signature) {
        printf("signature:    ");
        for (int i = 0; i < 16; i++)
            printf("%02x", si->signature[i]);
        printf("\n");
    }
}

int status_main(int argc, char **argv)
{
    int timeout_s = STATUS_DEFAULT_TIMEOUT_S;
    int opt;
    opterr = 0;
    while ((opt = getopt(argc, argv, "+t:")) != -1) {
        switch (opt) {
        case 't': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 1 || v > 3600) {
                fprintf(stderr, "afpbench status: -t wants whole seconds 1-3600, got '%s'\n",
                        optarg);
                return EXIT_USAGE;
            }
            timeout_s = (int)v;
            break;
        }
        default:
            fprintf(stderr, "afpbench status: unknown option '-%c'\n", optopt);
            status_usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        status_usage(stderr);
        return EXIT_USAGE;
    }
    char host[256], err[300];
    uint16_t port;
    if (net_parse_hostport(argv[optind], DSI_DEFAULT_PORT, host, sizeof host, &port, err,
                           sizeof err)) {
        fprintf(stderr, "afpbench status: %s\n", err);
        return EXIT_USAGE;
    }
    struct srvinfo *si = malloc(sizeof *si);
    if (!si) {
        fprintf(stderr, "afpbench status: out of memory\n");
        return EXIT_ALLOC;
    }
    /* -t bounds the whole exchange, connect included: a server trickling
     * its reply or sending only tickles cannot stretch it. */
    deadline_set_run((unsigned)timeout_s);
    deadline_set_run_flag("-t");
    int rc = srvinfo_fetch(host, port, timeout_s * 1000, si, err, sizeof err);
    if (rc) {
        fprintf(stderr, "afpbench status: no AFP server answered: %s\n", err);
        free(si);
        return EXIT_NETWORK;
    }
    print_srvinfo(si);
    free(si);
    return EXIT_OK;
}

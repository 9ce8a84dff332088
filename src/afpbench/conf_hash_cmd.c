/* afpbench conf-hash: the fingerprint of an afp.conf (srvfiles.h), the same
 * afpbench records as server.afp_conf_sha256 when it reads the server's own,
 * for a file given by hand (scripts/gate's AFPBENCH_AFP_CONF). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "procfile.h"
#include "srvfiles.h"

void conf_hash_usage(FILE *out)
{
    fputs("usage: afpbench conf-hash FILE\n"
          "  the SHA-256 of FILE's settings (an afp.conf), without comments, blank lines\n"
          "  and what a harness sets for each server (afp port, afp listen, cnid listen,\n"
          "  cnid server, vol dbpath, path, server name, log file)\n",
          out);
}

int conf_hash_main(int argc, char **argv)
{
    if (argc != 2) {
        conf_hash_usage(stderr);
        return EXIT_USAGE;
    }
    int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
    size_t len = 0;
    char *conf = fd >= 0 ? procfile_read_all(fd, SRVFILES_CONF_MAX, &len) : NULL;
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (conf == NULL) {
        fprintf(stderr, "afpbench conf-hash: cannot read %s: %s\n", argv[1],
                e == EFBIG ? "larger than 1 MiB" : strerror(e));
        return EXIT_FILEDIR;
    }
    char hex[65];
    srvfiles_conf_fingerprint(conf, len, hex);
    free(conf);
    printf("%s\n", hex);
    return EXIT_OK;
}

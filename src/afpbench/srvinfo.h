/* The server information block (DSIGetStatus reply, same layout as the
 * FPGetSrvrInfo reply): decoder and a fetch over a throw-away connection. */
#ifndef AFPBENCH_SRVINFO_H
#define AFPBENCH_SRVINFO_H

#include <stddef.h>
#include <stdint.h>

#define SRVINFO_MAX_LIST 16 /* more versions/UAMs/addresses are counted, not kept */

#define SRVINFO_FLAG_COPYFILE 0x0001
#define SRVINFO_FLAG_SIGNATURE 0x0010
#define SRVINFO_FLAG_TCPIP 0x0020
#define SRVINFO_FLAG_DIRSERVICES 0x0100
#define SRVINFO_FLAG_UTF8NAME 0x0200

struct srvinfo {
    char server_name[256];  /* Mac-charset pstring at offset 10 */
    char utf8_name[256];    /* UTF-8 server name when flag bit 9 is set, else "" */
    char machine_type[256]; /* netatalk: "Netatalk4.2.3" */
    uint16_t flags;
    unsigned n_versions; /* as announced; at most SRVINFO_MAX_LIST kept */
    char versions[SRVINFO_MAX_LIST][256];
    unsigned n_uams;
    char uams[SRVINFO_MAX_LIST][256];
    int has_signature;
    uint8_t signature[16];
    unsigned n_addresses;
    char addresses[SRVINFO_MAX_LIST][64]; /* "127.0.0.1:548", "[::1]", "dns:name", "type N" */
};

/* Decode a status block. 0, or AFPB_EPROTO for any offset/length outside the
 * block or a string that does not fit. */
int srvinfo_decode(const uint8_t *p, size_t len, struct srvinfo *out);

/* Connect, send DSIGetStatus as the connection's only request, decode the
 * reply, close. 0 or an AFPB_E* code with a message in err. */
int srvinfo_fetch(const char *host, uint16_t port, int timeout_ms, struct srvinfo *out, char *err,
                  size_t errlen);

#endif

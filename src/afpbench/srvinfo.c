/* Server information block decoder and DSIGetStatus fetch (see srvinfo.h). */
#include "srvinfo.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "dsi.h"
#include "safetext.h"

/* A counted list of pstrings at off; keeps the first SRVINFO_MAX_LIST. */
static void dec_list(const uint8_t *p, size_t len, uint16_t off, unsigned *n, char list[][256],
                     bool *ok)
{
    struct br r;
    br_init(&r, p, len);
    br_seek(&r, off);
    unsigned count = br_u8(&r);
    char scratch[256];
    for (unsigned i = 0; i < count && br_ok(&r); i++)
        br_pstr(&r, i < SRVINFO_MAX_LIST ? list[i] : scratch, 256);
    *n = count;
    if (!br_ok(&r))
        *ok = false;
}

static void format_address(uint8_t type, const uint8_t *v, size_t n, char *out, size_t cap)
{
    char ip[INET6_ADDRSTRLEN];
    if (type == 1 && n == 4 && inet_ntop(AF_INET, v, ip, sizeof ip)) {
        snprintf(out, cap, "%s", ip);
    } else if (type == 2 && n == 6 && inet_ntop(AF_INET, v, ip, sizeof ip)) {
        snprintf(out, cap, "%s:%u", ip, be16_load(v + 4));
    } else if (type == 6 && n == 16 && inet_ntop(AF_INET6, v, ip, sizeof ip)) {
        snprintf(out, cap, "[%s]", ip);
    } else if (type == 7 && n == 18 && inet_ntop(AF_INET6, v, ip, sizeof ip)) {
        snprintf(out, cap, "[%s]:%u", ip, be16_load(v + 16));
    } else if (type == 4) {
        /* DNS name: printable bytes only, the rest shown as '?'. */
        size_t k = 0;
        k += (size_t)snprintf(out, cap, "dns:");
        for (size_t i = 0; i < n && k + 1 < cap; i++)
            out[k++] = v[i] >= 0x20 && v[i] < 0x7f ? (char)v[i] : '?';
        out[k < cap ? k : cap - 1] = '\0';
    } else {
        snprintf(out, cap, "type %u (%zu bytes)", type, n);
    }
}

static void dec_addresses(const uint8_t *p, size_t len, uint16_t off, struct srvinfo *out, bool *ok)
{
    struct br r;
    br_init(&r, p, len);
    br_seek(&r, off);
    unsigned count = br_u8(&r);
    for (unsigned i = 0; i < count && br_ok(&r); i++) {
        uint8_t alen = br_u8(&r);
        uint8_t type = br_u8(&r);
        if (alen < 2) {
            *ok = false;
            return;
        }
        uint8_t v[255];
        br_bytes(&r, v, alen - 2u);
        if (br_ok(&r) && i < SRVINFO_MAX_LIST)
            format_address(type, v, alen - 2u, out->addresses[i], sizeof out->addresses[i]);
    }
    out->n_addresses = count;
    if (!br_ok(&r))
        *ok = false;
}

/* Every string the server chose, escaped for printing (safetext.h): status,
 * progress, the JSON and the reports all show these. */
static void escape_strings(struct srvinfo *out)
{
    safetext_inplace(out->server_name, sizeof out->server_name);
    safetext_inplace(out->utf8_name, sizeof out->utf8_name);
    safetext_inplace(out->machine_type, sizeof out->machine_type);
    for (unsigned i = 0; i < out->n_versions && i < SRVINFO_MAX_LIST; i++)
        safetext_inplace(out->versions[i], sizeof out->versions[i]);
    for (unsigned i = 0; i < out->n_uams && i < SRVINFO_MAX_LIST; i++)
        safetext_inplace(out->uams[i], sizeof out->uams[i]);
}

int srvinfo_decode(const uint8_t *p, size_t len, struct srvinfo *out)
{
    memset(out, 0, sizeof *out);
    struct br r;
    br_init(&r, p, len);
    uint16_t off_machine = br_u16(&r);
    uint16_t off_versions = br_u16(&r);
    uint16_t off_uams = br_u16(&r);
    br_skip(&r, 2); /* volume icon */
    out->flags = br_u16(&r);
    br_pstr(&r, out->server_name, sizeof out->server_name);
    if (r.pos & 1)
        br_skip(&r, 1);
    if (!br_ok(&r))
        return AFPB_EPROTO;
    /* netatalk reserves all four trailing offsets; each counts only when its
     * flag says the field exists. A block that ends before them has none. */
    uint16_t off_sig = 0, off_addr = 0, off_utf8 = 0;
    if (br_remaining(&r) >= 8) {
        off_sig = br_u16(&r);
        off_addr = br_u16(&r);
        br_skip(&r, 2); /* directory services */
        off_utf8 = br_u16(&r);
    } else if (out->flags & (SRVINFO_FLAG_SIGNATURE | SRVINFO_FLAG_TCPIP | SRVINFO_FLAG_UTF8NAME)) {
        return AFPB_EPROTO;
    }
    bool ok = true;
    struct br m;
    br_init(&m, p, len);
    br_seek(&m, off_machine);
    br_pstr(&m, out->machine_type, sizeof out->machine_type);
    ok = ok && br_ok(&m);
    dec_list(p, len, off_versions, &out->n_versions, out->versions, &ok);
    dec_list(p, len, off_uams, &out->n_uams, out->uams, &ok);
    if ((out->flags & SRVINFO_FLAG_SIGNATURE) && off_sig) {
        struct br s;
        br_init(&s, p, len);
        br_seek(&s, off_sig);
        br_bytes(&s, out->signature, sizeof out->signature);
        out->has_signature = br_ok(&s);
        ok = ok && br_ok(&s);
    }
    if ((out->flags & SRVINFO_FLAG_TCPIP) && off_addr)
        dec_addresses(p, len, off_addr, out, &ok);
    if ((out->flags & SRVINFO_FLAG_UTF8NAME) && off_utf8) {
        struct br u;
        br_init(&u, p, len);
        br_seek(&u, off_utf8);
        uint16_t n = br_u16(&u);
        if (n >= sizeof out->utf8_name)
            return AFPB_EPROTO;
        br_bytes(&u, out->utf8_name, n);
        out->utf8_name[n] = '\0';
        ok = ok && br_ok(&u);
    }
    escape_strings(out);
    return ok ? 0 : AFPB_EPROTO;
}

int srvinfo_fetch(const char *host, uint16_t port, int timeout_ms, struct srvinfo *out, char *err,
                  size_t errlen)
{
    struct dsi_conn c;
    int rc = dsi_init(&c, timeout_ms);
    if (rc) {
        snprintf(err, errlen, "out of memory");
        return rc;
    }
    rc = dsi_connect(&c, host, port);
    struct dsi_reply r;
    /* GetStatus must be the first and only request on its connection. */
    if (rc == 0)
        rc = dsi_transact(&c, DSI_GETSTATUS, NULL, 0, NULL, 0, NULL, 0, &r);
    if (rc == 0 && r.code != 0) {
        snprintf(c.err, sizeof c.err, "DSIGetStatus refused (code %d)", r.code);
        rc = AFPB_EPROTO;
    }
    if (rc == 0 && srvinfo_decode(r.data, r.length, out) != 0) {
        snprintf(c.err, sizeof c.err, "malformed server information block (%u bytes)", r.length);
        rc = AFPB_EPROTO;
    }
    if (rc)
        snprintf(err, errlen, "%s:%u: %s", host, port, c.err[0] ? c.err : "DSIGetStatus failed");
    dsi_free(&c);
    return rc;
}

/* Spotlight's RPC encoding: the payload of FPSpotlightRPC (AFP command 76)
 * as netatalk 4.5's afpd reads and writes it, from the client's side of a
 * search (open a query, fetch its results until it is done, close it).
 *
 *   header  8 bytes of signature ("432130dm": little-endian words), then two
 *           32-bit little-endian counts of 8-byte words: all of them after
 *           the signature (data and TOC), and the data's plus one (the TOC
 *           starts there)
 *   data    tagged values, 8-byte aligned. A tag is one 64-bit word: bits
 *           0-15 the value's length in words (its tag included), 16-31 its
 *           type, 32-63 a count, or for a complex value (array, dictionary,
 *           string, CNID array) its 1-based index in the TOC
 *   TOC     one tag (type 0x8800, entries + 1), then a word per complex
 *           value: its type, its place in words from the buffer's start, and
 *           its element count (array, dictionary: keys and values) or the
 *           bytes used of a string's last word
 *
 * Requests are built in the caller's buffer with every write bounded; a reply
 * is walked without trusting any length, count or index in it. */
#ifndef AFPBENCH_SLRPC_H
#define AFPBENCH_SLRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* complex values one request may hold (ours hold at most 10) */
#define SLRPC_MAX_TOC 32

/* A request being built. */
struct slrpc_writer {
    uint8_t *buf;
    size_t cap, len; /* len: bytes so far, the 16-byte header included */
    uint64_t toc[SLRPC_MAX_TOC];
    unsigned ntoc;
    bool overflow; /* a write did not fit, or a string was empty */
};

void slrpc_begin(struct slrpc_writer *w, uint8_t *buf, size_t cap);
/* An array of count values, or a dictionary of count keys and values (two
 * per entry); its values are the next ones written. */
void slrpc_array(struct slrpc_writer *w, unsigned count);
void slrpc_dict(struct slrpc_writer *w, unsigned count);
void slrpc_string(struct slrpc_writer *w, const char *s); /* not empty */
void slrpc_u64(struct slrpc_writer *w, uint64_t v);
/* Append the TOC and write the header: the request's length, or 0 when it
 * did not fit in the buffer. */
size_t slrpc_end(struct slrpc_writer *w);

/* The requests of one search, each for the query context ctx. The query is
 * Spotlight's query language, e.g. kMDItemFSName=="prefix*"cd; each returns
 * the request's length, or 0 when it does not fit in cap. */
size_t slrpc_open_query(uint8_t *buf, size_t cap, uint64_t ctx, const char *query);
size_t slrpc_fetch_results(uint8_t *buf, size_t cap, uint64_t ctx);
size_t slrpc_close_query(uint8_t *buf, size_t cap, uint64_t ctx);

/* What a reply says: the first integer of its array (openQuery's and
 * closeQuery's result, fetchQueryResults' status: 0 done, 35 more to come,
 * UINT64_MAX failed) and the CNIDs of its CNID array (fetchQueryResults'
 * results). */
#define SLRPC_STATUS_MORE 35
struct slrpc_reply {
    bool has_status, has_cnids;
    uint64_t status;
    uint64_t cnids;
};

/* Walk a reply (what follows FPSpotlightRPC's 4-byte reply head). 0, or -1
 * with why in err (errlen > 0). */
int slrpc_parse_reply(const uint8_t *p, size_t len, struct slrpc_reply *out, char *err,
                      size_t errlen);

#endif

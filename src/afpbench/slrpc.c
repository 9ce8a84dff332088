/* Spotlight's RPC encoding (see slrpc.h). */
#include "slrpc.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Value types (a tag's bits 16-31). */
#define T_NULL 0x0000
#define T_BOOL 0x0100
#define T_COMPLEX 0x0200
#define T_DATA 0x0700
#define T_INT64 0x8400
#define T_FLOAT 0x8500
#define T_DATE 0x8600
#define T_CNIDS 0x8700
#define T_TOC 0x8800
#define T_UUID 0x0e00
/* Complex types (a TOC entry's bits 16-31). */
#define C_ARRAY 0x0a00
#define C_STRING 0x0c00
#define C_DICT 0x0d00
#define C_CNIDS 0x1a00
#define C_FILEMETA 0x1b00
#define C_UTF16 0x1c00

#define HEADER 16
/* nesting deeper than any reply of a search has (netatalk allows 20) */
#define MAX_DEPTH 16

static uint64_t tag(unsigned type, unsigned words, uint32_t value)
{
    return (uint64_t)value << 32 | (uint64_t)(type & 0xffff) << 16 | (words & 0xffff);
}

static void le64_store(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_word(struct slrpc_writer *w, uint64_t v)
{
    if (w->overflow || w->cap - w->len < 8) {
        w->overflow = true;
        return;
    }
    le64_store(w->buf + w->len, v);
    w->len += 8;
}

void slrpc_begin(struct slrpc_writer *w, uint8_t *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->cap = cap;
    if (cap < HEADER)
        w->overflow = true;
    else
        w->len = HEADER;
}

/* A complex value's tag here and its TOC entry. */
static void complex(struct slrpc_writer *w, unsigned ctype, uint32_t count)
{
    if (w->ntoc == SLRPC_MAX_TOC || w->len / 8 > 0xffff) {
        w->overflow = true;
        return;
    }
    w->toc[w->ntoc++] = tag(ctype, (unsigned)(w->len / 8), count);
    put_word(w, tag(T_COMPLEX, 1, w->ntoc));
}

void slrpc_array(struct slrpc_writer *w, unsigned count)
{
    complex(w, C_ARRAY, count);
}

void slrpc_dict(struct slrpc_writer *w, unsigned count)
{
    complex(w, C_DICT, count);
}

void slrpc_string(struct slrpc_writer *w, const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 0xfff0 * 8) {
        /* afpd reads an empty string as a malformed request */
        w->overflow = true;
        return;
    }
    size_t words = (n + 7) / 8;
    unsigned used = (unsigned)(n - (words - 1) * 8); /* 1-8 bytes of the last word */
    complex(w, C_STRING, used);
    put_word(w, tag(T_DATA, (unsigned)words + 1, used));
    if (w->overflow || w->cap - w->len < words * 8) {
        w->overflow = true;
        return;
    }
    memset(w->buf + w->len, 0, words * 8);
    memcpy(w->buf + w->len, s, n);
    w->len += words * 8;
}

void slrpc_u64(struct slrpc_writer *w, uint64_t v)
{
    put_word(w, tag(T_INT64, 2, 1));
    put_word(w, v);
}

size_t slrpc_end(struct slrpc_writer *w)
{
    if (w->overflow)
        return 0;
    size_t data_words = (w->len - HEADER) / 8;
    put_word(w, tag(T_TOC, w->ntoc + 1, 0));
    for (unsigned i = 0; i < w->ntoc; i++)
        put_word(w, w->toc[i]);
    if (w->overflow)
        return 0;
    memcpy(w->buf, "432130dm", 8);
    uint32_t all = (uint32_t)(data_words + 1 + w->ntoc + 1), data = (uint32_t)(data_words + 1);
    for (int i = 0; i < 4; i++) {
        w->buf[8 + i] = (uint8_t)(all >> (8 * i));
        w->buf[12 + i] = (uint8_t)(data >> (8 * i));
    }
    return w->len;
}

/* [[method, ctx, ctx], params]: the shape of every request (afpd reads the
 * context from both places); params holds count keys and values. */
static void call(struct slrpc_writer *w, const char *method, uint64_t ctx, unsigned params)
{
    slrpc_array(w, 2);
    slrpc_array(w, 3);
    slrpc_string(w, method);
    slrpc_u64(w, ctx);
    slrpc_u64(w, ctx);
    slrpc_dict(w, params);
}

size_t slrpc_open_query(uint8_t *buf, size_t cap, uint64_t ctx, const char *query)
{
    struct slrpc_writer w;
    slrpc_begin(&w, buf, cap);
    call(&w, "openQueryWithParams:forContext:", ctx, 4);
    slrpc_string(&w, "kMDQueryString");
    slrpc_string(&w, query);
    /* the attributes each result would carry: the name only */
    slrpc_string(&w, "kMDAttributeArray");
    slrpc_array(&w, 1);
    slrpc_string(&w, "kMDItemFSName");
    return slrpc_end(&w);
}

size_t slrpc_fetch_results(uint8_t *buf, size_t cap, uint64_t ctx)
{
    struct slrpc_writer w;
    slrpc_begin(&w, buf, cap);
    call(&w, "fetchQueryResultsForContext:", ctx, 0);
    return slrpc_end(&w);
}

size_t slrpc_close_query(uint8_t *buf, size_t cap, uint64_t ctx)
{
    struct slrpc_writer w;
    slrpc_begin(&w, buf, cap);
    call(&w, "closeQueryForContext:", ctx, 0);
    return slrpc_end(&w);
}

/* ---- the reply's walk ---- */

struct walk {
    const uint8_t *d; /* the data, after the header */
    size_t end;       /* where the TOC tag starts: every value ends by then */
    size_t toc;       /* the first TOC entry */
    uint64_t ntoc;
    bool be; /* "md031234": big-endian words */
    struct slrpc_reply *out;
    char *err;
    size_t errlen;
};

static int fail(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct walk *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, w->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t word_at(const uint8_t *p, bool be)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[be ? 7 - i : i] << (8 * i);
    return v;
}

/* n bytes at off lie within the data. */
static bool fits(const struct walk *w, size_t off, size_t n)
{
    return off <= w->end && n <= w->end - off;
}

static int walk_values(struct walk *w, size_t *off, uint64_t count, int depth);

/* The complex value whose tag is at *off (TOC entry index, 1-based). */
static int walk_complex(struct walk *w, size_t *off, uint64_t index, int depth)
{
    if (index == 0 || index > w->ntoc)
        return fail(w, "a complex value names TOC entry %llu of %llu", (unsigned long long)index,
                    (unsigned long long)w->ntoc);
    uint64_t entry = word_at(w->d + w->toc + (index - 1) * 8, w->be);
    unsigned ctype = (unsigned)(entry >> 16) & 0xffff;
    uint64_t count = entry >> 32;
    size_t at = *off + 8;
    switch (ctype) {
    case C_ARRAY:
    case C_DICT:
        if (depth >= MAX_DEPTH)
            return fail(w, "values nested more than %d deep", MAX_DEPTH);
        /* every value takes a word at least */
        if (count > (w->end - at) / 8)
            return fail(w, "an array of %llu values in %zu bytes", (unsigned long long)count,
                        w->end - at);
        if (walk_values(w, &at, count, depth + 1) != 0)
            return -1;
        *off = at;
        return 0;
    case C_STRING:
    case C_UTF16:
    case C_FILEMETA:
    case C_CNIDS: {
        if (!fits(w, at, 8))
            return fail(w, "a complex value's body runs past the data");
        uint64_t head = word_at(w->d + at, w->be);
        size_t len = (size_t)(head & 0xffff) * 8;
        /* an empty CNID array or file metadata is its tag alone (a batch
         * without results); a string has a word of text at least */
        bool text = ctype == C_STRING || ctype == C_UTF16;
        if (len < 8 || (len == 8 && text) || !fits(w, at, len))
            return fail(w, "a complex value of %zu bytes at %zu runs past the data (%zu)", len, at,
                        w->end);
        if (ctype == C_CNIDS && len > 16) {
            uint64_t n = word_at(w->d + at + 8, w->be) & 0xffff;
            if (n > (len - 16) / 8)
                return fail(w, "a CNID array of %llu in %zu bytes", (unsigned long long)n, len);
            /* the results: the array's own, not a nested one's */
            if (depth == 1 && !w->out->has_cnids) {
                w->out->has_cnids = true;
                w->out->cnids = n;
            }
        } else if (ctype == C_CNIDS && depth == 1 && !w->out->has_cnids) {
            w->out->has_cnids = true; /* an empty array: no results in this batch */
            w->out->cnids = 0;
        }
        *off = at + len;
        return 0;
    }
    default:
        return fail(w, "unknown complex type 0x%04x", ctype);
    }
}

/* count values from *off at this depth (1: the reply's own array). Each
 * step moves *off on by a word at least, so the walk ends. */
static int walk_values(struct walk *w, size_t *off, uint64_t count, int depth)
{
    while (count > 0) {
        if (!fits(w, *off, 8))
            return fail(w, "%llu value(s) missing at %zu of %zu bytes", (unsigned long long)count,
                        *off, w->end);
        uint64_t t = word_at(w->d + *off, w->be);
        size_t len = (size_t)(t & 0xffff) * 8;
        unsigned type = (unsigned)(t >> 16) & 0xffff;
        uint64_t n = t >> 32;
        if (len == 0 || !fits(w, *off, len))
            return fail(w, "a value of %zu bytes at %zu runs past the data (%zu)", len, *off,
                        w->end);
        switch (type) {
        case T_COMPLEX:
            if (walk_complex(w, off, n, depth) != 0)
                return -1;
            count--;
            continue;
        case T_NULL:
        case T_BOOL:
            if (type == T_BOOL)
                n = 1;
            break;
        case T_INT64:
        case T_FLOAT:
        case T_DATE:
        case T_UUID:
            if (n > (len - 8) / (type == T_UUID ? 16 : 8))
                return fail(w, "%llu values in a %zu-byte value", (unsigned long long)n, len);
            if (type == T_INT64 && n > 0 && depth == 1 && !w->out->has_status) {
                w->out->has_status = true;
                w->out->status = word_at(w->d + *off + 8, w->be);
            }
            break;
        default:
            return fail(w, "unknown value type 0x%04x at %zu", type, *off);
        }
        if (n > count)
            return fail(w, "%llu values where %llu were left", (unsigned long long)n,
                        (unsigned long long)count);
        count -= n;
        *off += len;
    }
    return 0;
}

int slrpc_parse_reply(const uint8_t *p, size_t len, struct slrpc_reply *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    struct walk w = {.out = out, .err = err, .errlen = errlen};
    if (len < HEADER + 8)
        return fail(&w, "a reply of %zu bytes (a header and a TOC take %d)", len, HEADER + 8);
    if (memcmp(p, "md031234", 8) == 0)
        w.be = true;
    else if (memcmp(p, "432130dm", 8) != 0)
        return fail(&w, "no Spotlight signature");
    /* the words up to the TOC tag, as afpd reads them: the header word's
     * high half (little-endian: the count at byte 12) */
    uint64_t data_words = word_at(p + 8, w.be) >> 32;
    w.d = p + HEADER;
    size_t avail = len - HEADER;
    if (data_words == 0 || data_words - 1 > (avail - 8) / 8)
        return fail(&w, "the TOC at word %llu lies outside the %zu-byte reply",
                    (unsigned long long)data_words, len);
    w.end = (size_t)(data_words - 1) * 8;
    uint64_t toc = word_at(w.d + w.end, w.be);
    if (((toc >> 16) & 0xffff) != T_TOC || (toc & 0xffff) == 0)
        return fail(&w, "no TOC where the header puts it");
    w.ntoc = (toc & 0xffff) - 1;
    w.toc = w.end + 8;
    if (w.ntoc > (avail - w.toc) / 8)
        return fail(&w, "a TOC of %llu entries in %zu bytes", (unsigned long long)w.ntoc,
                    avail - w.toc);
    size_t off = 0;
    return walk_values(&w, &off, 1, 0);
}

/* Bounded big-endian byte writer and reader (see buf.h). */
#include "buf.h"

#include <string.h>

uint16_t be16_load(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

uint32_t be32_load(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint64_t be64_load(const uint8_t *p)
{
    return (uint64_t)be32_load(p) << 32 | be32_load(p + 4);
}

void be16_store(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

void be32_store(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

void be64_store(uint8_t *p, uint64_t v)
{
    be32_store(p, (uint32_t)(v >> 32));
    be32_store(p + 4, (uint32_t)v);
}

void bw_init(struct bw *w, void *mem, size_t cap)
{
    w->p = mem;
    w->cap = cap;
    w->len = 0;
    w->overflow = false;
}

/* Reserve n bytes; NULL (and the flag set) when they do not fit. */
static uint8_t *bw_reserve(struct bw *w, size_t n)
{
    if (w->overflow || n > w->cap - w->len) {
        w->overflow = true;
        return NULL;
    }
    uint8_t *at = w->p + w->len;
    w->len += n;
    return at;
}

void bw_u8(struct bw *w, uint8_t v)
{
    uint8_t *at = bw_reserve(w, 1);
    if (at)
        *at = v;
}

void bw_u16(struct bw *w, uint16_t v)
{
    uint8_t *at = bw_reserve(w, 2);
    if (at)
        be16_store(at, v);
}

void bw_u32(struct bw *w, uint32_t v)
{
    uint8_t *at = bw_reserve(w, 4);
    if (at)
        be32_store(at, v);
}

void bw_u64(struct bw *w, uint64_t v)
{
    uint8_t *at = bw_reserve(w, 8);
    if (at)
        be64_store(at, v);
}

void bw_bytes(struct bw *w, const void *src, size_t n)
{
    uint8_t *at = bw_reserve(w, n);
    if (at && n)
        memcpy(at, src, n);
}

void bw_zeros(struct bw *w, size_t n)
{
    uint8_t *at = bw_reserve(w, n);
    if (at && n)
        memset(at, 0, n);
}

void bw_pstr(struct bw *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n > 255) {
        w->overflow = true;
        return;
    }
    bw_u8(w, (uint8_t)n);
    bw_bytes(w, s, n);
}

void bw_pad_even(struct bw *w)
{
    if (w->len & 1)
        bw_u8(w, 0);
}

void bw_put_u16_at(struct bw *w, size_t at, uint16_t v)
{
    if (w->overflow || at > w->len || w->len - at < 2) {
        w->overflow = true;
        return;
    }
    be16_store(w->p + at, v);
}

bool bw_ok(const struct bw *w)
{
    return !w->overflow;
}

void br_init(struct br *r, const void *src, size_t len)
{
    r->p = src;
    r->len = src ? len : 0;
    r->pos = 0;
    r->err = false;
}

/* Claim n bytes; NULL (and the flag set) when fewer remain. */
static const uint8_t *br_take(struct br *r, size_t n)
{
    if (r->err || n > r->len - r->pos) {
        r->err = true;
        return NULL;
    }
    const uint8_t *at = r->p + r->pos;
    r->pos += n;
    return at;
}

uint8_t br_u8(struct br *r)
{
    const uint8_t *at = br_take(r, 1);
    return at ? *at : 0;
}

uint16_t br_u16(struct br *r)
{
    const uint8_t *at = br_take(r, 2);
    return at ? be16_load(at) : 0;
}

uint32_t br_u32(struct br *r)
{
    const uint8_t *at = br_take(r, 4);
    return at ? be32_load(at) : 0;
}

uint64_t br_u64(struct br *r)
{
    const uint8_t *at = br_take(r, 8);
    return at ? be64_load(at) : 0;
}

void br_bytes(struct br *r, void *dst, size_t n)
{
    const uint8_t *at = br_take(r, n);
    if (at && n)
        memcpy(dst, at, n);
    else if (n)
        memset(dst, 0, n);
}

void br_skip(struct br *r, size_t n)
{
    (void)br_take(r, n);
}

void br_seek(struct br *r, size_t pos)
{
    if (r->err || pos > r->len) {
        r->err = true;
        return;
    }
    r->pos = pos;
}

void br_pstr(struct br *r, char *dst, size_t cap)
{
    size_t n = br_u8(r);
    const uint8_t *at = br_take(r, n);
    if (!at || n >= cap) {
        r->err = true;
        if (cap)
            dst[0] = '\0';
        return;
    }
    memcpy(dst, at, n);
    dst[n] = '\0';
}

size_t br_remaining(const struct br *r)
{
    return r->err ? 0 : r->len - r->pos;
}

bool br_ok(const struct br *r)
{
    return !r->err;
}

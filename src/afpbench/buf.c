/* Bounded big-endian byte writer and reader (see buf.h). */
#include "buf.h"

#include <string.h>

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

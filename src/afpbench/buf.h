/* Bounded big-endian byte writer and reader.
 *
 * Both keep a sticky error flag instead of returning a status from every call:
 * a sequence of puts/gets runs unchecked and the caller tests bw_ok()/br_ok()
 * once at the end. A get past the end returns zeros and sets the flag, so no
 * read ever leaves the buffer, whatever the length fields on the wire claim. */
#ifndef AFPBENCH_BUF_H
#define AFPBENCH_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bw {
    uint8_t *p;
    size_t cap;
    size_t len;
    bool overflow;
};

struct br {
    const uint8_t *p;
    size_t len;
    size_t pos;
    bool err;
};

/* The fixed-size accessors are inline: every AFP request and reply goes
 * through a dozen of them, and a call each was most of the encoders' cost.
 * The bounds checks are the same as ever. */

/* Plain big-endian loads/stores for fixed headers. */
static inline uint16_t be16_load(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t be32_load(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t be64_load(const uint8_t *p)
{
    return (uint64_t)be32_load(p) << 32 | be32_load(p + 4);
}

static inline void be16_store(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void be32_store(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void be64_store(uint8_t *p, uint64_t v)
{
    be32_store(p, (uint32_t)(v >> 32));
    be32_store(p + 4, (uint32_t)v);
}

static inline void bw_init(struct bw *w, void *mem, size_t cap)
{
    w->p = mem;
    w->cap = cap;
    w->len = 0;
    w->overflow = false;
}

/* Reserve n bytes; NULL (and the flag set) when they do not fit. */
static inline uint8_t *bw_reserve(struct bw *w, size_t n)
{
    if (w->overflow || n > w->cap - w->len) {
        w->overflow = true;
        return NULL;
    }
    uint8_t *at = w->p + w->len;
    w->len += n;
    return at;
}

static inline void bw_u8(struct bw *w, uint8_t v)
{
    uint8_t *at = bw_reserve(w, 1);
    if (at)
        *at = v;
}

static inline void bw_u16(struct bw *w, uint16_t v)
{
    uint8_t *at = bw_reserve(w, 2);
    if (at)
        be16_store(at, v);
}

static inline void bw_u32(struct bw *w, uint32_t v)
{
    uint8_t *at = bw_reserve(w, 4);
    if (at)
        be32_store(at, v);
}

static inline void bw_u64(struct bw *w, uint64_t v)
{
    uint8_t *at = bw_reserve(w, 8);
    if (at)
        be64_store(at, v);
}

static inline bool bw_ok(const struct bw *w)
{
    return !w->overflow;
}

void bw_bytes(struct bw *w, const void *src, size_t n);
void bw_zeros(struct bw *w, size_t n);
/* Pascal string: one length byte then the bytes; longer than 255 → overflow. */
void bw_pstr(struct bw *w, const char *s);
/* One zero byte when the running length is odd (AFP "pad to even"). */
void bw_pad_even(struct bw *w);
/* Overwrite a u16 written earlier at offset at (for back-patched lengths). */
void bw_put_u16_at(struct bw *w, size_t at, uint16_t v);

static inline void br_init(struct br *r, const void *src, size_t len)
{
    r->p = src;
    r->len = src ? len : 0;
    r->pos = 0;
    r->err = false;
}

/* Claim n bytes; NULL (and the flag set) when fewer remain. */
static inline const uint8_t *br_take(struct br *r, size_t n)
{
    if (r->err || n > r->len - r->pos) {
        r->err = true;
        return NULL;
    }
    const uint8_t *at = r->p + r->pos;
    r->pos += n;
    return at;
}

static inline uint8_t br_u8(struct br *r)
{
    const uint8_t *at = br_take(r, 1);
    return at ? *at : 0;
}

static inline uint16_t br_u16(struct br *r)
{
    const uint8_t *at = br_take(r, 2);
    return at ? be16_load(at) : 0;
}

static inline uint32_t br_u32(struct br *r)
{
    const uint8_t *at = br_take(r, 4);
    return at ? be32_load(at) : 0;
}

static inline uint64_t br_u64(struct br *r)
{
    const uint8_t *at = br_take(r, 8);
    return at ? be64_load(at) : 0;
}

static inline size_t br_remaining(const struct br *r)
{
    return r->err ? 0 : r->len - r->pos;
}

static inline bool br_ok(const struct br *r)
{
    return !r->err;
}

void br_bytes(struct br *r, void *dst, size_t n);
void br_skip(struct br *r, size_t n);
/* Move to an absolute position; beyond the end sets the error flag. */
void br_seek(struct br *r, size_t pos);
/* Pascal string into dst as a NUL-terminated C string; error when it does not
 * fit in cap (cap must be >= 256 to take any pstring) or runs past the end. */
void br_pstr(struct br *r, char *dst, size_t cap);

#endif

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

void bw_init(struct bw *w, void *mem, size_t cap);
void bw_u8(struct bw *w, uint8_t v);
void bw_u16(struct bw *w, uint16_t v);
void bw_u32(struct bw *w, uint32_t v);
void bw_u64(struct bw *w, uint64_t v);
void bw_bytes(struct bw *w, const void *src, size_t n);
void bw_zeros(struct bw *w, size_t n);
/* Pascal string: one length byte then the bytes; longer than 255 → overflow. */
void bw_pstr(struct bw *w, const char *s);
/* One zero byte when the running length is odd (AFP "pad to even"). */
void bw_pad_even(struct bw *w);
/* Overwrite a u16 written earlier at offset at (for back-patched lengths). */
void bw_put_u16_at(struct bw *w, size_t at, uint16_t v);
bool bw_ok(const struct bw *w);

struct br {
    const uint8_t *p;
    size_t len;
    size_t pos;
    bool err;
};

void br_init(struct br *r, const void *src, size_t len);
uint8_t br_u8(struct br *r);
uint16_t br_u16(struct br *r);
uint32_t br_u32(struct br *r);
uint64_t br_u64(struct br *r);
void br_bytes(struct br *r, void *dst, size_t n);
void br_skip(struct br *r, size_t n);
/* Move to an absolute position; beyond the end sets the error flag. */
void br_seek(struct br *r, size_t pos);
/* Pascal string into dst as a NUL-terminated C string; error when it does not
 * fit in cap (cap must be >= 256 to take any pstring) or runs past the end. */
void br_pstr(struct br *r, char *dst, size_t cap);
size_t br_remaining(const struct br *r);
bool br_ok(const struct br *r);

/* Plain big-endian loads/stores for fixed headers. */
uint16_t be16_load(const uint8_t *p);
uint32_t be32_load(const uint8_t *p);
uint64_t be64_load(const uint8_t *p);
void be16_store(uint8_t *p, uint16_t v);
void be32_store(uint8_t *p, uint32_t v);
void be64_store(uint8_t *p, uint64_t v);

#endif

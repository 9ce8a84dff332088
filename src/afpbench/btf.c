/* Member offsets from the kernel's BTF (btf.h). The format is the
 * kernel's (Documentation/bpf/btf.rst): a header, then a type section of
 * variable-length records numbered from 1, then a string section. Only
 * what finding a member needs is read; every length is checked against
 * the blob, since a damaged file must give -1, never a wild read. */
#include "btf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    KIND_INT = 1,
    KIND_PTR,
    KIND_ARRAY,
    KIND_STRUCT,
    KIND_UNION,
    KIND_ENUM,
    KIND_FWD,
    KIND_TYPEDEF,
    KIND_VOLATILE,
    KIND_CONST,
    KIND_RESTRICT,
    KIND_FUNC,
    KIND_FUNC_PROTO,
    KIND_VAR,
    KIND_DATASEC,
    KIND_FLOAT,
    KIND_DECL_TAG,
    KIND_TYPE_TAG,
    KIND_ENUM64,
};

#define BTF_MAGIC 0xeB9F
#define MAX_DEPTH 8 /* unnamed structs within unnamed unions within ... */

struct blob {
    const unsigned char *types; /* the type section */
    size_t types_len;
    const char *strs; /* the string section */
    size_t strs_len;
    uint32_t *at; /* at[id]: where type id's record starts in types */
    uint32_t n;   /* type ids 1..n-1 exist */
};

static uint32_t u32_at(const unsigned char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static uint32_t kind_of(uint32_t info)
{
    return (info >> 24) & 0x1f;
}

/* The length of the record that starts at off, or 0 when it runs past the
 * section or its kind is unknown. */
static size_t record_len(const struct blob *b, size_t off)
{
    if (b->types_len - off < 12)
        return 0;
    uint32_t info = u32_at(b->types + off + 4), vlen = info & 0xffff;
    size_t extra;
    switch (kind_of(info)) {
    case KIND_INT:
    case KIND_VAR:
    case KIND_DECL_TAG:
        extra = 4;
        break;
    case KIND_ARRAY:
        extra = 12;
        break;
    case KIND_STRUCT:
    case KIND_UNION:
    case KIND_DATASEC:
    case KIND_ENUM64:
        extra = (size_t)vlen * 12;
        break;
    case KIND_ENUM:
    case KIND_FUNC_PROTO:
        extra = (size_t)vlen * 8;
        break;
    case KIND_PTR:
    case KIND_FWD:
    case KIND_TYPEDEF:
    case KIND_VOLATILE:
    case KIND_CONST:
    case KIND_RESTRICT:
    case KIND_FUNC:
    case KIND_FLOAT:
    case KIND_TYPE_TAG:
        extra = 0;
        break;
    default:
        return 0;
    }
    return b->types_len - off - 12 < extra ? 0 : 12 + extra;
}

/* The string at off, or "" when off is outside the section or the string
 * does not end in it. */
static const char *str_at(const struct blob *b, uint32_t off)
{
    if (off >= b->strs_len || memchr(b->strs + off, '\0', b->strs_len - off) == NULL)
        return "";
    return b->strs + off;
}

static int open_blob(struct blob *b, const unsigned char *data, size_t len)
{
    memset(b, 0, sizeof *b);
    if (len < 24)
        return -1;
    uint16_t magic;
    memcpy(&magic, data, sizeof magic);
    uint32_t hdr_len = u32_at(data + 4), type_off = u32_at(data + 8), type_len = u32_at(data + 12),
             str_off = u32_at(data + 16), str_len = u32_at(data + 20);
    if (magic != BTF_MAGIC || hdr_len < 24 || hdr_len > len)
        return -1;
    size_t body = len - hdr_len;
    if (type_off > body || type_len > body - type_off || str_off > body || str_len > body - str_off)
        return -1;
    b->types = data + hdr_len + type_off;
    b->types_len = type_len;
    b->strs = (const char *)data + hdr_len + str_off;
    b->strs_len = str_len;
    /* a record is at least 12 bytes: that bounds the number of types */
    size_t most = type_len / 12 + 1;
    b->at = malloc(most * sizeof b->at[0]);
    if (b->at == NULL)
        return -1;
    b->n = 1;
    for (size_t off = 0; off < type_len;) {
        size_t rec = record_len(b, off);
        if (rec == 0 || b->n >= most) {
            free(b->at);
            b->at = NULL;
            return -1;
        }
        b->at[b->n++] = (uint32_t)off;
        off += rec;
    }
    return 0;
}

/* Past typedefs and qualifiers to the type they name; 0 on a loop or a
 * bad id. */
static uint32_t resolve(const struct blob *b, uint32_t id)
{
    for (int hops = 0; hops < 16; hops++) {
        if (id == 0 || id >= b->n)
            return 0;
        uint32_t kind = kind_of(u32_at(b->types + b->at[id] + 4));
        if (kind != KIND_TYPEDEF && kind != KIND_VOLATILE && kind != KIND_CONST &&
            kind != KIND_RESTRICT && kind != KIND_TYPE_TAG)
            return id;
        id = u32_at(b->types + b->at[id] + 8);
    }
    return 0;
}

/* The byte offset of member in the struct or union id, or -1. */
static long find_member(const struct blob *b, uint32_t id, const char *member, int depth)
{
    if (depth > MAX_DEPTH)
        return -1;
    const unsigned char *t = b->types + b->at[id];
    uint32_t info = u32_at(t + 4), vlen = info & 0xffff, flag = info >> 31;
    for (uint32_t i = 0; i < vlen; i++) {
        const unsigned char *m = t + 12 + (size_t)i * 12;
        uint32_t name = u32_at(m), type = u32_at(m + 4), where = u32_at(m + 8);
        uint32_t bits = flag ? where & 0xffffff : where, field_bits = flag ? where >> 24 : 0;
        const char *mname = str_at(b, name);
        if (strcmp(mname, member) == 0)
            return field_bits != 0 || bits % 8 != 0 ? -1 : (long)(bits / 8);
        if (mname[0] != '\0' || bits % 8 != 0)
            continue;
        uint32_t inner = resolve(b, type);
        if (inner == 0)
            continue;
        uint32_t kind = kind_of(u32_at(b->types + b->at[inner] + 4));
        if (kind != KIND_STRUCT && kind != KIND_UNION)
            continue;
        long off = find_member(b, inner, member, depth + 1);
        if (off >= 0)
            return (long)(bits / 8) + off;
    }
    return -1;
}

int btf_find_fields(const unsigned char *data, size_t len, struct btf_field *fields, size_t n)
{
    struct blob b;
    for (size_t i = 0; i < n; i++)
        fields[i].offset = -1;
    if (data == NULL || open_blob(&b, data, len) != 0)
        return -1;
    size_t missing = n;
    for (uint32_t id = 1; id < b.n && missing > 0; id++) {
        const unsigned char *t = b.types + b.at[id];
        uint32_t info = u32_at(t + 4);
        /* a forward declaration has no members; the definition comes elsewhere */
        if (kind_of(info) != KIND_STRUCT || (info & 0xffff) == 0)
            continue;
        const char *name = str_at(&b, u32_at(t));
        for (size_t i = 0; i < n; i++)
            if (fields[i].offset < 0 && strcmp(name, fields[i].type) == 0) {
                fields[i].offset = find_member(&b, id, fields[i].member, 0);
                if (fields[i].offset >= 0)
                    missing--;
            }
    }
    free(b.at);
    return (int)missing;
}

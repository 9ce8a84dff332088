/* Escaping of server-supplied text (see safetext.h). */
#include "safetext.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed UTF-8 sequence at p (2-4), or 0. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned char c = p[0];
    size_t n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
            return 0;
        cp = (cp << 6) | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;   /* overlong, out of range, surrogate */
    if (cp <= 0x9f) /* C1 controls (n == 2, cp >= 0x80) */
        return 0;
    return n;
}

size_t safetext(char *dst, size_t cap, const char *src)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t k = 0;
    if (cap == 0)
        return 0;
    while (*p) {
        size_t n = 1;
        int escape = 0;
        if (*p >= 0x80) {
            n = utf8_len(p);
            escape = n == 0;
            if (n == 0)
                n = 1;
        } else if (*p < 0x20 || *p == 0x7f || *p == '\\') {
            escape = 1;
        } else if (*p == ':' && k > 0 && dst[k - 1] == ':') {
            escape = 1;
        }
        if (escape) {
            if (k + 4 >= cap)
                break;
            snprintf(dst + k, cap - k, "\\x%02x", *p);
            k += 4;
        } else {
            if (k + n >= cap)
                break;
            memcpy(dst + k, p, n);
            k += n;
        }
        p += n;
    }
    dst[k] = '\0';
    return k;
}

void safetext_inplace(char *s, size_t cap)
{
    char *copy = strdup(s);
    if (copy == NULL) {
        /* no memory for a copy: drop the text rather than print it raw */
        s[0] = '\0';
        return;
    }
    safetext(s, cap, copy);
    free(copy);
}

/* Minimal unit-test harness (see harness.h). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned passed, failed;
static const char *current = "?";

bool harness_check(bool ok, const char *expr, const char *file, int line)
{
    if (ok) {
        passed++;
        return true;
    }
    failed++;
    printf("FAIL %s: %s:%d: %s\n", current, file, line, expr);
    return false;
}

bool harness_check_int(long long got, long long want, const char *expr, const char *file, int line)
{
    if (got == want)
        return harness_check(true, expr, file, line);
    failed++;
    printf("FAIL %s: %s:%d: %s is %lld, want %lld\n", current, file, line, expr, got, want);
    return false;
}

bool harness_check_str(const char *got, const char *want, const char *expr, const char *file,
                       int line)
{
    if (got && want && strcmp(got, want) == 0)
        return harness_check(true, expr, file, line);
    failed++;
    printf("FAIL %s: %s:%d: %s is \"%s\", want \"%s\"\n", current, file, line, expr,
           got ? got : "(null)", want ? want : "(null)");
    return false;
}

static void hexdump(const char *label, const uint8_t *p, size_t n)
{
    printf("  %s (%zu bytes):", label, n);
    for (size_t i = 0; i < n; i++)
        printf("%s%02x", i % 16 ? " " : "\n    ", p[i]);
    printf("\n");
}

bool harness_check_mem(const void *got, size_t got_len, const void *want, size_t want_len,
                       const char *expr, const char *file, int line)
{
    if (got_len == want_len && (want_len == 0 || memcmp(got, want, want_len) == 0))
        return harness_check(true, expr, file, line);
    failed++;
    printf("FAIL %s: %s:%d: %s differs from the golden bytes\n", current, file, line, expr);
    hexdump("got", got, got_len);
    hexdump("want", want, want_len);
    return false;
}

void harness_run(void (*fn)(void), const char *name)
{
    current = name;
    fn();
    current = "?";
}

int harness_report(void)
{
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}

uint8_t *harness_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return buf;
}

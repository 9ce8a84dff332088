/* Parsing valgrind's callgrind and cachegrind output files (instr.h). Our
 * own reading of the documented text format: "key: value" header lines
 * (events:, positions:, summary:, totals:, pid:), "key=value" specification
 * lines (fn= and cfn= name the function, callgrind may compress a name to
 * "(id)" after its first "(id) name"; calls= is followed by one line of
 * inclusive call cost, which is not self cost), and cost lines: positions
 * then one count per event. */
#include "instr.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define INSTR_MAX_EVENTS 64
#define INSTR_MAX_POSITIONS 4

static void seterr(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
    if (err == NULL || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* ---- the profile's function table ---- */

void instr_profile_init(struct instr_profile *p)
{
    memset(p, 0, sizeof *p);
}

void instr_profile_free(struct instr_profile *p)
{
    for (size_t i = 0; i < p->cap; i++)
        free(p->funcs[i].name);
    free(p->funcs);
    memset(p, 0, sizeof *p);
}

/* Both function tables (the profile's and the accumulators') are open
 * addressing over entries whose first member is the name (NULL: a free
 * slot), kept at most half full. */
static char *entry_name(const void *base, size_t stride, size_t i)
{
    char *name;
    memcpy(&name, (const char *)base + i * stride, sizeof name);
    return name;
}

/* The slot of name, or the free slot where it would go (cap > 0). */
static size_t table_probe(const void *base, size_t stride, size_t cap, const char *name)
{
    size_t j = hash_name(name) & (cap - 1);
    for (char *n; (n = entry_name(base, stride, j)) != NULL && strcmp(n, name) != 0;)
        j = (j + 1) & (cap - 1);
    return j;
}

/* The index of name's entry, added (zero but for its name) when missing;
 * (size_t)-1 when out of memory or beyond INSTR_MAX_FUNCS. */
static size_t table_get(void **base, size_t stride, size_t *n, size_t *cap, const char *name)
{
    if (*cap > 0) {
        size_t j = table_probe(*base, stride, *cap, name);
        if (entry_name(*base, stride, j) != NULL)
            return j;
    }
    if (*n >= INSTR_MAX_FUNCS)
        return (size_t)-1;
    if ((*n + 1) * 2 > *cap) {
        size_t ncap = *cap ? *cap * 2 : 1024;
        char *t = calloc(ncap, stride);
        if (t == NULL)
            return (size_t)-1;
        for (size_t i = 0; i < *cap; i++) {
            char *old = entry_name(*base, stride, i);
            if (old != NULL)
                memcpy(t + table_probe(t, stride, ncap, old) * stride,
                       (const char *)*base + i * stride, stride);
        }
        free(*base);
        *base = t;
        *cap = ncap;
    }
    size_t j = table_probe(*base, stride, *cap, name);
    char *copy = strdup(name);
    if (copy == NULL)
        return (size_t)-1;
    memset((char *)*base + j * stride, 0, stride);
    memcpy((char *)*base + j * stride, &copy, sizeof copy);
    (*n)++;
    return j;
}

/* The slot of name, or NULL (not there; create: add it, NULL when full). */
static struct instr_func *profile_slot(struct instr_profile *p, const char *name, int create)
{
    if (!create) {
        if (p->cap == 0)
            return NULL;
        struct instr_func *f = &p->funcs[table_probe(p->funcs, sizeof *p->funcs, p->cap, name)];
        return f->name != NULL ? f : NULL;
    }
    void *base = p->funcs;
    size_t j = table_get(&base, sizeof *p->funcs, &p->nfuncs, &p->cap, name);
    p->funcs = base;
    return j != (size_t)-1 ? &p->funcs[j] : NULL;
}

uint64_t instr_func_ir(const struct instr_profile *p, const char *name)
{
    struct instr_func *f = profile_slot((struct instr_profile *)p, name, 0);
    return f != NULL ? f->ir : 0;
}

/* ---- signed accumulators ---- */

void instr_acc_free(struct instr_acc *a)
{
    for (size_t i = 0; i < a->cap; i++)
        free(a->e[i].name);
    free(a->e);
    memset(a, 0, sizeof *a);
}

static struct instr_acc_entry *acc_slot(struct instr_acc *a, const char *name)
{
    void *base = a->e;
    size_t j = table_get(&base, sizeof *a->e, &a->n, &a->cap, name);
    a->e = base;
    return j != (size_t)-1 ? &a->e[j] : NULL;
}

int instr_acc_add(struct instr_acc *a, const struct instr_profile *src, int64_t mult)
{
    for (size_t i = 0; i < src->cap; i++) {
        const struct instr_func *f = &src->funcs[i];
        if (f->name == NULL || f->ir == 0)
            continue;
        if (f->ir > (uint64_t)INT64_MAX)
            return -1;
        int64_t add;
        if (__builtin_mul_overflow((int64_t)f->ir, mult, &add))
            return -1;
        struct instr_acc_entry *e = acc_slot(a, f->name);
        if (e == NULL || __builtin_add_overflow(e->ir, add, &e->ir))
            return -1;
    }
    return 0;
}

/* ---- the parser ---- */

struct parser {
    struct instr_profile *p;
    char **names; /* compressed function names by id */
    size_t nnames;
    char **objs; /* compressed object names by id (ob=, cob=) */
    size_t nobjs;
    char *ob;   /* the current object's file name (basename; owned), or NULL */
    char *cur;  /* current function name (owned) */
    int ir_col; /* index of Ir among the events, -1 until known */
    int nevents;
    int npos;      /* position columns of a cost line */
    int skip_cost; /* the next cost line is a call's inclusive cost */
    int have_summary, have_totals;
    uint64_t summary, totals, sum;
    unsigned long lineno;
    char *err;
    size_t errlen;
};

static int fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct parser *ps, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    seterr(ps->err, ps->errlen, "line %lu: %s", ps->lineno, msg);
    return -1;
}

/* A decimal count of at most 20 digits that fits in 64 bits. Advances *s. */
static int parse_u64(const char **s, uint64_t *v)
{
    const char *q = *s;
    uint64_t n = 0;
    if (!isdigit((unsigned char)*q))
        return -1;
    for (; isdigit((unsigned char)*q); q++) {
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, *q - '0', &n))
            return -1;
    }
    *s = q;
    *v = n;
    return 0;
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Tokens of "events:" / "positions:" (blank-separated). */
static int parse_events(struct parser *ps, const char *v)
{
    int n = 0, col = -1;
    for (v = skip_blanks(v); *v; v = skip_blanks(v)) {
        size_t len = strcspn(v, " \t");
        if (len == 2 && strncmp(v, "Ir", 2) == 0 && col < 0)
            col = n;
        if (++n > INSTR_MAX_EVENTS)
            return fail(ps, "more than %d events", INSTR_MAX_EVENTS);
        v += len;
    }
    if (col < 0)
        return fail(ps, "no Ir event (instructions) in the events line");
    if (ps->ir_col >= 0)
        return fail(ps, "a second events line");
    ps->ir_col = col;
    ps->nevents = n;
    return 0;
}

static int parse_positions(struct parser *ps, const char *v)
{
    int n = 0;
    for (v = skip_blanks(v); *v; v = skip_blanks(v)) {
        size_t len = strcspn(v, " \t");
        if (!((len == 4 && strncmp(v, "line", 4) == 0) ||
              (len == 5 && strncmp(v, "instr", 5) == 0)))
            return fail(ps, "unknown position kind");
        if (++n > INSTR_MAX_POSITIONS)
            return fail(ps, "too many positions");
        v += len;
    }
    if (n == 0)
        return fail(ps, "empty positions line");
    ps->npos = n;
    return 0;
}

/* The Ir column of a summary/totals line. */
static int parse_total(struct parser *ps, const char *v, uint64_t *out)
{
    if (ps->ir_col < 0)
        return fail(ps, "a total before the events line");
    v = skip_blanks(v);
    for (int i = 0;; i++) {
        uint64_t n;
        if (parse_u64(&v, &n) != 0)
            return fail(ps, "a total that is not a count");
        if (i == ps->ir_col) {
            *out = n;
            return 0;
        }
        v = skip_blanks(v);
        if (*v == '\0')
            return fail(ps, "a total without the Ir column");
    }
}

/* Drop callgrind's recursion suffix ("name'2"): one function, one row. */
static void strip_recursion(char *name)
{
    char *q = strrchr(name, '\'');
    if (q == NULL || q == name || q[1] == '\0')
        return;
    for (const char *d = q + 1; *d; d++)
        if (!isdigit((unsigned char)*d))
            return;
    *q = '\0';
}

/* A compressed-name table entry: "(id) name" defines id, "(id)" uses it.
 * *name points into the table. */
static int table_name(struct parser *ps, char ***tab, size_t *ntab, const char *v,
                      const char **name)
{
    v++;
    uint64_t id;
    if (parse_u64(&v, &id) != 0 || *v != ')')
        return fail(ps, "a malformed compressed name");
    if (id >= INSTR_MAX_NAME_IDS)
        return fail(ps, "a name id beyond %u", INSTR_MAX_NAME_IDS);
    v = skip_blanks(v + 1);
    if (*v != '\0') { /* a definition */
        if (id >= *ntab) {
            size_t n = *ntab ? *ntab : 256;
            while (n <= id)
                n *= 2;
            char **t = realloc(*tab, n * sizeof *t);
            if (t == NULL)
                return fail(ps, "out of memory");
            memset(t + *ntab, 0, (n - *ntab) * sizeof *t);
            *tab = t;
            *ntab = n;
        }
        if ((*tab)[id] != NULL && strcmp((*tab)[id], v) != 0)
            return fail(ps, "name id %llu defined twice", (unsigned long long)id);
        if ((*tab)[id] == NULL) {
            if (((*tab)[id] = strdup(v)) == NULL)
                return fail(ps, "out of memory");
            strip_recursion((*tab)[id]);
        }
    } else if (id >= *ntab || (*tab)[id] == NULL) {
        return fail(ps, "name id %llu used before it is defined", (unsigned long long)id);
    }
    *name = (*tab)[id];
    return 0;
}

/* Is v a compressed name, "(id)" or "(id) name"? A plain name may start
 * with '(' too: valgrind's "(below main)". */
static int compressed(const char *v)
{
    if (*v++ != '(' || !isdigit((unsigned char)*v))
        return 0;
    while (isdigit((unsigned char)*v))
        v++;
    return *v == ')' && (v[1] == '\0' || v[1] == ' ');
}

/* ob=/cob= value: sets *name (the file name's last component) or NULL. */
static int parse_ob_name(struct parser *ps, const char *v, const char **name)
{
    const char *full = v;
    if (compressed(v) && table_name(ps, &ps->objs, &ps->nobjs, v, &full) != 0)
        return -1;
    const char *slash = strrchr(full, '/');
    *name = slash != NULL ? slash + 1 : full;
    return 0;
}

/* fn=/cfn= value: "name", "(id) name" (defines id) or "(id)". Sets *name
 * to a string owned by the parser (valid until the next call). */
static int parse_fn_name(struct parser *ps, const char *v, const char **name)
{
    if (!compressed(v)) {
        if (*v == '\0')
            return fail(ps, "an empty function name");
        free(ps->cur);
        if ((ps->cur = strdup(v)) == NULL)
            return fail(ps, "out of memory");
        strip_recursion(ps->cur);
        *name = ps->cur;
        return 0;
    }
    return table_name(ps, &ps->names, &ps->nnames, v, name);
}

/* A position column: a number (decimal or 0x hex), or relative (+N, -N, *). */
static int skip_position(const char **s)
{
    const char *q = *s;
    if (*q == '*') {
        q++;
    } else {
        if (*q == '+' || *q == '-')
            q++;
        if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
            q += 2;
            if (!isxdigit((unsigned char)*q))
                return -1;
            while (isxdigit((unsigned char)*q))
                q++;
        } else {
            if (!isdigit((unsigned char)*q))
                return -1;
            while (isdigit((unsigned char)*q))
                q++;
        }
    }
    if (*q != '\0' && *q != ' ' && *q != '\t')
        return -1;
    *s = q;
    return 0;
}

static int parse_cost(struct parser *ps, const char *line)
{
    const char *v = line;
    for (int i = 0; i < ps->npos; i++) {
        v = skip_blanks(v);
        if (skip_position(&v) != 0)
            return fail(ps, "a malformed position");
    }
    uint64_t ir = 0;
    for (int i = 0;; i++) {
        v = skip_blanks(v);
        if (*v == '\0')
            break; /* missing trailing counts are zero */
        uint64_t n;
        if (i >= ps->nevents || parse_u64(&v, &n) != 0)
            return fail(ps, "a malformed cost line");
        if (*v != '\0' && *v != ' ' && *v != '\t')
            return fail(ps, "a malformed count");
        if (i == ps->ir_col)
            ir = n;
    }
    if (ps->skip_cost) { /* a call's inclusive cost */
        ps->skip_cost = 0;
        return 0;
    }
    if (ir == 0)
        return 0;
    if (ps->cur == NULL)
        return fail(ps, "a cost before any function");
    struct instr_func *f = profile_slot(ps->p, ps->cur, 1);
    if (f == NULL)
        return fail(ps, "out of memory or more than %u functions", INSTR_MAX_FUNCS);
    if (__builtin_add_overflow(f->ir, ir, &f->ir) || __builtin_add_overflow(ps->sum, ir, &ps->sum))
        return fail(ps, "counts overflow");
    return 0;
}

static int starts(const char *line, const char *key)
{
    return strncmp(line, key, strlen(key)) == 0;
}

static int parse_line(struct parser *ps, char *line)
{
    if (line[0] == '\0' || line[0] == '#')
        return 0;
    if (isdigit((unsigned char)line[0]) || line[0] == '+' || line[0] == '-' || line[0] == '*') {
        if (ps->ir_col < 0)
            return fail(ps, "a cost line before the events line");
        return parse_cost(ps, line);
    }
    if (ps->skip_cost)
        return fail(ps, "calls= not followed by its cost line");
    if (starts(line, "fn=")) {
        const char *name;
        if (parse_fn_name(ps, line + 3, &name) != 0)
            return -1;
        /* A function without a symbol is an address in its object:
         * name it "object:0x…" so that two objects' addresses differ. */
        char *key;
        if (strncmp(name, "0x", 2) == 0 && ps->ob != NULL) {
            size_t n = strlen(ps->ob) + strlen(name) + 2;
            if ((key = malloc(n)) != NULL)
                snprintf(key, n, "%s:%s", ps->ob, name);
        } else {
            key = strdup(name);
        }
        if (key == NULL)
            return fail(ps, "out of memory");
        free(ps->cur);
        ps->cur = key;
        return 0;
    }
    if (starts(line, "cfn=")) { /* defines a name; the current function stays */
        char *keep = ps->cur;
        ps->cur = NULL;
        const char *name;
        int rc = parse_fn_name(ps, line + 4, &name);
        if (ps->cur != NULL)
            free(ps->cur);
        ps->cur = keep;
        return rc;
    }
    if (starts(line, "ob=")) {
        const char *ob;
        if (parse_ob_name(ps, line + 3, &ob) != 0)
            return -1;
        free(ps->ob);
        if ((ps->ob = strdup(ob)) == NULL)
            return fail(ps, "out of memory");
        return 0;
    }
    if (starts(line, "cob=")) {
        const char *unused;
        return parse_ob_name(ps, line + 4, &unused);
    }
    if (starts(line, "calls=")) {
        ps->skip_cost = 1;
        return 0;
    }
    if (starts(line, "jump=") || starts(line, "jcnd="))
        return fail(ps, "jump records (--collect-jumps) are not supported");
    if (starts(line, "events:"))
        return parse_events(ps, line + 7);
    if (starts(line, "positions:"))
        return parse_positions(ps, line + 10);
    if (starts(line, "summary:")) {
        if (ps->have_summary)
            return fail(ps, "a second summary line");
        ps->have_summary = 1;
        return parse_total(ps, line + 8, &ps->summary);
    }
    if (starts(line, "totals:")) {
        if (ps->have_totals)
            return fail(ps, "a second totals line (several parts in one file)");
        ps->have_totals = 1;
        return parse_total(ps, line + 7, &ps->totals);
    }
    if (starts(line, "pid:")) {
        const char *v = skip_blanks(line + 4);
        uint64_t pid;
        if (parse_u64(&v, &pid) != 0 || pid == 0 || pid > 0x7fffffff)
            return fail(ps, "a bad pid line");
        ps->p->pid = (long)pid;
        return 0;
    }
    if (starts(line, "part:") && strcmp(skip_blanks(line + 5), "1") != 0)
        return fail(ps, "a file with several parts (dumps) is not supported");
    /* Other specifications (ob=, fl=, fi=, fe=, cob=, cfi=, cfl=) and
     * headers (version:, creator:, cmd:, desc:, thread:, ...) do not
     * change whose self cost a line is. Anything else is not this format. */
    size_t key = strspn(line, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
    if (key > 0 && (line[key] == '=' || line[key] == ':'))
        return 0;
    return fail(ps, "not a callgrind/cachegrind line");
}

int instr_parse(const char *text, size_t len, struct instr_profile *p, char *err, size_t errlen)
{
    struct parser ps = {.p = p, .ir_col = -1, .npos = 1, .err = err, .errlen = errlen};
    char *line = malloc(INSTR_MAX_LINE + 1);
    int rc = 0;
    if (line == NULL) {
        seterr(err, errlen, "out of memory");
        return -1;
    }
    instr_profile_free(p);
    for (size_t off = 0; off < len && rc == 0;) {
        const char *nl = memchr(text + off, '\n', len - off);
        size_t n = (nl != NULL ? (size_t)(nl - text) : len) - off;
        ps.lineno++;
        if (n > INSTR_MAX_LINE) {
            rc = fail(&ps, "longer than %d bytes", INSTR_MAX_LINE);
            break;
        }
        memcpy(line, text + off, n);
        line[n] = '\0';
        if (memchr(line, '\0', n) != NULL) {
            rc = fail(&ps, "a NUL byte");
            break;
        }
        if (n > 0 && line[n - 1] == '\r')
            line[n - 1] = '\0';
        rc = parse_line(&ps, line);
        off += n + 1;
    }
    if (rc == 0) {
        ps.lineno = 0;
        uint64_t total = ps.have_totals ? ps.totals : ps.summary;
        if (ps.ir_col < 0)
            rc = -1, seterr(err, errlen, "no events line: not a callgrind/cachegrind file");
        else if (!ps.have_totals && !ps.have_summary)
            rc = -1, seterr(err, errlen, "no totals or summary line (file incomplete?)");
        /* summary: is the whole program's cost, totals: this file's. They
         * differ by a few dozen instructions under ordinary options (what
         * runs before collection starts, or around a dump): the file's own
         * totals, which its functions add up to, are the count. */
        else if (ps.skip_cost)
            rc = -1, seterr(err, errlen, "ends after calls= (file incomplete?)");
        else if (ps.sum != total)
            rc = -1,
            seterr(err, errlen, "the functions' costs add up to %llu, the file's total is %llu",
                   (unsigned long long)ps.sum, (unsigned long long)total);
        else {
            p->total = total;
            snprintf(p->tool, sizeof p->tool, "%s", ps.have_totals ? "callgrind" : "cachegrind");
        }
    }
    for (size_t i = 0; i < ps.nnames; i++)
        free(ps.names[i]);
    free(ps.names);
    for (size_t i = 0; i < ps.nobjs; i++)
        free(ps.objs[i]);
    free(ps.objs);
    free(ps.ob);
    free(ps.cur);
    free(line);
    if (rc != 0) {
        long pid = p->pid;
        instr_profile_free(p);
        p->pid = pid;
    }
    return rc;
}

int instr_parse_file(const char *path, struct instr_profile *p, char *err, size_t errlen)
{
    FILE *f = fopen(path, "re");
    if (f == NULL) {
        seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int rc = -1;
    if (buf == NULL) {
        seterr(err, errlen, "out of memory");
        goto out;
    }
    for (;;) {
        if (len == cap) {
            if (cap >= INSTR_MAX_FILE_BYTES) {
                seterr(err, errlen, "%s is larger than %llu bytes", path,
                       (unsigned long long)INSTR_MAX_FILE_BYTES);
                goto out;
            }
            char *n = realloc(buf, cap * 2);
            if (n == NULL) {
                seterr(err, errlen, "out of memory reading %s", path);
                goto out;
            }
            buf = n;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        seterr(err, errlen, "cannot read %s", path);
        goto out;
    }
    char perr[240];
    if (instr_parse(buf, len, p, perr, sizeof perr) != 0) {
        seterr(err, errlen, "%s: %s", path, perr);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    fclose(f);
    return rc;
}

/* ---- waiting for a session's file ---- */

/* 1: the process is gone (or a zombie: valgrind wrote its file before it
 * exited); 0: it runs; -1: cannot tell (no proc root). */
static int process_gone(const char *proc_root, int pid)
{
    if (proc_root == NULL || proc_root[0] == '\0')
        return -1;
    struct stat st;
    if (stat(proc_root, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    char path[512], buf[512];
    snprintf(path, sizeof path, "%s/%d/stat", proc_root, pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *q = strrchr(buf, ')');
    if (q == NULL)
        return 1;
    return q[1] == ' ' && q[2] == 'Z';
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int instr_wait_profile(const char *dir, const char *proc_root, int pid, int timeout_ms,
                       struct instr_profile *p, char *err, size_t errlen)
{
    static const char *const tools[] = {"callgrind", "cachegrind"};
    long long deadline = now_ms() + timeout_ms, gone_at = -1;
    long long last_size = -1;
    char path[4096], lasterr[400] = "";

    if (pid <= 0) {
        seterr(err, errlen,
               "the afpd process of the session is unknown (IO monitoring found none)");
        return -1;
    }
    for (;;) {
        int gone = process_gone(proc_root, pid);
        if (gone == 1 && gone_at < 0)
            gone_at = now_ms();
        for (int t = 0; t < 2; t++) {
            if (snprintf(path, sizeof path, "%s/%s.out.%d", dir, tools[t], pid) >=
                (int)sizeof path) {
                seterr(err, errlen, "the instrumentation directory's name is too long");
                return -1;
            }
            struct stat st;
            if (stat(path, &st) != 0)
                continue;
            if (!S_ISREG(st.st_mode)) {
                seterr(err, errlen, "%s is not a regular file", path);
                return -1;
            }
            /* Complete: the process is gone, or (no proc root) the size
             * held still for one poll and the file parses. */
            int settled = gone == 1 || (gone < 0 && st.st_size == last_size);
            last_size = st.st_size;
            if (!settled)
                break;
            if (instr_parse_file(path, p, lasterr, sizeof lasterr) == 0) {
                if (p->pid != 0 && p->pid != pid) {
                    seterr(err, errlen, "%s says it is of pid %ld", path, p->pid);
                    instr_profile_free(p);
                    return -1;
                }
                return 0;
            }
            if (gone == 1) { /* written and closed: it will not get better */
                seterr(err, errlen, "%s", lasterr);
                return -1;
            }
            break;
        }
        long long now = now_ms();
        /* The process is gone and left no file for a second: not traced. */
        if (gone_at >= 0 && now - gone_at > 1000 && lasterr[0] == '\0') {
            seterr(err, errlen,
                   "afpd %d ended without leaving %s/callgrind.out.%d or cachegrind.out.%d "
                   "(is the server instrumented, and is this its directory?)",
                   pid, dir, pid, pid);
            return -1;
        }
        if (now >= deadline) {
            seterr(err, errlen, "no complete %s/{callgrind,cachegrind}.out.%d within %d s%s%s", dir,
                   pid, timeout_ms / 1000, lasterr[0] ? ": " : "", lasterr);
            return -1;
        }
        sleep_ms(50);
    }
}

/* ---- helpers ---- */

int instr_valgrind_runs(const char *cmdline, size_t len, const char *name)
{
    size_t i = 0, nlen = strlen(name);
    int arg = 0, tool = 0;
    while (i < len) {
        const char *a = cmdline + i;
        const char *end = memchr(a, '\0', len - i);
        size_t alen = end != NULL ? (size_t)(end - a) : len - i;
        const char *base = a;
        for (size_t k = 0; k < alen; k++)
            if (a[k] == '/')
                base = a + k + 1;
        size_t blen = alen - (size_t)(base - a);
        if (arg == 0) {
            /* valgrind's launcher (valgrind, valgrind.bin) or a tool binary
             * (callgrind-amd64-linux, ...). */
            tool = (blen >= 8 && strncmp(base, "valgrind", 8) == 0) ||
                   (blen > 10 && (strncmp(base, "callgrind-", 10) == 0 ||
                                  strncmp(base, "cachegrind-", 11) == 0));
            if (!tool)
                return 0;
        } else if (alen > 0 && a[0] != '-') {
            /* The first argument that is not an option: the program. */
            return blen == nlen && strncmp(base, name, nlen) == 0;
        }
        arg++;
        i += alen + 1;
    }
    return 0;
}

void instr_cpu_flags(char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (f == NULL)
        return;
    char line[8192];
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "flags", 5) != 0 && strncmp(line, "Features", 8) != 0)
            continue;
        const char *v = strchr(line, ':');
        if (v == NULL)
            continue;
        v = skip_blanks(v + 1);
        snprintf(buf, len, "%s", v);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(f);
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f) /* names are not trusted to be UTF-8 */
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

void instr_run_print_json(const struct instr_run *run, FILE *f)
{
    fputs("  \"instr\": {\n    \"tool\": ", f);
    json_str(f, run->tool[0] ? run->tool : "unknown");
    fputs(", \"dir\": ", f);
    json_str(f, run->dir ? run->dir : "");
    fprintf(f,
            ",\n    \"empty_session\": { \"afpd_instr\": %llu, \"afp_ops\": %llu, \"samples\": [",
            (unsigned long long)run->empty_median, (unsigned long long)run->empty_ops);
    for (unsigned i = 0; i < run->n_empty; i++)
        fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)run->empty_ir[i]);
    fputs("] },\n    \"cnid_dbd\": \"not counted: cnid_dbd runs natively (its process lives "
          "across sessions)\",\n    \"cpu_flags\": ",
          f);
    json_str(f, run->cpu_flags);
    fputs("\n  }", f);
}

static int by_magnitude(const void *a, const void *b)
{
    const struct instr_acc_entry *x = *(const struct instr_acc_entry *const *)a;
    const struct instr_acc_entry *y = *(const struct instr_acc_entry *const *)b;
    uint64_t mx = x->ir < 0 ? (uint64_t)0 - (uint64_t)x->ir : (uint64_t)x->ir;
    uint64_t my = y->ir < 0 ? (uint64_t)0 - (uint64_t)y->ir : (uint64_t)y->ir;
    if (mx != my)
        return mx > my ? -1 : 1;
    return strcmp(x->name, y->name);
}

void instr_print_functions(FILE *f, const struct instr_acc *acc, unsigned sessions,
                           uint64_t per_session_total)
{
    fputs("{", f);
    if (acc == NULL || sessions == 0 || acc->n == 0) {
        fputs("}", f);
        return;
    }
    const struct instr_acc_entry **v = malloc(acc->n * sizeof *v);
    if (v == NULL) {
        fputs("}", f);
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < acc->cap; i++)
        if (acc->e[i].name != NULL && acc->e[i].ir != 0)
            v[n++] = &acc->e[i];
    qsort(v, n, sizeof *v, by_magnitude);
    double floor = (double)per_session_total * INSTR_TABLE_SHARE;
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < INSTR_TABLE_MAX; i++) {
        double per = (double)v[i]->ir / (double)sessions;
        if ((per < 0 ? -per : per) < floor || (per < 0.5 && per > -0.5))
            break;
        fputs(shown ? ",\n        " : "\n        ", f);
        json_str(f, v[i]->name);
        fprintf(f, ": %.0f", per);
        shown++;
    }
    fputs(shown ? "\n      }" : "}", f);
    free(v);
}

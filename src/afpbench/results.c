/* Results model and its JSON writer (docs/results-format.md). */
#include "results.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "afp.h"
#include "attribution.h"
#include "clock.h"
#include "commands.h"
#include "instr.h"
#include "pin.h"
#include "version.h"

void results_init(struct results *r, const char *suite, const char *suite_version)
{
    memset(r, 0, sizeof *r);
    r->suite = suite;
    r->suite_version = suite_version;
    r->bigfile_bytes = RESULTS_UNKNOWN;
    r->window = 1;
    r->io_reason = "not started: no session";
    r->cpu_asked = PIN_OFF;
    r->cpu_pinned = -1;
    clock_utc_iso8601(r->started_at, sizeof r->started_at);
}

void results_free(struct results *r)
{
    for (size_t i = 0; i < r->ntests; i++) {
        free(r->tests[i].samples);
        if (r->tests[i].instr_funcs != NULL)
            instr_acc_free(r->tests[i].instr_funcs);
        free(r->tests[i].instr_funcs);
        free(r->tests[i].commands);
    }
    free(r->tests);
    r->tests = NULL;
    r->ntests = r->cap = 0;
}

struct result_test *results_add_test(struct results *r, const char *key, const char *name)
{
    if (r->ntests == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        struct result_test *t = realloc(r->tests, cap * sizeof *t);
        if (t == NULL)
            return NULL;
        r->tests = t;
        r->cap = cap;
    }
    struct result_test *t = &r->tests[r->ntests++];
    memset(t, 0, sizeof *t);
    snprintf(t->key, sizeof t->key, "%s", key);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->suite = r->suite;
    t->size_bytes = RESULTS_UNKNOWN;
    t->afp_ops = RESULTS_UNKNOWN;
    t->afp_ops_nominal = RESULTS_UNKNOWN;
    return t;
}

struct result_test *results_find_test(struct results *r, const char *key)
{
    for (size_t i = 0; i < r->ntests; i++)
        if (strcmp(r->tests[i].key, key) == 0)
            return &r->tests[i];
    return NULL;
}

int results_add_sample(struct result_test *t, const struct result_sample *s)
{
    if (t->nsamples == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 8;
        struct result_sample *n = realloc(t->samples, cap * sizeof *n);
        if (n == NULL)
            return -1;
        t->samples = n;
        t->cap = cap;
    }
    t->samples[t->nsamples++] = *s;
    t->afp_ops = s->afp_ops;
    return 0;
}

void results_fail(struct results *r, int exit_code, const char *fmt, ...)
{
    if (r->failed)
        return;
    r->failed = 1;
    r->exit_code = exit_code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
}

int results_fail_test(struct results *r, struct result_test *t, int exit_code, const char *fmt, ...)
{
    char msg[sizeof r->error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t != NULL && !t->failed) {
        t->failed = 1;
        snprintf(t->error, sizeof t->error, "%s", msg);
    }
    results_fail(r, exit_code, "%s", msg);
    return exit_code;
}

void results_share_cpu(struct results *head, struct results *base)
{
    uint64_t ops = head->cpu_afp_ops + base->cpu_afp_ops;
    head->cpu_afp_ops = base->cpu_afp_ops = ops;
    base->cpu_user_us = head->cpu_user_us;
    base->cpu_sys_us = head->cpu_sys_us;
}

void results_finish(struct results *r)
{
    clock_cpu_us(&r->cpu_user_us, &r->cpu_sys_us);
    r->cpu_known = 1;
    clock_utc_iso8601(r->finished_at, sizeof r->finished_at);
}

void results_save(struct results *r, const char *json_path)
{
    if (r->failed)
        fprintf(stderr, "afpbench %s: error: %s\n", r->suite, r->error);
    if (json_path != NULL && results_write_json(r, json_path) != 0) {
        fprintf(stderr, "afpbench %s: error: cannot write %s: %s\n", r->suite, json_path,
                strerror(errno));
        if (!r->failed)
            results_fail(r, EXIT_FILEDIR, "cannot write the JSON results");
    }
}

void json_write_string(FILE *f, const char *s)
{
    if (s == NULL) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f); /* UTF-8 passes through */
        }
    }
    fputc('"', f);
}

/* n strings stride bytes apart from first, as a JSON array; null when not
 * known. */
static void json_string_list(FILE *f, int known, const char *first, size_t stride, unsigned n)
{
    if (!known) {
        fputs("null", f);
        return;
    }
    fputc('[', f);
    for (unsigned i = 0; i < n; i++) {
        fputs(i ? ", " : "", f);
        json_write_string(f, first + (size_t)i * stride);
    }
    fputc(']', f);
}

static void json_u64(FILE *f, uint64_t v)
{
    if (v == RESULTS_UNKNOWN)
        fputs("null", f);
    else
        fprintf(f, "%llu", (unsigned long long)v);
}

void results_probe_env(struct results_env *e)
{
    memset(e, 0, sizeof *e);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(e->hostname, sizeof e->hostname, "%s", u.nodename);
        snprintf(e->kernel, sizeof e->kernel, "%s", u.release);
    }
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (f != NULL) {
        char line[512];
        while (fgets(line, sizeof line, f) != NULL) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *colon = strchr(line, ':');
                if (colon != NULL) {
                    snprintf(e->cpu_model, sizeof e->cpu_model, "%s",
                             colon + 1 + (colon[1] == ' '));
                    e->cpu_model[strcspn(e->cpu_model, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(f);
    }
    e->cores = sysconf(_SC_NPROCESSORS_ONLN);
    e->container = access("/.dockerenv", F_OK) == 0 || access("/run/.containerenv", F_OK) == 0 ||
                   getenv("container") != NULL;
}

static void print_server(const struct results *r, FILE *f)
{
    const struct results_server *s = &r->server;
    fputs("  \"server\": {\n    \"host\": ", f);
    json_write_string(f, r->host);
    fprintf(f, ", \"port\": %u,\n    \"name\": ", r->port);
    json_write_string(f, s->known ? s->name : NULL);
    fputs(",\n    \"machine_type\": ", f);
    json_write_string(f, s->known ? s->machine_type : NULL);
    fputs(",\n    \"afp_versions\": ", f);
    json_string_list(f, s->known, s->versions[0], sizeof s->versions[0], s->n_versions);
    fputs(",\n    \"uams\": ", f);
    json_string_list(f, s->known, s->uams[0], sizeof s->uams[0], s->n_uams);
    fputs(",\n    \"afp_version\": ", f);
    json_write_string(f, s->afp_version[0] ? s->afp_version : NULL);
    fputs(",\n    \"quantum\": ", f);
    json_u64(f, s->quantum ? s->quantum : RESULTS_UNKNOWN);
    fputs(",\n    \"volume\": ", f);
    json_write_string(f, r->volume);
    fputs(",\n    \"afp_conf_sha256\": ", f);
    json_write_string(f, s->afp_conf_sha256[0] ? s->afp_conf_sha256 : NULL);
    fputs(",\n    \"afp_conf_settings\": ", f);
    json_write_string(f, s->afp_conf_settings[0] ? s->afp_conf_settings : NULL);
    fputs("\n  },\n", f);
}

static void print_environment(FILE *f)
{
    struct results_env e;
    results_probe_env(&e);
    fputs("  \"environment\": {\n    \"hostname\": ", f);
    json_write_string(f, e.hostname);
    fputs(", \"kernel\": ", f);
    json_write_string(f, e.kernel);
    fputs(",\n    \"cpu_model\": ", f);
    json_write_string(f, e.cpu_model[0] ? e.cpu_model : NULL);
    fprintf(f, ", \"cores\": %ld, \"container\": %s\n  },\n", e.cores,
            e.container ? "true" : "false");
}

static void print_config(const struct results *r, FILE *f)
{
    fprintf(f, "  \"config\": {\n    \"iterations\": %u,\n    \"tests\": [", r->iterations);
    int first = 1;
    for (int t = 0; t < 32; t++) {
        if (r->lantest_tests & (1u << t)) {
            fprintf(f, "%s%d", first ? "" : ",", t + 1);
            first = 0;
        }
    }
    fputs("],\n    \"bigfile_bytes\": ", f);
    json_u64(f, r->bigfile_bytes);
    fprintf(f, ",\n    \"window\": %u", r->window);
    if (strcmp(r->suite, "speedtest") == 0)
        fprintf(f,
                ",\n    \"warmup\": %u, \"request_bytes\": %u, \"local_mode\": %s, "
                "\"direct_io\": %s",
                r->warmup, r->request_bytes, r->local_mode ? "true" : "false",
                r->direct_io ? "true" : "false");
    fputs("\n  },\n", f);
}

static void print_io(const struct results *r, FILE *f)
{
    const struct iomon *m = r->io;
    fputs("  \"io_monitoring\": {\n", f);
    if (m == NULL) {
        fputs("    \"enabled\": false, \"rule\": null, \"proc_root\": null,\n"
              "    \"afpd_pid\": null, \"cnid_dbd_pid\": null, \"cnid_dbd_rule\": null,\n"
              "    \"reason\": ",
              f);
        json_write_string(f, r->io_reason ? r->io_reason : "not started");
    } else {
        fprintf(f, "    \"enabled\": %s, \"rule\": ", m->enabled ? "true" : "false");
        json_write_string(f, m->rule);
        fputs(", \"proc_root\": ", f);
        json_write_string(f, m->proc_root);
        fputs(",\n    \"afpd_pid\": ", f);
        json_u64(f, m->afpd_pid > 0 ? (uint64_t)m->afpd_pid : RESULTS_UNKNOWN);
        fputs(", \"cnid_dbd_pid\": ", f);
        json_u64(f, m->cnid_pid > 0 ? (uint64_t)m->cnid_pid : RESULTS_UNKNOWN);
        fputs(", \"cnid_dbd_rule\": ", f);
        json_write_string(f, m->cnid_pid > 0 ? m->cnid_rule : NULL);
        fputs(",\n    \"reason\": ", f);
        json_write_string(f, m->reason[0] ? m->reason : NULL);
        fprintf(f, ",\n    \"syscalls\": {\"counted\": %s, \"method\": ",
                m->sys_counted ? "true" : "false");
        json_write_string(f, m->sys_counted ? "ebpf-sys_enter" : NULL);
        fprintf(f, ", \"cnid_dbd\": %s, \"reason\": ", m->sys_cnid ? "true" : "false");
        json_write_string(f, m->sys_counted || !m->sys.reason[0] ? NULL : m->sys.reason);
        fputs(",\n      \"by_descriptor\": {\"counted\": ", f);
        fputs(m->sys_counted && m->sys.fdio_on ? "true" : "false", f);
        fputs(", \"reason\": ", f);
        json_write_string(f, !m->sys_counted || m->sys.fdio_on ? NULL : m->sys.fdio_reason);
        fputs("}, \"share_fs\": ", f);
        json_write_string(f, m->share_fs[0] ? m->share_fs : NULL);
        fputc('}', f);
    }
    fputs("\n  },\n", f);
}

void results_print_io_status(const struct results *r, FILE *out)
{
    const struct iomon *m = r->io;
    if (m == NULL || !m->enabled) {
        fprintf(out, "IO monitoring off: %s\n",
                m ? m->reason : (r->io_reason ? r->io_reason : "not started"));
        return;
    }
    fprintf(out, "IO monitoring: afpd %d (found by the %s rule), ", m->afpd_pid, m->rule);
    if (m->cnid_pid)
        fprintf(out, "cnid_dbd %d (%s rule)\n", m->cnid_pid, m->cnid_rule);
    else
        fputs("cnid_dbd not found\n", out);
}

/* "cpu_pin": the run on one CPU (--cpu, pin.h), or null when not asked. */
static void print_cpu_pin(const struct results *r, FILE *f)
{
    fputs("  \"cpu_pin\": ", f);
    if (r->cpu_asked == PIN_OFF) {
        fputs("null,\n", f);
        return;
    }
    fputs("{\"asked\": ", f);
    if (r->cpu_asked == PIN_AUTO)
        fputs("\"auto\"", f);
    else
        fprintf(f, "%d", r->cpu_asked);
    fputs(", \"cpu\": ", f);
    if (r->cpu_pinned >= 0)
        fprintf(f, "%d", r->cpu_pinned);
    else
        fputs("null", f);
    fputs(", \"note\": ", f);
    json_write_string(f, r->cpu_note[0] ? r->cpu_note : NULL);
    fputs("},\n", f);
}

static void print_cpu(const struct results *r, FILE *f)
{
    if (!r->cpu_known) {
        fputs("  \"client_cpu\": null,\n", f);
        return;
    }
    fprintf(f, "  \"client_cpu\": {\n    \"user_us\": %llu, \"sys_us\": %llu, \"afp_ops\": %llu,\n",
            (unsigned long long)r->cpu_user_us, (unsigned long long)r->cpu_sys_us,
            (unsigned long long)r->cpu_afp_ops);
    if (r->cpu_afp_ops > 0)
        fprintf(f, "    \"us_per_op\": %.3f\n  },\n",
                (double)(r->cpu_user_us + r->cpu_sys_us) / (double)r->cpu_afp_ops);
    else
        fputs("    \"us_per_op\": null\n  },\n", f);
}

/* A test's mean afpd instructions per measured session (0 when none). */
static uint64_t instr_per_session(const struct result_test *t)
{
    uint64_t sum = 0, n = 0;
    for (size_t i = 0; i < t->nsamples; i++)
        if (t->samples[i].instr_known) {
            sum += t->samples[i].afpd_instr;
            n++;
        }
    return n ? sum / n : 0;
}

/* {"newfstatat": 80415, ...}: a timed region's system calls by name (the
 * architecture's names; a number this build cannot name as "syscall_N",
 * the shared last counter as "other"), or null. */
/* A sample's reads and writes by descriptor kind, as fields of their own
 * ("afpd_file_r", "cnid_sock_w", ...; docs/results-format.md). */
static void print_fdio(FILE *f, const struct result_sample *s)
{
    static const char dir[2] = {'r', 'w'};
    const char *proc[2] = {"afpd", "cnid"};
    const uint64_t *v[2] = {s->afpd_fdio, s->cnid_fdio};
    for (int p = 0; p < 2; p++) {
        fputs(",\n          ", f);
        for (int k = 0; k < SYSMON_FD_KINDS; k++)
            for (int d = 0; d < 2; d++) {
                fprintf(f, "%s\"%s_%s_%c\": ", k + d > 0 ? ", " : "", proc[p],
                        sysmon_fd_kind_name(k), dir[d]);
                json_u64(f, p == 1 && !s->cnid_sys_known ? RESULTS_UNKNOWN : v[p][k * 2 + d]);
            }
    }
}

static void print_syscalls(FILE *f, const struct sysmon_delta *d)
{
    if (d == NULL) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    for (unsigned i = 0; i < d->n; i++) {
        const char *name = sysmon_call_name(d->nr[i]);
        char unnamed[24];
        if (d->nr[i] == SYSMON_CALLS - 1)
            name = "other";
        else if (name == NULL)
            snprintf(unnamed, sizeof unnamed, "syscall_%u", d->nr[i]);
        fputs(i ? ", " : "", f);
        json_write_string(f, name != NULL ? name : unnamed);
        fprintf(f, ": %llu", (unsigned long long)d->count[i]);
    }
    fputc('}', f);
}

/* {"settled": N, ..., "list": [{"command": "FPGetFileDirParms", "code": 34,
 * "calls": N, "afpd_sys": {...}, "cnid_sys": {...} | null}, ...]} */
static void print_commands(const struct attribution_result *a, FILE *f)
{
    fprintf(f,
            "{ \"pass\": \"untimed\", \"settled\": %llu, \"unsettled\": %llu, \"overflow\": %llu,",
            (unsigned long long)a->settled, (unsigned long long)a->unsettled,
            (unsigned long long)a->overflow);
    fputs(" \"list\": [", f);
    for (unsigned i = 0; i < a->n; i++) {
        const struct attribution_cmd *c = &a->cmd[i];
        const char *name =
            c->code == ATTRIBUTION_MIXED ? "(pipelined, several kinds)" : afp_command_name(c->code);
        char unnamed[24];
        if (name == NULL)
            snprintf(unnamed, sizeof unnamed, "AFP command %u", c->code);
        fputs(i ? ",\n          { \"command\": " : "\n          { \"command\": ", f);
        json_write_string(f, name != NULL ? name : unnamed);
        fprintf(f, ", \"code\": %u, \"calls\": %llu,\n            \"afpd_sys\": ", c->code,
                (unsigned long long)c->calls);
        print_syscalls(f, &c->afpd);
        fputs(",\n            \"cnid_sys\": ", f);
        print_syscalls(f, a->cnid ? &c->cnid : NULL);
        fputs(" }", f);
    }
    fputs(a->n ? "\n        ] }" : "] }", f);
}

static void print_test(const struct result_test *t, FILE *f)
{
    fputs("    {\n      \"key\": ", f);
    json_write_string(f, t->key);
    fputs(", \"suite\": ", f);
    json_write_string(f, t->suite);
    fputs(", \"id\": ", f);
    json_u64(f, t->id > 0 ? (uint64_t)t->id : RESULTS_UNKNOWN);
    fputs(",\n      \"name\": ", f);
    json_write_string(f, t->name);
    fputs(",\n      \"op\": ", f);
    json_write_string(f, t->op);
    fputs(", \"size_bytes\": ", f);
    json_u64(f, t->size_bytes);
    fputs(",\n      \"afp_ops\": ", f);
    json_u64(f, t->afp_ops);
    fputs(", \"afp_ops_nominal\": ", f);
    json_u64(f, t->afp_ops_nominal);
    fprintf(f, ",\n      \"status\": \"%s\", \"error\": ", t->failed ? "error" : "ok");
    json_write_string(f, t->failed ? t->error : NULL);
    fputs(",\n      \"samples\": [", f);
    for (size_t i = 0; i < t->nsamples; i++) {
        const struct result_sample *s = &t->samples[i];
        fprintf(f, "%s\n        { \"iteration\": %u, \"us\": %llu, \"afpd_r\": ", i ? "," : "",
                s->iteration, (unsigned long long)s->us);
        json_u64(f, s->afpd_r);
        fputs(", \"afpd_w\": ", f);
        json_u64(f, s->afpd_w);
        fputs(", \"cnid_r\": ", f);
        json_u64(f, s->cnid_r);
        fputs(", \"cnid_w\": ", f);
        json_u64(f, s->cnid_w);
        fputs(",\n          \"afpd_rchar\": ", f);
        json_u64(f, s->afpd_rchar);
        fputs(", \"afpd_wchar\": ", f);
        json_u64(f, s->afpd_wchar);
        fputs(", \"afpd_cpu_us\": ", f);
        json_u64(f, s->afpd_cpu_us);
        fputs(", \"cnid_cpu_us\": ", f);
        json_u64(f, s->cnid_cpu_us);
        fputs(", \"afpd_wait_us\": ", f);
        json_u64(f, s->afpd_wait_us);
        fputs(", \"afpd_hwm_kb\": ", f);
        json_u64(f, s->afpd_hwm_kb);
        fputs(", \"cnid_hwm_kb\": ", f);
        json_u64(f, s->cnid_hwm_kb);
        fputs(",\n          \"afpd_sys\": ", f);
        print_syscalls(f, s->sys_known ? &s->afpd_sys : NULL);
        fputs(",\n          \"cnid_sys\": ", f);
        print_syscalls(f, s->cnid_sys_known ? &s->cnid_sys : NULL);
        if (s->fdio_known)
            print_fdio(f, s);
        if (s->order != 0)
            fprintf(f, ", \"order\": %u", s->order);
        fprintf(f, ", \"bytes\": %llu, \"afp_ops\": %llu", (unsigned long long)s->bytes,
                (unsigned long long)s->afp_ops);
        if (t->instr) { /* instrumented runs only */
            fputs(", \"afpd_instr\": ", f);
            json_u64(f, s->instr_known ? s->afpd_instr : RESULTS_UNKNOWN);
            fputs(", \"instr_afp_ops\": ", f);
            json_u64(f, s->instr_known ? s->instr_afp_ops : RESULTS_UNKNOWN);
        }
        fputs(" }", f);
    }
    fputs(t->nsamples ? "\n      ]" : "]", f);
    if (t->instr) {
        fputs(",\n      \"instr_functions\": ", f);
        instr_print_functions(f, t->instr_funcs, t->instr_sessions, instr_per_session(t));
    }
    if (t->commands != NULL) {
        fputs(",\n      \"commands\": ", f);
        print_commands(t->commands, f);
    }
    fputs("\n    }", f);
}

void results_print_json(const struct results *r, FILE *f)
{
    fputs("{\n  \"schema\": \"" RESULTS_SCHEMA "\",\n", f);
    fputs("  \"tool\": { \"name\": \"afpbench\", \"version\": \"" AFPBENCH_VERSION "\" },\n", f);
    fputs("  \"suite\": ", f);
    json_write_string(f, r->suite);
    fputs(", \"suite_version\": ", f);
    json_write_string(f, r->suite_version);
    fprintf(f, ",\n  \"status\": \"%s\",\n  \"error\": ", r->failed ? "error" : "ok");
    if (r->failed) {
        fprintf(f, "{ \"exit_code\": %d, \"message\": ", r->exit_code);
        json_write_string(f, r->error);
        fputs(" }", f);
    } else {
        fputs("null", f);
    }
    fputs(",\n  \"started_at\": ", f);
    json_write_string(f, r->started_at);
    fputs(", \"finished_at\": ", f);
    json_write_string(f, r->finished_at[0] ? r->finished_at : NULL);
    fputs(",\n  \"argv\": [", f);
    for (size_t i = 0; r->argv && r->argv[i]; i++) {
        fputs(i ? ", " : "", f);
        json_write_string(f, r->argv[i]);
    }
    fputs("],\n", f);
    print_server(r, f);
    print_environment(f);
    print_config(r, f);
    print_io(r, f);
    print_cpu(r, f);
    print_cpu_pin(r, f);
    if (r->instr != NULL) {
        instr_run_print_json(r->instr, f);
        fputs(",\n", f);
    }
    fputs("  \"dircache_stats\": ", f);
    json_write_string(f, r->dircache_stats);
    if (r->by_command) {
        fputs(",\n  \"by_command\": { \"note\": ", f);
        json_write_string(f, r->commands_note[0] ? r->commands_note : NULL);
        fputs(" }", f);
    }
    if (r->tcp_metrics_json != NULL)
        fprintf(f, ",\n  \"tcp_metrics\": %s", r->tcp_metrics_json);
    if (r->load_json != NULL)
        fprintf(f, ",\n  \"load\": %s", r->load_json);
    if (r->spotlight_json != NULL)
        fprintf(f, ",\n  \"spotlight\": %s", r->spotlight_json);
    fputs(",\n  \"tests\": [", f);
    for (size_t i = 0; i < r->ntests; i++) {
        fputs(i ? ",\n" : "\n", f);
        print_test(&r->tests[i], f);
    }
    fputs(r->ntests ? "\n  ]" : "]", f);
    if (r->base != NULL) {
        /* A/B: the base server's run, the same document one level down.
         * Samples of both sides with the same test key and iteration are a
         * pair; "order" says which side ran first. */
        fputs(",\n  \"pairing\": { \"scheme\": \"abba\", \"unit\": \"test\", "
              "\"pair_key\": [\"key\", \"iteration\"] },\n  \"base\": ",
              f);
        results_print_json(r->base, f);
    }
    fputs("\n}\n", f);
}

int results_write_json(const struct results *r, const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(tmp, "we");
    if (f == NULL)
        return -1;
    results_print_json(r, f);
    int failed = ferror(f);
    if (fclose(f) != 0 || failed) {
        int saved = errno ? errno : EIO;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    if (rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
        return -1;
    }
    return 0;
}

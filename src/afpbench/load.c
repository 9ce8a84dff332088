/* afpbench load: many AFP sessions at once against one server (or, in A/B,
 * two servers in turn), swept over session counts.
 *
 * Once per run: a testbed on the volume (--dirs subdirectories a, b, ...
 * of --files files each, sizes from 0 to --max-size, the offset pattern in
 * every file). Then per session count N: N sessions log in (load_runner.h),
 * run the request mix for --warmup seconds, then for -T measured seconds,
 * and log out. Per step: requests/s, MB/s, latency percentiles, errors and
 * timeouts per session, fairness, and the server's processes seen with
 * their IO and CPU per request (every afpd holding one of our connections,
 * plus the volume's cnid_dbd; iomon.h). The testbed is removed at the end.
 * The "load" object of the results (docs/results-format.md). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "benchconn.h"
#include "clock.h"
#include "commands.h"
#include "deadline.h"
#include "iomon_find.h"
#include "iomon_group.h"
#include "load_runner.h"
#include "pattern.h"
#include "results.h"
#include "session.h"
#include "suite.h"
#include "xfer.h"

#define LOAD_SUITE_VERSION "load/1"

/* One side's state; label, name, suffix, conn and res are the driver's
 * (suite.h). */
struct side {
    const char *label; /* "" or "[head] " / "[base] " */
    const char *name;  /* "head" / "base" */
    const char *suffix;
    const struct cli_conn *conn;
    struct results *res;
    struct iomon io;
    struct srvfiles srv;
    struct load_testbed tb;
    char root[64];
    int have_tb;
    uint64_t tb_bytes, tb_build_us;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    FILE *steps; /* the steps' JSON, joined into the load object */
    char *steps_buf;
    size_t steps_len;
    unsigned nsteps;
    char csv[64][256]; /* one CSV row per step */
    unsigned ncsv;
};

/* ---- set-up ---- */

static int resolve(struct side *sd)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    char port[8];
    snprintf(port, sizeof port, "%u", sd->conn->port);
    int rc = getaddrinfo(sd->conn->host, port, &hints, &ai);
    if (rc != 0 || ai == NULL || ai->ai_addrlen > sizeof sd->addr) {
        results_fail(sd->res, EXIT_NETWORK, "cannot resolve %s: %s", sd->conn->host,
                     rc ? gai_strerror(rc) : "no address");
        if (ai)
            freeaddrinfo(ai);
        return EXIT_NETWORK;
    }
    memcpy(&sd->addr, ai->ai_addr, ai->ai_addrlen);
    sd->addrlen = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

static uint64_t file_size(const struct load_opts *o, unsigned i)
{
    unsigned shift = o->files - 1 - i;
    return i == 0 ? 0 : shift >= 63 ? 0 : o->max_size >> shift;
}

/* The testbed: root/a..z/f0..fN-1 and root/scratch, on one blocking session. */
static int build_testbed(struct side *sd, const struct load_opts *o, struct afp_session *s,
                         uint16_t vol)
{
    struct load_testbed *tb = &sd->tb;
    uint64_t start = clock_now_us();
    uint32_t root_did = 0;
    char name[32];
    snprintf(sd->root, sizeof sd->root, "afpbench-load-%ld%s", (long)getpid(), sd->suffix);
    int rc = afp_createdir(s, vol, AFP_DID_ROOT, sd->root, &root_did);
    if (rc == AFPERR_EXIST) {
        benchconn_delete_tree(s, vol, AFP_DID_ROOT, sd->root);
        rc = afp_createdir(s, vol, AFP_DID_ROOT, sd->root, &root_did);
    }
    if (rc != 0)
        goto fail_dir;
    sd->have_tb = 1;
    tb->ndirs = o->dirs;
    tb->files = o->files;
    for (unsigned f = 0; f < o->files; f++)
        tb->sizes[f] = file_size(o, f);
    uint32_t chunk = afp_session_write_size(s);
    struct pattern_buf pb;
    if (pattern_buf_init(&pb, chunk, 0) != 0)
        return results_fail_test(sd->res, NULL, EXIT_ALLOC, "out of memory"), EXIT_ALLOC;
    for (unsigned d = 0; d < o->dirs && rc == 0; d++) {
        snprintf(name, sizeof name, "%c", 'a' + d);
        if ((rc = afp_createdir(s, vol, root_did, name, &tb->dir_ids[d])) != 0)
            break;
        for (unsigned f = 0; f < o->files && rc == 0; f++) {
            afp_fork_t fork;
            struct xfer_fault fault;
            snprintf(name, sizeof name, "f%u", f);
            if ((rc = afp_createfile(s, vol, tb->dir_ids[d], name, true)) != 0 ||
                (rc = afp_openfork(s, vol, tb->dir_ids[d], name, AFP_FORK_DATA, 0,
                                   AFP_OPEN_READ | AFP_OPEN_WRITE, &fork, NULL)) != 0)
                break;
            pb.seed = d * o->files + f + 1;
            if (tb->sizes[f] > 0)
                rc = xfer_write(s, fork, tb->sizes[f], chunk, 4, &pb, &fault);
            int crc = afp_closefork(s, fork);
            if (rc == 0)
                rc = crc;
            sd->tb_bytes += tb->sizes[f];
        }
    }
    pattern_buf_free(&pb);
    if (rc == 0)
        rc = afp_createdir(s, vol, root_did, "scratch", &tb->scratch_did);
    if (rc != 0) {
    fail_dir:
        results_fail(sd->res, afpb_is_local_error(rc) ? EXIT_NETWORK : EXIT_FILEDIR,
                     "building the testbed %s: %s %s", sd->root, afp_strerror(rc),
                     afp_session_error(s));
        return sd->res->exit_code;
    }
    sd->tb_build_us = clock_now_us() - start;
    fprintf(stderr, "%sTestbed %s: %u directories x %u files, %llu bytes, built in %.1f s\n",
            sd->label, sd->root, o->dirs, o->files, (unsigned long long)sd->tb_bytes,
            (double)sd->tb_build_us / 1e6);
    return 0;
}

/* The load run: its options and both sides, for the hooks. */
struct load_suite {
    struct load_opts opts[2];  /* the head's (suite_main: the base's a copy) */
    const struct load_opts *o; /* the head's: both sides run them */
    struct side sides[2];
    char *load_json[2];
};

/* One side's state and results, before it connects. */
static void side_init(struct suite *s, struct suite_side *ss)
{
    struct load_suite *l = s->arg;
    struct side *sd = &l->sides[ss->index];
    memset(sd, 0, sizeof *sd);
    ss->state = sd;
    sd->label = ss->label;
    sd->name = ss->name;
    sd->suffix = ss->suffix;
    sd->conn = ss->conn;
    sd->res = &ss->res;
    sd->res->host = sd->conn->host;
    sd->res->port = sd->conn->port;
    sd->res->volume = sd->conn->volume;
    sd->res->iterations = 1;
}

/* Connect, build the testbed, log out. */
static int side_open(struct suite *s, struct suite_side *ss)
{
    struct load_suite *l = s->arg;
    struct side *sd = ss->state;
    sd->steps = open_memstream(&sd->steps_buf, &sd->steps_len);
    if (sd->steps == NULL) {
        results_fail(sd->res, EXIT_ALLOC, "out of memory");
        return EXIT_ALLOC;
    }
    fprintf(stderr, "%sConnecting to %s port %u as %s, volume '%s'\n", sd->label, sd->conn->host,
            sd->conn->port, sd->conn->user, sd->conn->volume);
    int rc = resolve(sd);
    if (rc != 0)
        return rc;
    struct afp_session *as = NULL;
    uint16_t vol;
    rc = benchconn_open(sd->conn, sd->res, &as, &vol, &sd->io, &sd->srv);
    if (rc == 0)
        rc = build_testbed(sd, l->o, as, vol);
    /* The set-up session ends here: the steps' sessions are all new. */
    benchconn_close(as, rc == EXIT_NETWORK, sd->res);
    return rc;
}

static void remove_testbed(struct side *sd)
{
    if (!sd->have_tb)
        return;
    struct afp_session *s = afp_session_new();
    struct afp_volparms vp;
    int rc = s ? afp_session_connect(s, sd->conn->host, sd->conn->port) : AFPB_ENOMEM;
    if (rc == 0)
        rc = afp_session_login(s, sd->conn->afp_version, sd->conn->user, sd->conn->password);
    if (rc == 0)
        rc = afp_openvol(s, sd->conn->volume, AFP_VOL_ATTR, &vp);
    if (rc == 0)
        rc = benchconn_delete_tree(s, vp.volid, AFP_DID_ROOT, sd->root);
    if (rc != 0)
        fprintf(stderr, "%sTestbed %s not removed: %s\n", sd->label, sd->root, afp_strerror(rc));
    if (s) {
        if (rc == 0 || !afpb_is_local_error(rc))
            afp_logout(s);
        afp_session_free(s);
    }
}

/* ---- cold cache ---- */

/* Drop the page cache of this kernel when the server is on it (its afpd is
 * visible under the proc root). Returns "dropped", or why not (*ok = 0). */
static const char *drop_caches(const struct side *sd, int *ok, char *buf, size_t len)
{
    *ok = 0;
    if (!sd->io.enabled) {
        snprintf(buf, len,
                 "not dropped: the server's afpd is not visible under %s (%s), so its host's "
                 "page cache is out of reach",
                 sd->conn->proc_root, sd->io.reason[0] ? sd->io.reason : "IO monitoring off");
        return buf;
    }
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "1", 1) != 1) {
        snprintf(buf, len,
                 "not dropped: /proc/sys/vm/drop_caches: %s (needs root on the server's kernel, "
                 "outside a read-only /proc/sys)",
                 strerror(errno));
        if (fd >= 0)
            close(fd);
        return buf;
    }
    close(fd);
    *ok = 1;
    return "dropped";
}

/* ---- one step ---- */

static void json_hist(FILE *f, const struct hist *h)
{
    if (h->count == 0) {
        fputs("null", f);
        return;
    }
    fprintf(f,
            "{\"count\": %llu, \"min\": %llu, \"p50\": %llu, \"p90\": %llu, \"p99\": %llu, "
            "\"p999\": %llu, \"max\": %llu, \"mean\": %.1f}",
            (unsigned long long)h->count, (unsigned long long)h->min,
            (unsigned long long)hist_percentile(h, 50), (unsigned long long)hist_percentile(h, 90),
            (unsigned long long)hist_percentile(h, 99),
            (unsigned long long)hist_percentile(h, 99.9), (unsigned long long)h->max, hist_mean(h));
}

/* A number with `decimals` decimals, or null when not known. */
static void json_num_or_null(FILE *f, int known, double v, int decimals)
{
    if (known)
        fprintf(f, "%.*f", decimals, v);
    else
        fputs("null", f);
}

/* Sleep until the monotonic time `until` (µs), in slices, so a deadline or
 * a signal is seen. 0, or -1 when the run must stop. */
static int sleep_until(uint64_t until)
{
    for (;;) {
        if (deadline_run_expired())
            return -1;
        uint64_t now = clock_now_us();
        if (now >= until)
            return 0;
        uint64_t left = until - now;
        if (left > 20000)
            left = 20000;
        struct timespec ts = {0, (long)left * 1000};
        nanosleep(&ts, NULL);
    }
}

struct step_mon {
    int afpd_seen, mapped, cnid_pid;
    const char *cnid_rule;
    char note[200];
    struct iomon_group afpd, cnid;
    int have_groups;
    struct iomon_group_delta da, dc;
    uint64_t client_user0, client_sys0, client_user1, client_sys1;
};

static void step_map(struct side *sd, struct load_runner *e, unsigned n, int *pids,
                     struct step_mon *m)
{
    int *fds = calloc(n, sizeof *fds);
    if (fds == NULL || pids == NULL) {
        snprintf(m->note, sizeof m->note, "out of memory");
        free(fds);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        fds[i] = load_runner_session_fd(e, i);
    m->mapped = iomon_map_sessions(sd->conn->proc_root, fds, (int)n, pids, m->note, sizeof m->note);
    free(fds);
    if (m->mapped <= 0) {
        m->mapped = 0;
        return;
    }
    int first = 0;
    for (unsigned i = 0; i < n; i++) {
        if (pids[i] <= 0)
            continue;
        if (!first)
            first = pids[i];
        int dup = 0;
        for (unsigned k = 0; k < i && !dup; k++)
            dup = pids[k] == pids[i];
        m->afpd_seen += !dup;
    }
    m->cnid_pid = iomon_find_cnid(sd->conn->proc_root, first, sd->conn->user, &m->cnid_rule);
    if (iomon_group_open(&m->afpd, sd->conn->proc_root, pids, (int)n) == 0 &&
        iomon_group_open(&m->cnid, sd->conn->proc_root, &m->cnid_pid, m->cnid_pid > 0) == 0)
        m->have_groups = 1;
}

/* One step's figures, summed over its sessions and derived once, for the
 * JSON, the human line and the CSV row. */
struct step_figures {
    double secs, rps, mbps;
    double req; /* requests, as the divisor of the per-request figures */
    uint64_t errors, afp, valid, timeouts, dropped, login, proto;
    uint64_t minreq, maxreq; /* fairness: the fewest and most requests of a session */
    int mon;                 /* the server's processes were read at both ends */
    uint64_t server_cpu_us, client_us;
    int run_share_known, machine_share_known;
    double run_share,
        machine_share; /* the client's CPU: of ours and the server's, of the machine */
};

static void step_figures(struct step_figures *x, const struct load_result *r,
                         const struct step_mon *m)
{
    memset(x, 0, sizeof *x);
    x->secs = (double)r->window_us / 1e6;
    x->minreq = UINT64_MAX;
    for (unsigned i = 0; r->sess && i < r->sessions; i++) {
        const struct load_sess_result *s = &r->sess[i];
        x->afp += s->afp_errors;
        x->valid += s->validation;
        x->timeouts += s->timeouts;
        x->dropped += s->dropped;
        x->login += s->login_failed;
        x->proto += s->protocol;
        if (s->requests < x->minreq)
            x->minreq = s->requests;
        if (s->requests > x->maxreq)
            x->maxreq = s->requests;
    }
    x->errors = x->afp + x->valid + x->timeouts + x->dropped + x->login + x->proto;
    if (r->sessions == 0)
        x->minreq = 0;
    x->rps = x->secs > 0 ? (double)r->requests / x->secs : 0;
    x->mbps = x->secs > 0 ? (double)r->bytes / x->secs / 1048576.0 : 0;
    x->mon = m->have_groups && m->da.sampled > 0;
    x->server_cpu_us = (m->da.cpu_ns + m->dc.cpu_ns) / 1000;
    x->client_us = (m->client_user1 - m->client_user0) + (m->client_sys1 - m->client_sys0);
    x->req = (double)r->requests;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    x->run_share_known = x->mon && x->client_us + x->server_cpu_us > 0;
    x->run_share = 100.0 * (double)x->client_us / (double)(x->client_us + x->server_cpu_us);
    x->machine_share_known = cores > 0 && r->window_us > 0;
    x->machine_share = 100.0 * (double)x->client_us / ((double)r->window_us * (double)cores);
}

/* The step's throughput and latency: sessions to per_second. */
static void json_step_throughput(FILE *f, const struct load_opts *o, const struct load_result *r,
                                 const struct step_figures *x)
{
    fprintf(f, "        \"sessions\": %u, \"logged_in\": %u, \"seconds\": %.3f,\n", r->sessions,
            r->logged_in, x->secs);
    fprintf(f, "        \"status\": \"%s\",\n", r->stopped ? "stopped" : "ok");
    fprintf(f,
            "        \"requests\": %llu, \"requests_per_s\": %.3f, \"afp_ops\": %llu, "
            "\"bytes\": %llu, \"mb_per_s\": %.3f,\n",
            (unsigned long long)r->requests, x->rps, (unsigned long long)r->afp_ops,
            (unsigned long long)r->bytes, x->mbps);
    fprintf(f, "        \"latency_us\": ");
    json_hist(f, &r->lat);
    fprintf(f, ",\n        \"latency_uncorrected_us\": ");
    if (o->rate > 0)
        json_hist(f, &r->lat_raw);
    else
        fputs("null", f);
    fprintf(f, ",\n        \"coordinated_omission\": \"%s\",\n",
            o->rate > 0 ? "corrected: latency from each request's intended start"
                        : "not corrected: closed loop (use --rate)");
    fprintf(f, "        \"ops\": {");
    int first = 1;
    for (int op = 0; op < LOAD_NUM_OPS; op++) {
        if (o->weights[op] == 0 && !(op == LOAD_TOUCH && o->writers > 0))
            continue;
        fprintf(f, "%s\n          \"%s\": {\"requests\": %llu, \"latency_us\": ", first ? "" : ",",
                load_op_name(op), (unsigned long long)r->op_requests[op]);
        json_hist(f, &r->op_lat[op]);
        fputs("}", f);
        first = 0;
    }
    fprintf(f, "\n        },\n        \"per_second\": [");
    for (unsigned k = 0; k < r->nseconds; k++)
        fprintf(f, "%s{\"requests\": %llu, \"p99_us\": %llu}", k ? ", " : "",
                (unsigned long long)r->sec_requests[k], (unsigned long long)r->sec_p99[k]);
    fputs("],\n", f);
}

/* The step's errors by kind, its fairness and the page cache. */
static void json_step_errors(FILE *f, const struct load_opts *o, const struct step_figures *x,
                             const char *cold, int cold_ok)
{
    fprintf(f,
            "        \"errors\": {\"total\": %llu, \"afp\": %llu, \"validation\": %llu, "
            "\"timeouts\": %llu, \"dropped\": %llu, \"login\": %llu, \"protocol\": %llu},\n",
            (unsigned long long)x->errors, (unsigned long long)x->afp, (unsigned long long)x->valid,
            (unsigned long long)x->timeouts, (unsigned long long)x->dropped,
            (unsigned long long)x->login, (unsigned long long)x->proto);
    fprintf(f,
            "        \"fairness\": {\"min_requests\": %llu, \"max_requests\": %llu, "
            "\"min_over_max\": ",
            (unsigned long long)x->minreq, (unsigned long long)x->maxreq);
    json_num_or_null(f, x->maxreq > 0, x->maxreq ? (double)x->minreq / (double)x->maxreq : 0, 4);
    fprintf(f, "},\n        \"cache\": {\"cold\": %s, \"dropped\": %s, \"note\": ",
            o->cold ? "true" : "false", cold_ok ? "true" : "false");
    json_write_string(f, o->cold ? cold : NULL);
    fputs("},\n", f);
}

/* The server's processes: afpd's and cnid_dbd's IO and CPU, in all and per request. */
static void json_step_server(FILE *f, const struct step_mon *m, const struct step_figures *x)
{
    int mon = x->mon;
    double req = x->req;
    fprintf(f,
            "        \"server\": {\"afpd_seen\": %d, \"afpd_sampled\": %d, \"afpd_lost\": %d, "
            "\"cnid_dbd_pid\": ",
            m->afpd_seen, mon ? m->da.sampled : 0, mon ? m->da.lost : 0);
    json_num_or_null(f, m->cnid_pid > 0, m->cnid_pid, 0);
    fputs(", \"note\": ", f);
    json_write_string(f, m->note[0] ? m->note : NULL);
    fputs(",\n          \"afpd_r\": ", f);
    json_num_or_null(f, mon, (double)m->da.r, 0);
    fputs(", \"afpd_w\": ", f);
    json_num_or_null(f, mon, (double)m->da.w, 0);
    fputs(", \"afpd_rchar\": ", f);
    json_num_or_null(f, mon, (double)m->da.rchar, 0);
    fputs(", \"afpd_wchar\": ", f);
    json_num_or_null(f, mon, (double)m->da.wchar, 0);
    fputs(", \"cnid_r\": ", f);
    json_num_or_null(f, mon && m->dc.sampled, (double)m->dc.r, 0);
    fputs(", \"cnid_w\": ", f);
    json_num_or_null(f, mon && m->dc.sampled, (double)m->dc.w, 0);
    fputs(",\n          \"afpd_cpu_us\": ", f);
    json_num_or_null(f, mon, (double)(m->da.cpu_ns / 1000), 0);
    fputs(", \"cnid_cpu_us\": ", f);
    json_num_or_null(f, mon && m->dc.sampled, (double)(m->dc.cpu_ns / 1000), 0);
    /* a session's afpd from its login: its peak memory is the session's */
    int hwm = mon && m->da.hwm_n > 0;
    fputs(",\n          \"afpd_hwm_kb_max\": ", f);
    json_num_or_null(f, hwm, (double)m->da.hwm_kb_max, 0);
    fputs(", \"afpd_hwm_kb_mean\": ", f);
    json_num_or_null(f, hwm, hwm ? (double)m->da.hwm_kb_sum / m->da.hwm_n : 0, 1);
    fputs(", \"cnid_hwm_kb\": ", f);
    json_num_or_null(f, mon && m->dc.hwm_n > 0, (double)m->dc.hwm_kb_max, 0);
    fputs(",\n          \"per_request\": {\"afpd_r\": ", f);
    json_num_or_null(f, mon && req > 0, (double)m->da.r / req, 4);
    fputs(", \"afpd_w\": ", f);
    json_num_or_null(f, mon && req > 0, (double)m->da.w / req, 4);
    fputs(", \"cnid_r\": ", f);
    json_num_or_null(f, mon && m->dc.sampled && req > 0, (double)m->dc.r / req, 4);
    fputs(", \"cnid_w\": ", f);
    json_num_or_null(f, mon && m->dc.sampled && req > 0, (double)m->dc.w / req, 4);
    fputs(", \"cpu_us\": ", f);
    json_num_or_null(f, mon && req > 0, (double)x->server_cpu_us / req, 3);
    fputs("}},\n", f);
}

/* The client's own CPU in the window. */
static void json_step_client_cpu(FILE *f, const struct load_opts *o, const struct step_mon *m,
                                 const struct step_figures *x)
{
    fprintf(f,
            "        \"client_cpu\": {\"user_us\": %llu, \"sys_us\": %llu, \"share_of_run_pct\": ",
            (unsigned long long)(m->client_user1 - m->client_user0),
            (unsigned long long)(m->client_sys1 - m->client_sys0));
    json_num_or_null(f, x->run_share_known, x->run_share, 2);
    fputs(", \"share_of_machine_pct\": ", f);
    json_num_or_null(f, x->machine_share_known, x->machine_share, 2);
    fprintf(f, ", \"threads\": %u},\n", o->threads);
}

/* Each session: its state, its afpd, its requests and errors. */
static void json_step_sessions(FILE *f, const struct load_result *r, const int *pids)
{
    fputs("        \"sessions_detail\": [", f);
    for (unsigned i = 0; r->sess && i < r->sessions; i++) {
        const struct load_sess_result *s = &r->sess[i];
        uint64_t se = s->afp_errors + s->validation + s->timeouts + s->dropped + s->login_failed +
                      s->protocol;
        fprintf(f,
                "%s\n          {\"session\": %u, \"state\": \"%s\", \"afpd_pid\": ", i ? "," : "",
                i + 1, load_state_name(s->state));
        json_num_or_null(f, pids && pids[i] > 0, pids ? pids[i] : 0, 0);
        fprintf(f,
                ", \"requests\": %llu, \"requests_all\": %llu, \"bytes\": %llu, \"errors\": %llu, "
                "\"timeouts\": %llu, \"dropped\": %llu, \"error\": ",
                (unsigned long long)s->requests, (unsigned long long)s->requests_all,
                (unsigned long long)s->bytes, (unsigned long long)se,
                (unsigned long long)s->timeouts, (unsigned long long)s->dropped);
        json_write_string(f, s->error[0] ? s->error : NULL);
        fputs("}", f);
    }
    fputs("\n        ]", f);
}

/* The step's human line on stderr. */
static void print_step_line(const struct side *sd, const struct load_result *r,
                            const struct step_mon *m, const struct step_figures *x)
{
    char cpu_req[32] = "?";
    if (x->mon && x->req > 0)
        snprintf(cpu_req, sizeof cpu_req, "%.1f", (double)x->server_cpu_us / x->req);
    fprintf(stderr,
            "%s%4u sessions: %9.1f req/s %8.2f MB/s  p50 %.2f  p99 %.2f  p99.9 %.2f  max %.2f "
            "ms  errors %llu  afpd %d  server CPU %s us/req  client CPU %s%.1f %%\n",
            sd->label, r->sessions, x->rps, x->mbps, (double)hist_percentile(&r->lat, 50) / 1000,
            (double)hist_percentile(&r->lat, 99) / 1000,
            (double)hist_percentile(&r->lat, 99.9) / 1000, (double)r->lat.max / 1000,
            (unsigned long long)x->errors, m->afpd_seen, cpu_req,
            x->run_share_known ? "" : "(of the machine) ",
            x->run_share_known       ? x->run_share
            : x->machine_share_known ? x->machine_share
                                     : 0.0);
}

/* The step's CSV row, kept for the end (-c). */
static void keep_step_csv(struct side *sd, const struct load_result *r, const struct step_mon *m,
                          const struct step_figures *x)
{
    char io_req[32] = "", cpu_req_csv[32] = "";
    if (x->mon && x->req > 0) {
        snprintf(cpu_req_csv, sizeof cpu_req_csv, "%.3f", (double)x->server_cpu_us / x->req);
        snprintf(io_req, sizeof io_req, "%.4f", (double)(m->da.r + m->da.w) / x->req);
    }
    if (sd->ncsv < sizeof sd->csv / sizeof sd->csv[0])
        snprintf(sd->csv[sd->ncsv++], sizeof sd->csv[0],
                 "%s,%u,%.3f,%llu,%.3f,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%d,%s,%s",
                 sd->name, r->sessions, x->secs, (unsigned long long)r->requests, x->rps, x->mbps,
                 (unsigned long long)hist_percentile(&r->lat, 50),
                 (unsigned long long)hist_percentile(&r->lat, 90),
                 (unsigned long long)hist_percentile(&r->lat, 99),
                 (unsigned long long)hist_percentile(&r->lat, 99.9), (unsigned long long)r->lat.max,
                 (unsigned long long)x->errors, (unsigned long long)x->timeouts,
                 (unsigned long long)x->minreq, (unsigned long long)x->maxreq, m->afpd_seen, io_req,
                 cpu_req_csv);
}

/* One step written: its JSON object into the side's steps, its human line,
 * its CSV row, and a validation failure into the results. */
static void write_step(struct side *sd, const struct load_opts *o, const struct load_result *r,
                       const struct step_mon *m, const int *pids, const char *cold, int cold_ok)
{
    struct step_figures x;
    step_figures(&x, r, m);
    FILE *f = sd->steps;
    fprintf(f, "%s\n      {\n", sd->nsteps ? "," : "");
    json_step_throughput(f, o, r, &x);
    json_step_errors(f, o, &x, cold, cold_ok);
    json_step_server(f, m, &x);
    json_step_client_cpu(f, o, m, &x);
    json_step_sessions(f, r, pids);
    fputs("\n      }", f);
    sd->nsteps++;
    print_step_line(sd, r, m, &x);
    keep_step_csv(sd, r, m, &x);
    if (x.valid > 0)
        results_fail(sd->res, EXIT_VALIDATION,
                     "%u sessions: %llu requests got data back that was not what was written "
                     "(see sessions_detail)",
                     r->sessions, (unsigned long long)x.valid);
}

static int run_step(struct side *sd, const struct load_opts *o, unsigned n, unsigned step)
{
    char err[200], coldbuf[300];
    int cold_ok = 0;
    const char *cold = o->cold ? drop_caches(sd, &cold_ok, coldbuf, sizeof coldbuf) : NULL;
    if (o->cold)
        fprintf(stderr, "%sPage cache before %u sessions: %s\n", sd->label, n, cold);
    struct load_config cfg = {
        .addr = sd->addr,
        .addrlen = sd->addrlen,
        .user = sd->conn->user,
        .password = sd->conn->password,
        .volume = sd->conn->volume,
        .afp_version = sd->conn->afp_version,
        .sessions = n,
        .threads = o->threads,
        .warmup_us = (uint64_t)(o->warmup_s * 1e6),
        .duration_us = (uint64_t)(o->duration_s * 1e6),
        .rate = o->rate,
        .timeout_ms = deadline_request_ms(),
        .seed = o->seed,
        .step = step,
        .verify_all = o->verify_all,
        .tb = &sd->tb,
    };
    memcpy(cfg.weights, o->weights, sizeof cfg.weights);
    cfg.writers = o->writers;
    struct load_runner *e = load_runner_start(&cfg, err, sizeof err);
    if (e == NULL) {
        results_fail(sd->res, EXIT_ALLOC, "%u sessions: %s", n, err);
        return EXIT_ALLOC;
    }
    fprintf(stderr, "%s%u sessions: logging in\n", sd->label, n);
    unsigned logged = load_runner_wait_logins(e);
    struct step_mon m;
    memset(&m, 0, sizeof m);
    int *pids = calloc(n, sizeof *pids);
    if (logged > 0)
        step_map(sd, e, n, pids, &m);
    uint64_t start = clock_now_us() + (uint64_t)(o->warmup_s * 1e6);
    load_runner_run(e, start);
    int stop = sleep_until(start);
    if (m.have_groups) {
        iomon_group_start(&m.afpd);
        iomon_group_start(&m.cnid);
    }
    clock_cpu_us(&m.client_user0, &m.client_sys0);
    if (stop == 0) {
        /* progress, and the mark a test waits for before it breaks a session */
        fprintf(stderr, "%s%u sessions: measuring for %.1f s\n", sd->label, n, o->duration_s);
        stop = sleep_until(start + cfg.duration_us);
    }
    if (m.have_groups) {
        iomon_group_end(&m.afpd, &m.da);
        iomon_group_end(&m.cnid, &m.dc);
    }
    /* read: the sessions, idle since the window ended, may log out now (a
     * session that logged out first took its afpd's counters with it) */
    load_runner_release(e);
    clock_cpu_us(&m.client_user1, &m.client_sys1);
    if (stop != 0)
        load_runner_abort(e);
    struct load_result *r = calloc(1, sizeof *r);
    if (r == NULL) {
        free(pids);
        results_fail(sd->res, EXIT_ALLOC, "out of memory");
        return EXIT_ALLOC;
    }
    load_runner_finish(e, r);
    if (stop != 0) /* only the part of the window that ran */
        r->window_us = clock_now_us() > start ? clock_now_us() - start : 0;
    write_step(sd, o, r, &m, pids, cold, cold_ok);
    int rc = 0;
    if (logged == 0) {
        const char *why = r->sess && r->sess[0].error[0] ? r->sess[0].error : "no session";
        results_fail(sd->res, strstr(why, "FPLogin") ? EXIT_LOGIN : EXIT_NETWORK,
                     "%u sessions: none logged in (%s)", n, why);
        rc = sd->res->exit_code;
    }
    if (stop != 0) {
        results_fail(sd->res, EXIT_NETWORK, "%u sessions: %s", n, deadline_reason());
        rc = EXIT_NETWORK;
    }
    if (m.have_groups) {
        iomon_group_close(&m.afpd);
        iomon_group_close(&m.cnid);
    }
    load_result_free(r);
    free(r);
    free(pids);
    return rc;
}

static void finish_json(struct side *sd, const struct load_opts *o, char **out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    fprintf(f, "{\n    \"config\": {\"sessions\": [");
    for (size_t i = 0; i < o->nsteps; i++)
        fprintf(f, "%s%u", i ? ", " : "", o->sessions[i]);
    fprintf(f, "], \"seconds\": %.3f, \"warmup_s\": %.3f, \"rate\": ", o->duration_s, o->warmup_s);
    json_num_or_null(f, o->rate > 0, o->rate, 3);
    fprintf(f,
            ", \"threads\": %u, \"seed\": %llu, \"cold\": %s, \"verify\": \"%s\",\n      "
            "\"writers\": %u, \"mix\": {",
            o->threads, o->seed, o->cold ? "true" : "false",
            o->verify_all ? "all" : "first 4096 bytes of each read reply", o->writers);
    int first = 1;
    for (int op = 0; op < LOAD_NUM_OPS; op++) {
        if (o->weights[op] == 0)
            continue;
        fprintf(f, "%s\"%s\": %u", first ? "" : ", ", load_op_name(op), o->weights[op]);
        first = 0;
    }
    fprintf(f,
            "},\n      \"testbed\": {\"dirs\": %u, \"files_per_dir\": %u, \"max_size_bytes\": "
            "%llu, \"bytes\": %llu, \"build_us\": %llu},\n",
            o->dirs, o->files, (unsigned long long)o->max_size, (unsigned long long)sd->tb_bytes,
            (unsigned long long)sd->tb_build_us);
    fprintf(f, "      \"timeout_ms\": %d\n    },\n    \"steps\": [%s%s\n    ]\n  }",
            deadline_request_ms(), sd->steps_buf ? sd->steps_buf : "", sd->nsteps ? "\n" : "");
    fclose(f);
    *out = buf;
}

static void raise_nofile(unsigned sessions)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = (rlim_t)sessions * 4 + 64;
    if (rl.rlim_cur >= want)
        return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
}

struct load_step {
    const struct load_opts *o;
    size_t i;
};

static int step_side(struct suite_side *ss, unsigned order, void *arg)
{
    (void)order;
    const struct load_step *st = arg;
    return run_step(ss->state, st->o, st->o->sessions[st->i], (unsigned)st->i);
}

/* The steps; in A/B both servers in turn, one pair per step (suite_pair:
 * ABBA). */
static int run_steps(struct suite *s)
{
    const struct load_opts *o = ((struct load_suite *)s->arg)->o;
    int rc = 0;
    for (size_t i = 0; i < o->nsteps && rc == 0; i++) {
        struct load_step st = {o, i};
        rc = suite_pair(s, (unsigned)i, step_side, &st);
    }
    return rc;
}

/* Remove the testbed; the steps' JSON into the side's "load" object. */
static void side_close(struct suite *s, struct suite_side *ss)
{
    struct load_suite *l = s->arg;
    struct side *sd = ss->state;
    remove_testbed(sd);
    iomon_stop(&sd->io);
    results_finish(sd->res);
    /* closing the memstream settles steps_buf and steps_len */
    if (sd->steps)
        fclose(sd->steps);
    sd->steps = NULL;
    finish_json(sd, l->o, &l->load_json[ss->index]);
    sd->res->load_json = l->load_json[ss->index];
}

/* -c: every step's CSV row, the head's then the base's. */
static void report(struct suite *s)
{
    struct load_suite *l = s->arg;
    if (!l->o->csv)
        return;
    printf("side,sessions,seconds,requests,requests_per_s,mb_per_s,p50_us,p90_us,p99_us,"
           "p999_us,max_us,errors,timeouts,min_requests,max_requests,afpd_seen,"
           "afpd_syscalls_per_request,server_cpu_us_per_request\n");
    for (int k = 0; k < s->nsides; k++)
        for (unsigned i = 0; i < l->sides[k].ncsv; i++)
            printf("%s\n", l->sides[k].csv[i]);
}

static void side_free(struct suite *s, struct suite_side *ss)
{
    struct load_suite *l = s->arg;
    struct side *sd = ss->state;
    free(l->load_json[ss->index]);
    free(sd->steps_buf);
    srvfiles_close(&sd->srv);
}

/* The client CPU: the process's time on both sides; each side keeps the AFP
 * ops of its own set-up session (the steps' requests are per step). */
static const struct suite_ops load_ops = {
    .suite = "load",
    .version = LOAD_SUITE_VERSION,
    .init = side_init,
    .open = side_open,
    .run = run_steps,
    .close = side_close,
    .report = report,
    .free = side_free,
    .cpu = SUITE_CPU_TIME_ONLY,
};

static int parse(int argc, char **argv, void *opts)
{
    return cli_parse_load(argc, argv, opts);
}

/* Both sides run the head's options; descriptors for the most sessions. */
static void prepare(void *arg)
{
    struct load_suite *l = arg;
    l->o = &l->opts[SUITE_HEAD];
    unsigned most = 0;
    for (size_t i = 0; i < l->o->nsteps; i++)
        most = l->o->sessions[i] > most ? l->o->sessions[i] : most;
    raise_nofile(most);
}

int load_main(int argc, char **argv)
{
    static const struct suite_command command = {.ops = &load_ops,
                                                 .opts_size = sizeof(struct load_opts),
                                                 .parse = parse,
                                                 .prepare = prepare};
    static struct load_suite l;
    return suite_main(&command, &l, l.opts, argc, argv);
}

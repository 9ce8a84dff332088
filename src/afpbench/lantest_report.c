/* lantest reports: the human table with the Aggregates Summary, and the CSV
 * with afp_lantest's header lines. Both summarise the same raw samples the
 * JSON holds: mean (after dropping the lowest and highest value when there
 * are more than 5 iterations) and sample standard deviation. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lantest.h"
#include "results.h"
#include "stats.h"

enum column { COL_MS, COL_AFPD_R, COL_AFPD_W, COL_CNID_R, COL_CNID_W, NUM_COLS };

struct test_summary {
    int known[NUM_COLS];
    struct stats st[NUM_COLS];
    double mbs; /* MiB/s for tests that move a big file, else 0 */
};

static uint64_t sample_value(const struct result_sample *s, enum column col)
{
    switch (col) {
    case COL_MS:
        return s->us;
    case COL_AFPD_R:
        return s->afpd_r;
    case COL_AFPD_W:
        return s->afpd_w;
    case COL_CNID_R:
        return s->cnid_r;
    case COL_CNID_W:
        return s->cnid_w;
    default:
        return RESULTS_UNKNOWN;
    }
}

static void summarize(const struct result_test *t, struct test_summary *out)
{
    memset(out, 0, sizeof *out);
    double *v = malloc((t->nsamples ? t->nsamples : 1) * sizeof *v);
    if (v == NULL)
        return;
    for (int col = 0; col < NUM_COLS; col++) {
        size_t n = 0;
        int all_known = 1;
        for (size_t i = 0; i < t->nsamples; i++) {
            uint64_t x = sample_value(&t->samples[i], (enum column)col);
            if (x == RESULTS_UNKNOWN)
                all_known = 0;
            else
                v[n++] = col == COL_MS ? (double)x / 1000.0 : (double)x;
        }
        /* A column with a gap is unknown rather than averaged over less. */
        if (all_known && n > 0 && stats_summarize(v, n, 1, &out->st[col]) == 0)
            out->known[col] = 1;
    }
    free(v);
    if (t->size_bytes != RESULTS_UNKNOWN && t->size_bytes > 0 && out->known[COL_MS] &&
        out->st[COL_MS].mean > 0 && t->nsamples > 0)
        out->mbs = (double)t->samples[0].bytes / 1048576.0 / (out->st[COL_MS].mean / 1000.0);
}

/* What the "Sum of all AFP OPs" rows add up, over the tests with samples.
 * A column's sum is shown (in the CSV and the table alike) only when every
 * test measured it: a sum over some of the tests would pass for the
 * total. */
struct totals {
    double sums[NUM_COLS]; /* of the known means */
    int all_known[NUM_COLS];
    uint64_t nominal, ops_run; /* AFP ops: the labels', and run per iteration */
    int trimmed;               /* a test's times dropped their lowest and highest */
};

static void totals_init(struct totals *tot)
{
    memset(tot, 0, sizeof *tot);
    for (int col = 0; col < NUM_COLS; col++)
        tot->all_known[col] = 1;
}

static void totals_add(struct totals *tot, const struct result_test *t,
                       const struct test_summary *s)
{
    for (int col = 0; col < NUM_COLS; col++) {
        if (s->known[col]) {
            tot->sums[col] += s->st[col].mean;
        } else {
            tot->all_known[col] = 0;
        }
    }
    if (t->afp_ops_nominal != RESULTS_UNKNOWN)
        tot->nominal += t->afp_ops_nominal;
    if (t->afp_ops != RESULTS_UNKNOWN)
        tot->ops_run += t->afp_ops;
    if (s->st[COL_MS].dropped)
        tot->trimmed = 1;
}

static int io_on(const struct results *r)
{
    return r->io != NULL && r->io->enabled;
}

void lantest_csv_name(FILE *out, const char *name)
{
    if (strpbrk(name, ",\"\n") == NULL) {
        fputs(name, out);
        return;
    }
    fputc('"', out);
    for (const char *p = name; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputc('"', out);
}

static void csv_count(FILE *out, const struct test_summary *s, enum column col)
{
    if (s->known[col])
        fprintf(out, ",%.0f,%.1f", s->st[col].mean, s->st[col].stddev);
    else
        fputs(",,", out);
}

void lantest_report_csv(const struct results *r, FILE *out)
{
    int io = io_on(r);
    struct totals tot;
    totals_init(&tot);

    fputs(io ? "Test,Time_ms,Time\xc2\xb1,AFPD_R,AFPD_R\xc2\xb1,AFPD_W,AFPD_W\xc2\xb1,CNID_R,"
               "CNID_R\xc2\xb1,CNID_W,CNID_W\xc2\xb1,MB/s\n"
             : "Test,Time_ms,Time\xc2\xb1,MB/s\n",
          out);
    for (size_t i = 0; i < r->ntests; i++) {
        const struct result_test *t = &r->tests[i];
        if (t->nsamples == 0)
            continue;
        struct test_summary s;
        summarize(t, &s);
        lantest_csv_name(out, t->name);
        fprintf(out, ",%.0f,%.1f", s.st[COL_MS].mean, s.st[COL_MS].stddev);
        if (io)
            for (int col = COL_AFPD_R; col < NUM_COLS; col++)
                csv_count(out, &s, (enum column)col);
        fprintf(out, ",%.0f\n", floor(s.mbs));
        totals_add(&tot, t, &s);
    }
    fprintf(out, "Sum of all AFP OPs = %llu,%.0f,", (unsigned long long)tot.nominal,
            tot.sums[COL_MS]);
    if (io) {
        /* A column some test could not measure stays empty rather than a
         * partial sum (the table prints "-"). */
        for (int col = COL_AFPD_R; col < NUM_COLS; col++) {
            if (tot.all_known[col])
                fprintf(out, ",%.0f,", tot.sums[col]);
            else
                fputs(",,", out);
        }
    }
    fputs(",\n", out);
}

static void human_count(FILE *out, const struct test_summary *s, enum column col, int w1, int w2)
{
    if (s->known[col])
        fprintf(out, " %*.0f %*.1f", w1, s->st[col].mean, w2, s->st[col].stddev);
    else
        fprintf(out, " %*s %*s", w1, "-", w2, "-");
}

void lantest_report_human(const struct results *r, FILE *out)
{
    int io = io_on(r);
    struct totals tot;
    totals_init(&tot);

    fputs("\nNetatalk Lantest Results", out);
    if (r->iterations > 1)
        fprintf(out,
                " (Averages and standard deviations (\xc2\xb1) for all tests, across %u "
                "iterations%s)\n",
                r->iterations, r->iterations == 2 ? " (default)" : "");
    else
        fputs(" (single iteration)\n", out);
    for (int i = 0; i < 108; i++)
        fputc('=', out);
    fputs("\n\n", out);
    if (io)
        fprintf(out, "%-66s %8s %6s %6s %7s %6s %7s %6s %7s %6s %7s %6s\n", "Test", " Time_ms",
                " Time\xc2\xb1", "AFPD_R", "AFPD_R\xc2\xb1", "AFPD_W", "AFPD_W\xc2\xb1", "CNID_R",
                "CNID_R\xc2\xb1", "CNID_W", "CNID_W\xc2\xb1", "MB/s");
    else
        fprintf(out, "%-66s %8s %6s %6s\n", "Test", " Time_ms", " Time\xc2\xb1", "MB/s");
    int width = io ? 150 : 90;
    for (int i = 0; i < width; i++)
        fputc('-', out);
    fputc('\n', out);

    for (size_t i = 0; i < r->ntests; i++) {
        const struct result_test *t = &r->tests[i];
        if (t->nsamples == 0)
            continue;
        struct test_summary s;
        summarize(t, &s);
        fprintf(out, "%-66s %8.1f %6.1f", t->name, s.st[COL_MS].mean, s.st[COL_MS].stddev);
        if (io) {
            human_count(out, &s, COL_AFPD_R, 6, 7);
            human_count(out, &s, COL_AFPD_W, 6, 7);
            human_count(out, &s, COL_CNID_R, 6, 7);
            human_count(out, &s, COL_CNID_W, 6, 7);
        }
        fprintf(out, " %6.1f%s\n", s.mbs, t->failed ? "  (failed)" : "");
        totals_add(&tot, t, &s);
    }
    for (int i = 0; i < width; i++)
        fputc('-', out);
    char label[64];
    snprintf(label, sizeof label, "Sum of all AFP OPs = %llu", (unsigned long long)tot.nominal);
    fprintf(out, "\n%-66s %8.1f %6s", label, tot.sums[COL_MS], "");
    if (io)
        for (int col = COL_AFPD_R; col < NUM_COLS; col++) {
            if (tot.all_known[col])
                fprintf(out, " %6.0f %7s", tot.sums[col], "");
            else
                fprintf(out, " %6s %7s", "-", "");
        }
    fputc('\n', out);
    if (tot.trimmed)
        fputs("(more than 5 iterations: the lowest and highest value of each column are "
              "left out)\n",
              out);

    fputs("\nAggregates Summary:\n", out);
    for (int i = 0; i < 66; i++)
        fputc('-', out);
    fputc('\n', out);
    if (tot.ops_run == 0) {
        fputs("No AFP ops measured.\n", out);
        return;
    }
    double ops = (double)tot.ops_run;
    fprintf(out, "Average Time per AFP OP: %.3f ms\n", tot.sums[COL_MS] / ops);
    if (io) {
        static const char *const what[NUM_COLS] = {NULL, "AFPD Reads", "AFPD Writes",
                                                   "CNID_DBD Reads", "CNID_DBD Writes"};
        for (int col = COL_AFPD_R; col < NUM_COLS; col++) {
            if (tot.all_known[col])
                fprintf(out, "Average %s per AFP OP: %.3f\n", what[col], tot.sums[col] / ops);
            else
                fprintf(out, "Average %s per AFP OP: unknown (not monitored)\n", what[col]);
        }
    } else {
        results_print_io_status(r, out);
    }
    fprintf(out,
            "(divided by the %llu AFP ops actually run per iteration; the test labels "
            "add up to %llu)\n",
            (unsigned long long)tot.ops_run, (unsigned long long)tot.nominal);
    if (r->cpu_known && r->cpu_afp_ops > 0)
        fprintf(out,
                "Client CPU per AFP OP: %.2f us (user + sys over the whole run, %llu AFP "
                "ops including setup)\n",
                (double)(r->cpu_user_us + r->cpu_sys_us) / (double)r->cpu_afp_ops,
                (unsigned long long)r->cpu_afp_ops);
    if (io)
        results_print_io_status(r, out);
}

void lantest_list(FILE *out, int json)
{
    if (!json) {
        fprintf(out, "test  group  AFP commands timed, name\n");
        for (int t = 0; t < lantest_num_tests; t++)
            fprintf(out, "%4d  %-5s  %s\n      %s\n", lantest_defs[t].id, lantest_defs[t].group,
                    lantest_defs[t].commands, lantest_defs[t].name);
        return;
    }
    fputs("{\"schema\": \"afpbench-lantest-catalogue/1\", \"tests\": [", out);
    for (int t = 0; t < lantest_num_tests; t++) {
        const struct lantest_def *d = &lantest_defs[t];
        fprintf(out, "%s\n  {\"id\": %d, \"key\": \"lantest.%d\", \"name\": ", t ? "," : "", d->id,
                d->id);
        json_write_string(out, d->name);
        fprintf(out, ", \"afp_ops\": %llu, \"group\": ", (unsigned long long)d->nominal_ops);
        json_write_string(out, d->group);
        fputs(", \"commands\": [", out);
        for (const char *p = d->commands; *p != '\0';) {
            size_t n = strcspn(p, ",");
            fprintf(out, "%s\"%.*s\"", p == d->commands ? "" : ", ", (int)n, p);
            p += n + (p[n] == ',');
        }
        /* what else runs with it, as -f adds it (the files it works on) */
        uint32_t mask = 1u << t;
        uint32_t needs = cli_add_test_dependencies(&mask, 0);
        fputs("], \"needs\": [", out);
        for (int u = 0, first = 1; u < lantest_num_tests; u++)
            if (needs & (1u << u)) {
                fprintf(out, "%s%d", first ? "" : ", ", u + 1);
                first = 0;
            }
        fputs("]}", out);
    }
    fputs("\n]}\n", out);
}

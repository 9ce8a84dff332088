/* srvfiles.c and lantest_dircache.c: the server's afp.conf and log found
 * through afpd's proc root, and the dircache line picked from the log.
 *
 * The proc root is mocked by a directory: PROC/4242/cmdline is a plain file
 * and PROC/4242/root a symlink to a directory standing for the server's
 * root, which is what the code sees of a real /proc_io (open() follows the
 * root link either way). The real /proc_io is covered by
 * scripts/tests/afpbench.bats. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#include "lantest_dircache.h"
#include "sha256.h"
#include "srvfiles.h"

#define PID 4242

static char top[PATH_MAX]; /* the temporary tree */

static void path_of(char *out, size_t len, const char *rel)
{
    snprintf(out, len, "%s/%s", top, rel);
}

static void put_file(const char *rel, const void *data, size_t len)
{
    char p[PATH_MAX + 64];
    path_of(p, sizeof p, rel);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    CHECK_INT(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void put_text(const char *rel, const char *text)
{
    put_file(rel, text, strlen(text));
}

static void append_text(const char *rel, const char *text)
{
    char p[PATH_MAX + 64];
    path_of(p, sizeof p, rel);
    FILE *f = fopen(p, "ab");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static void make_dir(const char *rel)
{
    char p[PATH_MAX + 64];
    path_of(p, sizeof p, rel);
    CHECK_INT(mkdir(p, 0755), 0);
}

/* PROC/4242/cmdline holding args (NUL-separated, len bytes). */
static void set_cmdline(const char *args, size_t len)
{
    put_file("proc/4242/cmdline", args, len);
}

static const char CONF[] = "; afp.conf of the mocked server\n"
                           "[Global]\n"
                           "log level = default:info\n"
                           "log file = /var/log/afpd.log\n"
                           "\n"
                           "[File Sharing]\n"
                           "path = /mnt/afpshare\n";

static void build_tree(void)
{
    snprintf(top, sizeof top, "/tmp/afpbench-srvfiles-XXXXXX");
    CHECK(mkdtemp(top) != NULL);
    make_dir("proc");
    make_dir("proc/4242");
    make_dir("srv");
    make_dir("srv/etc");
    make_dir("srv/etc/netatalk");
    make_dir("srv/var");
    make_dir("srv/var/log");
    char link[PATH_MAX + 64];
    path_of(link, sizeof link, "proc/4242/root");
    CHECK_INT(symlink("../../srv", link), 0);
    put_text("srv/etc/netatalk/afp.conf", CONF);
    put_text("srv/var/log/afpd.log", "old line\n");
    static const char args[] = "/usr/sbin/afpd\0-d\0-F\0/etc/netatalk/afp.conf";
    set_cmdline(args, sizeof args);
}

static void remove_tree(void)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    CHECK_INT(system(cmd), 0);
}

static void open_srv(struct srvfiles *sf)
{
    char proc[PATH_MAX + 64];
    path_of(proc, sizeof proc, "proc");
    srvfiles_open(sf, proc, PID);
}

static void test_cmdline_conf(void)
{
    char out[64];
    static const char dash_f[] = "afpd\0-d\0-F\0/srv/afp.conf";
    CHECK_STR(srvfiles_cmdline_conf(dash_f, sizeof dash_f, out, sizeof out), "/srv/afp.conf");
    /* without the final NUL, as a cmdline cut at its cap would be */
    CHECK_STR(srvfiles_cmdline_conf(dash_f, sizeof dash_f - 1, out, sizeof out), "/srv/afp.conf");
    static const char joined[] = "afpd\0-F/x/a.conf\0-d";
    CHECK_STR(srvfiles_cmdline_conf(joined, sizeof joined, out, sizeof out), "/x/a.conf");
    static const char twice[] = "afpd\0-F\0/first\0-F\0/second";
    CHECK_STR(srvfiles_cmdline_conf(twice, sizeof twice, out, sizeof out), "/second");
    static const char none[] = "/usr/sbin/afpd\0-d";
    CHECK_STR(srvfiles_cmdline_conf(none, sizeof none, out, sizeof out), SRVFILES_DEFAULT_CONF);
    /* -F as the last argument, an empty value, a value that does not fit */
    static const char dangling[] = "afpd\0-d\0-F";
    CHECK(srvfiles_cmdline_conf(dangling, sizeof dangling, out, sizeof out) == NULL);
    static const char empty[] = "afpd\0-F\0\0-d";
    CHECK(srvfiles_cmdline_conf(empty, sizeof empty, out, sizeof out) == NULL);
    CHECK(srvfiles_cmdline_conf(dash_f, sizeof dash_f, out, 8) == NULL);
    CHECK(srvfiles_cmdline_conf(none, sizeof none, out, 8) == NULL);
}

static const char *logfile(const char *conf, char *out, size_t len)
{
    return srvfiles_conf_logfile(conf, strlen(conf), out, len);
}

static void test_conf_logfile(void)
{
    char out[64];
    CHECK_STR(logfile(CONF, out, sizeof out), "/var/log/afpd.log");
    /* case, blanks, CRLF, inline comment, quotes, no final newline */
    CHECK_STR(logfile("[global]\r\n  Log File\t=  /a b.log  ; x\r\n", out, sizeof out), "/a b.log");
    CHECK_STR(logfile("[ Global ]\nlog file = \"/q;#.log\" \n", out, sizeof out), "/q;#.log");
    CHECK_STR(logfile("[Global]\nlog file=/last", out, sizeof out), "/last");
    /* a later setting wins */
    CHECK_STR(logfile("[Global]\nlog file = /a\nlog file = /b\n", out, sizeof out), "/b");
    /* outside [Global], commented out, other keys, empty: not set */
    CHECK(logfile("log file = /top\n[Vol]\nlog file = /vol\n", out, sizeof out) == NULL);
    CHECK(logfile("[Global]\n; log file = /c\n# log file = /d\n", out, sizeof out) == NULL);
    CHECK(logfile("[Global]\nlog files = /e\nlog level = x\n", out, sizeof out) == NULL);
    CHECK(logfile("[Global]\nlog file =\n", out, sizeof out) == NULL);
    CHECK(logfile("[Global]\nlog file = ; nothing\n", out, sizeof out) == NULL);
    CHECK(logfile("[Global]\nlog file = /var/log/much-too-long-for-the-buffer.log\n", out, 16) ==
          NULL);
    /* a NUL inside the value is not a path */
    static const char nul[] = "[Global]\nlog file = /a\0b\n";
    CHECK(srvfiles_conf_logfile(nul, sizeof nul - 1, out, sizeof out) == NULL);
}

static const char *settings(const char *conf, char *out, size_t len)
{
    return srvfiles_conf_settings(conf, strlen(conf), out, len);
}

static void test_conf_settings(void)
{
    char out[128];
    /* what server-entrypoint writes: the marked lines of both sections */
    CHECK_STR(settings("[Global]\nafp port = 548\nuam list = uams_clrtxt.so\n"
                       "; afpbench: settings under test\ndircache validation freq = 100\n\n"
                       "[File Sharing]\npath = /srv\n; afpbench: settings under test\n"
                       "cnid scheme = sqlite\n  ea   =  ad  \r\n",
                       out, sizeof out),
              "dircache validation freq = 100; cnid scheme = sqlite; ea = ad");
    /* no marker (a server the harness did not configure), or nothing under it */
    CHECK(settings("[Global]\nea = ad\n", out, sizeof out) == NULL);
    CHECK(settings("; afpbench: settings under test\n; ea = ad\n[Vol]\nea = ad\n", out,
                   sizeof out) == NULL);
    /* secrets hidden, unprintable bytes replaced */
    CHECK_STR(settings("; afpbench: settings under test\ncnid mysql pw = hunter2\n"
                       "Volume Key=abc\nname = a\tb\x01\n",
                       out, sizeof out),
              "cnid mysql pw = ***; Volume Key = ***; name = a?b?");
    /* cut to the buffer with "...", never past it */
    char small[16];
    memset(small, 'x', sizeof small);
    CHECK_STR(
        settings("; afpbench: settings under test\nabcdefgh = 12345678\n", small, sizeof small),
        "abcdefgh = 1...");
    CHECK(settings("; afpbench: settings under test\nea = ad\n", small, 4) == NULL);
    /* a NUL inside the text ends nothing early and is not copied as one */
    static const char nul[] = "; afpbench: settings under test\nea = a\0d\n";
    CHECK_STR(srvfiles_conf_settings(nul, sizeof nul - 1, out, sizeof out), "ea = a?d");
}

static void test_open_through_proc_root(void)
{
    build_tree();
    struct srvfiles sf;
    open_srv(&sf);
    char want[SHA256_HEX_LEN + 1];
    srvfiles_conf_fingerprint(CONF, strlen(CONF), want);
    CHECK_STR(sf.conf_path, "/etc/netatalk/afp.conf");
    CHECK_STR(sf.conf_sha256, want);
    CHECK_STR(sf.log_path, "/var/log/afpd.log");
    CHECK(sf.root_fd >= 0);

    /* The root stays usable when afpd's proc entry is gone (after logout). */
    char link[PATH_MAX + 64];
    path_of(link, sizeof link, "proc/4242/root");
    CHECK_INT(unlink(link), 0);
    int fd = srvfiles_open_file(&sf, "/var/log/afpd.log");
    CHECK(fd >= 0);
    char buf[16] = "";
    CHECK_INT(read(fd, buf, sizeof buf - 1), 9);
    CHECK_STR(buf, "old line\n");
    close(fd);
    srvfiles_close(&sf);
    CHECK_INT(sf.root_fd, -1);
    srvfiles_close(&sf); /* twice is harmless */
    remove_tree();
}

/* The fingerprint leaves out what a harness sets per server, comments and
 * blank lines, and nothing else. */
static void test_conf_fingerprint(void)
{
    const char *a =
        "; written by local-server\n[Global]\nafp port = 10548\nafp listen = 127.0.0.1\n"
        "cnid listen = 127.0.0.1:14548\ncnid server = 127.0.0.1:14548\n"
        "server name = afpbench-server\nlog file = /var/log/afpd.log\n"
        "vol dbpath = /var/lib/netatalk/CNID\nlog level = default:severe\n\n"
        "[File Sharing]\npath = /mnt/afpshare\nea = sys\n";
    const char *b = "[Global]\n  AFP   Port=548\nServer Name = afpbench-base\n"
                    "log level = default:severe\n# a comment\n[File Sharing]\n\tpath = /srv/x\n"
                    "ea = sys\n";
    const char *c = "[Global]\nafp port = 548\nlog level = default:info\n[File Sharing]\n"
                    "path = /srv/x\nea = sys\n";
    const char *d = "[Global]\nlog level = default:severe\n[File Sharing]\nea = ad\n";
    const char *e = "[Global]\nlog level = default:severe\n[Other Share]\nea = sys\n";
    char ha[65], hb[65], hc[65], hd[65], he[65], plain[65];
    srvfiles_conf_fingerprint(a, strlen(a), ha);
    srvfiles_conf_fingerprint(b, strlen(b), hb);
    srvfiles_conf_fingerprint(c, strlen(c), hc);
    srvfiles_conf_fingerprint(d, strlen(d), hd);
    srvfiles_conf_fingerprint(e, strlen(e), he);
    CHECK_STR(ha, hb);          /* ports, names, paths, comments and blanks differ only */
    CHECK(strcmp(ha, hc) != 0); /* another log level */
    CHECK(strcmp(ha, hd) != 0); /* another EA mode */
    CHECK(strcmp(ha, he) != 0); /* another section */
    /* what remains is hashed as lines: the settings, trimmed */
    const char *kept = "[Global]\nlog level = default:severe\n[File Sharing]\nea = sys\n";
    sha256_hex(kept, strlen(kept), plain);
    CHECK_STR(ha, plain);
    CHECK_INT(strlen(ha), 64);
}

/* -F names another file; a missing one, one over the cap and one at the
 * cap; no afpd; a conf without "log file". */
static void test_conf_variants(void)
{
    build_tree();
    struct srvfiles sf;
    static const char custom[] = "afpd\0-F\0/etc/custom.conf";
    set_cmdline(custom, sizeof custom);
    put_text("srv/etc/custom.conf", "[Global]\nserver name = x\n");
    open_srv(&sf);
    char want[SHA256_HEX_LEN + 1];
    /* the server name is the harness's: the fingerprint is of the rest */
    sha256_hex("[Global]\n", 9, want);
    CHECK_STR(sf.conf_sha256, want);
    CHECK_STR(sf.log_path, "");
    CHECK(strstr(sf.note, "no usable \"log file\"") != NULL);
    srvfiles_close(&sf);

    static const char missing[] = "afpd\0-F\0/etc/none.conf";
    set_cmdline(missing, sizeof missing);
    open_srv(&sf);
    CHECK_STR(sf.conf_sha256, "");
    CHECK(strstr(sf.note, "cannot read the server's /etc/none.conf") != NULL);
    srvfiles_close(&sf);

    char *big = malloc(SRVFILES_CONF_MAX + 1);
    CHECK(big != NULL);
    if (big != NULL) {
        memset(big, ';', SRVFILES_CONF_MAX + 1);
        put_file("srv/etc/custom.conf", big, SRVFILES_CONF_MAX + 1);
        set_cmdline(custom, sizeof custom);
        open_srv(&sf);
        CHECK_STR(sf.conf_sha256, "");
        CHECK(strstr(sf.note, "larger than 1 MiB") != NULL);
        srvfiles_close(&sf);
        put_file("srv/etc/custom.conf", big, SRVFILES_CONF_MAX);
        open_srv(&sf);
        /* a file of comments only: the fingerprint of no settings */
        sha256_hex("", 0, want);
        CHECK_STR(sf.conf_sha256, want);
        srvfiles_close(&sf);
        free(big);
    }

    static const char relative[] = "afpd\0-F\0etc/custom.conf";
    set_cmdline(relative, sizeof relative);
    open_srv(&sf);
    CHECK_STR(sf.conf_sha256, "");
    CHECK_INT(sf.root_fd, -1);
    srvfiles_close(&sf);

    char proc[PATH_MAX + 64];
    path_of(proc, sizeof proc, "proc");
    srvfiles_open(&sf, proc, 0);
    CHECK_STR(sf.conf_sha256, "");
    CHECK(strstr(sf.note, "afpd was not found") != NULL);
    srvfiles_close(&sf);
    srvfiles_open(&sf, proc, 999); /* no such entry */
    CHECK_STR(sf.conf_sha256, "");
    CHECK(strstr(sf.note, "/999/cmdline is not readable") != NULL);
    srvfiles_close(&sf);
    remove_tree();
}

static int have_openat2(void)
{
#ifdef SYS_openat2
    errno = 0;
    long r = syscall(SYS_openat2, -1, "", NULL, 0);
    return !(r < 0 && (errno == ENOSYS || errno == EPERM));
#else
    return 0;
#endif
}

/* Paths stay inside the server's root: ".." is refused, an absolute
 * symlink resolves inside the root, not on this machine, and only regular
 * files open (a FIFO must neither open nor hang). */
static void test_stays_inside_root(void)
{
    build_tree();
    struct srvfiles sf;
    open_srv(&sf);
    put_text("outside.txt", "not the server's\n");
    char outside[PATH_MAX + 64], link[PATH_MAX + 64];
    path_of(outside, sizeof outside, "outside.txt");
    path_of(link, sizeof link, "srv/etc/abs-link");
    CHECK_INT(symlink(outside, link), 0);

    errno = 0;
    CHECK_INT(srvfiles_open_file(&sf, "/../outside.txt"), -1);
    CHECK_INT(errno, EINVAL);
    CHECK_INT(srvfiles_open_file(&sf, "/etc/../../outside.txt"), -1);
    CHECK_INT(srvfiles_open_file(&sf, "/var/log/.."), -1);
    CHECK_INT(srvfiles_open_file(&sf, "etc/netatalk/afp.conf"), -1);
    CHECK_INT(errno, EINVAL);
    int fd = srvfiles_open_file(&sf, "/etc/..conf-like-name");
    CHECK_INT(fd, -1); /* allowed name, but absent */
    CHECK_INT(errno, ENOENT);

    if (have_openat2()) {
        CHECK_INT(srvfiles_open_file(&sf, "/etc/abs-link"), -1);
        CHECK_INT(errno, ENOENT); /* looked for SRV/<outside path> instead */
    } else {
        printf("note: no openat2 here: absolute symlinks are the kernel's plain openat's\n");
    }

    errno = 0;
    CHECK_INT(srvfiles_open_file(&sf, "/etc"), -1);
    CHECK_INT(errno, EISDIR);
    CHECK_INT(srvfiles_open_file(&sf, "/"), -1);
    char fifo[PATH_MAX + 64];
    path_of(fifo, sizeof fifo, "srv/var/log/fifo");
    CHECK_INT(mkfifo(fifo, 0600), 0);
    errno = 0;
    CHECK_INT(srvfiles_open_file(&sf, "/var/log/fifo"), -1);
    CHECK_INT(errno, ENXIO);
    srvfiles_close(&sf);
    CHECK_INT(srvfiles_open_file(&sf, "/etc/netatalk/afp.conf"), -1); /* closed */
    remove_tree();
}

/* The log: only lines written after begin, only our afpd's, the last one;
 * found through the proc root or by --server-log. */
static void test_dircache_line(void)
{
    build_tree();
    struct srvfiles sf;
    open_srv(&sf);
    append_text("srv/var/log/afpd.log",
                "t0 afpd[7] {dircache.c:1} (info:AFPDaemon): dircache statistics: before\n");
    struct dircache_log d;
    lantest_dircache_begin(&d, NULL, &sf, 7, NULL);
    CHECK(d.fd >= 0);
    CHECK(strstr(d.where, "/var/log/afpd.log (through ") != NULL);
    CHECK(lantest_dircache_find(&d) == NULL); /* the old line is not ours */
    append_text("srv/var/log/afpd.log",
                "t1 afpd[7] {x} (info:AFPDaemon): dircache statistics: first\n"
                "t2 afpd[77] {x} (info:AFPDaemon): dircache statistics: another session\n"
                "t3 afpd[7] {x} (note:AFPDaemon): done\n");
    char *line = lantest_dircache_find(&d);
    CHECK_STR(line, "t1 afpd[7] {x} (info:AFPDaemon): dircache statistics: first");
    free(line);
    lantest_dircache_end(&d);
    CHECK_INT(d.fd, -1);

    /* pid unknown: the last line of any afpd */
    lantest_dircache_begin(&d, NULL, &sf, 0, NULL);
    append_text("srv/var/log/afpd.log", "t4 afpd[8] {x} (info:AFPDaemon): dircache statistics: a\n"
                                        "t5 afpd[9] {x} (info:AFPDaemon): dircache statistics: b");
    line = lantest_dircache_find(&d);
    CHECK_STR(line, "t5 afpd[9] {x} (info:AFPDaemon): dircache statistics: b");
    free(line);
    lantest_dircache_end(&d);

    /* --server-log wins over the proc root; a truncated log is read from 0 */
    char local[PATH_MAX + 64];
    path_of(local, sizeof local, "local.log");
    put_text("local.log", "a long first line that makes the log longer than what follows\n");
    lantest_dircache_begin(&d, local, &sf, 5, NULL);
    CHECK_STR(d.where, local);
    put_text("local.log", "afpd[5] dircache statistics: new\n");
    line = lantest_dircache_find(&d);
    CHECK_STR(line, "afpd[5] dircache statistics: new");
    free(line);
    lantest_dircache_end(&d);

    /* no log known, or not readable: a reason, no descriptor */
    struct srvfiles none;
    srvfiles_init(&none);
    lantest_dircache_begin(&d, NULL, &none, 5, NULL);
    CHECK_INT(d.fd, -1);
    CHECK(strstr(d.note, "server log unknown") != NULL);
    CHECK(lantest_dircache_find(&d) == NULL);
    lantest_dircache_begin(&d, "/nonexistent/afpd.log", &sf, 5, NULL);
    CHECK_INT(d.fd, -1);
    CHECK(strstr(d.note, "/nonexistent/afpd.log is not readable") != NULL);

    /* our afpd runs: its line, once written, is found */
    char proc[PATH_MAX + 64];
    path_of(proc, sizeof proc, "proc");
    put_text("proc/4242/stat", "4242 (afpd) S 1 4242 4242 0 -1\n");
    lantest_dircache_begin(&d, NULL, &sf, PID, proc);
    CHECK(d.afpd_stat >= 0);
    append_text("srv/var/log/afpd.log",
                "t6 afpd[4242] {x} (info:AFPDaemon): dircache statistics: c\n");
    line = lantest_dircache_stats(&d);
    CHECK_STR(line, "t6 afpd[4242] {x} (info:AFPDaemon): dircache statistics: c");
    free(line);
    lantest_dircache_end(&d);
    CHECK_INT(d.afpd_stat, -1);
    /* our afpd has exited (a zombie) without the line (a server logging
     * below info): no 2 s wait, one look and the note */
    put_text("proc/4242/stat", "4242 (afpd) Z 1 4242 4242 0 -1\n");
    lantest_dircache_begin(&d, NULL, &sf, PID, proc);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(lantest_dircache_stats(&d) == NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK((double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 < 1.5);
    lantest_dircache_end(&d);
    srvfiles_close(&sf);
    remove_tree();
}

int main(void)
{
    RUN(test_cmdline_conf);
    RUN(test_conf_logfile);
    RUN(test_conf_settings);
    RUN(test_open_through_proc_root);
    RUN(test_conf_fingerprint);
    RUN(test_conf_variants);
    RUN(test_stays_inside_root);
    RUN(test_dircache_line);
    return harness_report();
}

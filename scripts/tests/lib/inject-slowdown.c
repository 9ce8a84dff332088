/* TEST ONLY — never built into an image. A slowdown injector for the
 * verdict's ground truth: preloaded into a local netatalk server
 * (scripts/local-server start --preload), it burns CPU in afpd before every
 * reply it sends on a socket, so the server gets slower by a known amount
 * while its IO (syscall counts, bytes) stays the same; or it adds system
 * calls of one kind, so that the server does a known amount more work.
 *
 *   AFPBENCH_INJECT_US=N     burn about N microseconds of CPU per reply: a
 *                            loop sized once, when afpd starts, to take N µs
 *                            (no clock read per reply: reading a thread's
 *                            CPU clock is a system call, which would add to
 *                            the counts this slowdown must leave alone)
 *   AFPBENCH_INJECT_LOOPS=N  or run N iterations of a fixed loop per reply
 *                            (a fixed amount of work: the same instruction
 *                            count on every machine)
 *   AFPBENCH_INJECT_LSTAT=N  make one lstat system call of "/" every N replies
 *                            (1: every reply). The raw call, not glibc's
 *                            lstat(), which is newfstatat on this glibc: a
 *                            call afpd never makes, so a gate must name it
 *   AFPBENCH_INJECT_LSTAT_CMD=C  with AFPBENCH_INJECT_LSTAT: only on replies to
 *                            AFP command number C (34: FPGetFileDirParms), read
 *                            from the DSI requests afpd receives (recv,
 *                            recvfrom, read on a socket)
 *   AFPBENCH_INJECT_LEAK_KB=N  leak N KiB per reply: allocated, touched and
 *                            never freed, so afpd's resident memory grows
 *   AFPBENCH_INJECT_LEAK_CMD=C  with AFPBENCH_INJECT_LEAK_KB: only on
 *                            replies to AFP command number C (26: FPOpenFork)
 *
 * Only processes named afpd are changed; the rest of the server is untouched.
 * A reply is a write(), writev(), send() or sendmsg() on a socket. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static long inject_us = -1; /* -1: not read yet */
static long inject_loops;
static long inject_lstat_every;
static long inject_lstat_cmd = -1; /* -1: every command */
static long inject_leak_kb;
static long inject_leak_cmd = -1; /* -1: every command */
static int last_cmd = -1; /* the AFP command of the request being served */
static int
    cmd_next; /* a DSI header came alone: the next read starts the command */
static unsigned long replies;
static int is_afpd;
static volatile uint64_t sink;

/* The injected work; a named function so that profiles can point at it. */
__attribute__((noinline)) void afpbench_injected_work(long loops) {
  uint64_t x = sink;
  for (long i = 0; i < loops; i++)
    x = x * 6364136223846793005ull + 1442695040888963407ull;
  sink = x;
}

static long thread_cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Loops per microsecond of this thread's CPU: the fastest of a few short
 * trials, so that a trial the scheduler interrupted does not count. */
static long loops_per_us(void) {
  const long trial = 200000;
  long best_ns = 0;
  for (int i = 0; i < 5; i++) {
    long t0 = thread_cpu_ns();
    afpbench_injected_work(trial);
    long ns = thread_cpu_ns() - t0;
    if (ns > 0 && (best_ns == 0 || ns < best_ns))
      best_ns = ns;
  }
  return best_ns > 0 ? trial * 1000 / best_ns : 1000;
}

static void read_settings(void) {
  const char *us = getenv("AFPBENCH_INJECT_US");
  const char *loops = getenv("AFPBENCH_INJECT_LOOPS");
  const char *lstat_every = getenv("AFPBENCH_INJECT_LSTAT");
  inject_us = us != NULL ? strtol(us, NULL, 10) : 0;
  inject_loops = loops != NULL ? strtol(loops, NULL, 10) : 0;
  inject_lstat_every = lstat_every != NULL ? strtol(lstat_every, NULL, 10) : 0;
  const char *lstat_cmd = getenv("AFPBENCH_INJECT_LSTAT_CMD");
  if (lstat_cmd != NULL && *lstat_cmd != '\0')
    inject_lstat_cmd = strtol(lstat_cmd, NULL, 10);
  const char *leak_kb = getenv("AFPBENCH_INJECT_LEAK_KB");
  inject_leak_kb = leak_kb != NULL ? strtol(leak_kb, NULL, 10) : 0;
  const char *leak_cmd = getenv("AFPBENCH_INJECT_LEAK_CMD");
  if (leak_cmd != NULL && *leak_cmd != '\0')
    inject_leak_cmd = strtol(leak_cmd, NULL, 10);
  /* prctl, not /proc/self/comm: a read() would add to afpd's IO counts */
  char comm[17] = "";
  prctl(PR_GET_NAME, comm, 0, 0, 0);
  is_afpd = strncmp(comm, "afpd", 4) == 0;
  if (is_afpd && inject_us > 0)
    inject_loops += inject_us * loops_per_us();
}

static void injected_lstat(void) {
  struct stat st;
#ifdef SYS_lstat
  syscall(SYS_lstat, "/", &st);
#else
  syscall(SYS_newfstatat, AT_FDCWD, "/", &st, AT_SYMLINK_NOFOLLOW);
#endif
}

/* Whether an fd is a socket, remembered until it is closed: an fstat per
 * reply would itself be a system call more per reply, which the lstat case
 * must not add. 0 unknown, 1 socket, 2 not a socket. */
#define FD_CACHE 4096
static unsigned char fd_kind[FD_CACHE];

static int is_socket(int fd) {
  if (fd >= 0 && fd < FD_CACHE && fd_kind[fd] != 0)
    return fd_kind[fd] == 1;
  struct stat st;
  int sock = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
  if (fd >= 0 && fd < FD_CACHE)
    fd_kind[fd] = sock ? 1 : 2;
  return sock;
}

static void before_send(int fd) {
  if (inject_us < 0)
    read_settings();
  if (!is_afpd || (inject_us == 0 && inject_loops == 0 &&
                   inject_lstat_every <= 0 && inject_leak_kb <= 0))
    return;
  if (!is_socket(fd))
    return;
  if (inject_loops > 0)
    afpbench_injected_work(inject_loops);
  if (inject_lstat_every > 0 &&
      (inject_lstat_cmd < 0 || inject_lstat_cmd == last_cmd) &&
      replies++ % (unsigned long)inject_lstat_every == 0)
    injected_lstat();
  if (inject_leak_kb > 0 &&
      (inject_leak_cmd < 0 || inject_leak_cmd == last_cmd)) {
    /* a leak: never freed, every page written so that it is resident */
    char *lost = malloc((size_t)inject_leak_kb * 1024);
    if (lost != NULL)
      memset(lost, 0x5a, (size_t)inject_leak_kb * 1024);
    sink += (uintptr_t)lost;
  }
}

/* Note the AFP command of a DSI request (flags 0, DSICommand or DSIWrite)
 * that afpd has just read: byte 16, after the 16-byte header, which afpd may
 * read alone. Reads of the rest of a request start with no header. */
static void after_receive(int fd, const unsigned char *buf, ssize_t n) {
  if (inject_us < 0)
    read_settings();
  if (!is_afpd || (inject_lstat_cmd < 0 && inject_leak_cmd < 0) || n <= 0 ||
      !is_socket(fd))
    return;
  if (cmd_next) {
    last_cmd = buf[0];
    cmd_next = 0;
  } else if (n >= 16 && buf[0] == 0 && (buf[1] == 2 || buf[1] == 6)) {
    if (n > 16)
      last_cmd = buf[16];
    else
      cmd_next = 1;
  }
}

typedef ssize_t (*recv_fn)(int, void *, size_t, int);
typedef ssize_t (*recvfrom_fn)(int, void *, size_t, int, struct sockaddr *,
                               socklen_t *);
typedef ssize_t (*read_fn)(int, void *, size_t);

ssize_t recv(int fd, void *buf, size_t n, int flags) {
  static recv_fn real;
  if (real == NULL)
    real = (recv_fn)dlsym(RTLD_NEXT, "recv");
  ssize_t got = real(fd, buf, n, flags);
  after_receive(fd, buf, got);
  return got;
}

ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from,
                 socklen_t *len) {
  static recvfrom_fn real;
  if (real == NULL)
    real = (recvfrom_fn)dlsym(RTLD_NEXT, "recvfrom");
  ssize_t got = real(fd, buf, n, flags, from, len);
  after_receive(fd, buf, got);
  return got;
}

ssize_t read(int fd, void *buf, size_t n) {
  static read_fn real;
  if (real == NULL)
    real = (read_fn)dlsym(RTLD_NEXT, "read");
  ssize_t got = real(fd, buf, n);
  after_receive(fd, buf, got);
  return got;
}

typedef int (*close_fn)(int);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*send_fn)(int, const void *, size_t, int);
typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);

int close(int fd) {
  static close_fn real;
  if (real == NULL)
    real = (close_fn)dlsym(RTLD_NEXT, "close");
  if (fd >= 0 && fd < FD_CACHE)
    fd_kind[fd] = 0;
  return real(fd);
}

ssize_t write(int fd, const void *buf, size_t n) {
  static write_fn real;
  if (real == NULL)
    real = (write_fn)dlsym(RTLD_NEXT, "write");
  before_send(fd);
  return real(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  static writev_fn real;
  if (real == NULL)
    real = (writev_fn)dlsym(RTLD_NEXT, "writev");
  before_send(fd);
  return real(fd, iov, cnt);
}

ssize_t send(int fd, const void *buf, size_t n, int flags) {
  static send_fn real;
  if (real == NULL)
    real = (send_fn)dlsym(RTLD_NEXT, "send");
  before_send(fd);
  return real(fd, buf, n, flags);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags) {
  static sendmsg_fn real;
  if (real == NULL)
    real = (sendmsg_fn)dlsym(RTLD_NEXT, "sendmsg");
  before_send(fd);
  return real(fd, msg, flags);
}

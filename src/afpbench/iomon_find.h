/* Finding the server's processes through a procfs that shows them (PROC_ROOT,
 * e.g. a second procfs mounted at /proc_io with hidepid=0): our session's
 * afpd by the socket it holds, the volume's cnid_dbd at the far end of one of
 * its connections, and the afpds of many connections at once. */
#ifndef AFPBENCH_IOMON_FIND_H
#define AFPBENCH_IOMON_FIND_H

#include <stddef.h>
#include <stdint.h>

/* Our afpd. sockfd is our connected TCP socket to the server: the afpd
 * whose fd/ holds the server end of that connection (looked up in its own
 * net/tcp and net/tcp6) is ours (*rule "socket"). If that cannot be read, an
 * afpd running as `user` ("uid"; a warning on stderr unless quiet when
 * several do). Returns the pid, with a note on the choice in note (or ""),
 * or 0 with the reason in note. */
int iomon_find_afpd(const char *proc_root, int sockfd, const char *user, int quiet,
                    const char **rule, char *note, size_t notelen);

/* The volume's cnid_dbd: the one at the far end of one of afpd_pid's TCP
 * connections (*rule "socket"); when no cnid_dbd is, 0 (a CNID backend
 * inside afpd, or another server's); when those cannot be read, one with
 * "-u USER" in its command line ("user"). */
int iomon_find_cnid_dbd(const char *proc_root, int afpd_pid, const char *user, int quiet,
                        const char **rule);

/* Many sessions (afpbench load): which afpd serves each of our connections,
 * found in one pass: the socket inodes every afpd holds, and the TCP tables of each network
 * namespace they live in (the socket rule above, for all sockets at once). pids[i] gets the afpd of
 * fds[i], 0 when none was found. Returns how many were mapped, or -1 with the reason in why when
 * the procfs shows no afpd at all. */
int iomon_map_sessions(const char *proc_root, const int *fds, int n, int *pids, char *why,
                       size_t whylen);

/* Parse one line of PROC/net/tcp or tcp6 into 16-byte addresses (IPv4 as
 * ::ffff:a.b.c.d), host-order ports and the socket inode. Returns 0 for a
 * data line, -1 for the header or a malformed line. */
int iomon_parse_tcp_line(const char *line, uint8_t local[16], uint16_t *lport, uint8_t remote[16],
                         uint16_t *rport, unsigned long *inode);

/* Is argv (NUL-separated, len bytes, as in PROC/PID/cmdline) carrying
 * "-u" followed by exactly `user`? */
int iomon_cmdline_has_user(const char *cmdline, unsigned long len, const char *user);

#endif

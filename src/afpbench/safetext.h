/* Server-supplied text made safe to print (issue 10): a server name, a UAM,
 * a log line can hold ESC sequences, CR/LF and GitHub workflow commands
 * ("::error::", "::set-output") that a terminal or the Actions runner would
 * obey. safetext keeps printable ASCII and well-formed UTF-8, and writes every
 * other byte as \xHH: C0 controls, DEL, the C1 controls U+0080-U+009F (as
 * their two UTF-8 bytes), malformed UTF-8, and the backslash itself. The
 * second colon of every "::" becomes \x3a, so no printed line can start a
 * workflow command. The result always fits cap (an escape is never cut). */
#ifndef AFPBENCH_SAFETEXT_H
#define AFPBENCH_SAFETEXT_H

#include <stddef.h>

/* Escape src (NUL-terminated) into dst of cap bytes (cap >= 1). Returns
 * the length written. dst and src must not overlap. */
size_t safetext(char *dst, size_t cap, const char *src);
/* The same in place, for a buffer of cap bytes holding a string. */
void safetext_inplace(char *s, size_t cap);

#endif

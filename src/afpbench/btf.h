/* Where the running kernel keeps a member of one of its structures, read
 * from its BTF (/sys/kernel/btf/vmlinux): the counting program follows a
 * few kernel pointers (a descriptor's file and its inode) and needs their
 * offsets on this kernel, not on the one afpbench was built against. */
#ifndef AFPBENCH_BTF_H
#define AFPBENCH_BTF_H

#include <stddef.h>

/* One member looked for: `member` of `struct type`, found at byte offset
 * (-1 while not found). Members of the structure's unnamed structs and
 * unions count as its own, as C sees them. */
struct btf_field {
    const char *type;
    const char *member;
    long offset;
};

/* Look every field up in the BTF blob data[0..len) at once. Returns how
 * many were not found (a bit field is not found), or -1 when the blob is
 * not BTF or is damaged: every length and index in it is checked. */
int btf_find_fields(const unsigned char *data, size_t len, struct btf_field *fields, size_t n);

#endif

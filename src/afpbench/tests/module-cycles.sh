#!/usr/bin/env bash
# No circle of modules: the module dependency graph of the client (one module
# per *.c here) has no cycle, direct (a.c calls b.c and b.c calls a.c) or
# through longer chains. A module depends on another when its object file
# needs a symbol (a function, or a variable) that the other's defines: its
# undefined symbols (nm -u) resolved by the other's external definitions,
# which is what the linker joins. Headers are not the graph: a module includes
# some only for types, constants and macros (net.c includes dsi.h for the
# AFPB_E* codes), and one header may declare the functions of several .c
# files (speedtest.h); the objects say who calls whom.
# Compiles every source at -O0 (no call folded away), builds the graph and
# fails naming each circle, module by module with the symbols that join them.
# Run from src/afpbench by `make check` (with CC and ALL_CFLAGS from the
# Makefile); prints one tally line "N passed, N failed".
set -euo pipefail

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# stdin: lines "EDGE from to symbol"; prints the circles, exits 1 if any.
find_cycles() {
  awk '
    $1 == "EDGE" {
      node[$2] = 1; node[$3] = 1
      if (!(($2, $3) in adj)) { adj[$2, $3] = 1; nedges++ }
      if (($2, $3) in syms) syms[$2, $3] = syms[$2, $3] ", " $4
      else syms[$2, $3] = $4
      reach[$2, $3] = 1
      next
    }
    $1 == "NODE" { node[$2] = 1 }
    END {
      n = 0
      for (v in node) names[++n] = v
      # sorted, so that the report is the same from run to run
      for (i = 2; i <= n; i++) {
        v = names[i]
        for (j = i - 1; j >= 1 && names[j] > v; j--) names[j + 1] = names[j]
        names[j + 1] = v
      }
      # transitive closure (Warshall): reach[a, b] when a depends on b at all
      for (k = 1; k <= n; k++)
        for (i = 1; i <= n; i++) {
          if (!((names[i], names[k]) in reach)) continue
          for (j = 1; j <= n; j++)
            if ((names[k], names[j]) in reach) reach[names[i], names[j]] = 1
        }
      ncycles = 0
      for (i = 1; i <= n; i++) {
        a = names[i]
        if (a in done || !((a, a) in reach)) continue
        # the strongly connected component of a: every module in a circle with it
        members = ""; count = 0
        for (j = 1; j <= n; j++) {
          b = names[j]
          if ((a, b) in reach && (b, a) in reach) {
            done[b] = 1; inscc[b] = a; members = members " " b; count++
          }
        }
        # one shortest circle through a (breadth first, inside the component)
        delete prev; delete seen
        head = 1; tail = 0; found = 0
        queue[++tail] = a
        while (head <= tail && !found) {
          u = queue[head++]
          for (j = 1; j <= n; j++) {
            w = names[j]
            if (!((u, w) in adj) || inscc[w] != a) continue
            if (w == a) { last = u; found = 1; break }
            if (w in seen) continue
            seen[w] = 1; prev[w] = u; queue[++tail] = w
          }
        }
        len = 0; path[++len] = a
        for (v = last; v != a; v = prev[v]) rev[++rlen] = v
        for (; rlen > 0; rlen--) path[++len] = rev[rlen]
        path[++len] = a
        line = path[1]
        for (j = 2; j <= len; j++) line = line " -> " path[j]
        printf "FAIL: modules in a circle: %s\n", line
        for (j = 1; j < len; j++)
          printf "  %s.c calls %s.c: %s\n", path[j], path[j + 1], syms[path[j], path[j + 1]]
        if (count > len - 1)
          printf "  (the modules that all depend on one another:%s)\n", members
        ncycles++
      }
      if (ncycles) exit 1
      if (nedges == 0) { print "FAIL: no dependency between modules found (nm output?)"; exit 1 }
      printf "%d modules, %d dependencies between them, no circle\n", n, nedges
    }'
}

main() {
  local cc=${CC:-cc} src obj
  local -a cflags
  read -r -a cflags <<<"${ALL_CFLAGS:--std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -Igen}"
  # -w: the warnings are the real builds' to judge (-O0 gives other ones)
  for src in *.c; do
    "$cc" "${cflags[@]}" -I. -O0 -w -c -o "$TMP/${src%.c}.o" "$src"
  done
  # each external definition and its module, then each module's undefined
  # symbols resolved by another module's definition
  local rc=0
  for obj in "$TMP"/*.o; do
    src=$(basename "$obj" .o)
    nm --defined-only -g "$obj" | awk -v m="$src" 'NF == 3 { print "DEF", m, $3 }'
    nm -u "$obj" | awk -v m="$src" '{ print "UNDEF", m, $NF }'
    echo "MODULE $src"
  done | awk '
    $1 == "DEF" { def[$3] = $2; next }
    $1 == "UNDEF" { want[++nw] = $2 " " $3; next }
    $1 == "MODULE" { print "NODE", $2 }
    END {
      for (i = 1; i <= nw; i++) {
        split(want[i], w, " ")
        if ((w[2] in def) && def[w[2]] != w[1]) print "EDGE", w[1], def[w[2]], w[2]
      }
    }' | sort -k1,1 -k2,2 -k3,3 -k4,4 | find_cycles || rc=$?
  if ((rc)); then
    echo "0 passed, 1 failed"
    return 1
  fi
  echo "1 passed, 0 failed"
}

main "$@"

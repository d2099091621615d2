# Shared helpers for hack/ scripts. Source it; do not run it.
# shellcheck shell=bash

PB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PB_CACHE="${PROVBENCH_CACHE:-$HOME/.cache/provbench}"
PB_BIN="$PB_CACHE/bin"
PB_JAR="$PB_ROOT/target/quarkus-app/quarkus-run.jar"

pb_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
pb_die() { pb_log "error: $*"; exit 1; }

# pb_go_install NAME VERSION PACKAGE@VERSION [TAGS]: builds a Go tool once into $PB_BIN/NAME-VERSION/ (with
# those build tags, if any) and prints the path of the binary.
pb_go_install() {
  local name=$1 version=$2 pkg=$3 tags=${4:-}
  local dir="$PB_BIN/$name-$version"
  if [[ ! -x "$dir/$name" ]]; then
    command -v go >/dev/null || pb_die "go is needed to build $name"
    pb_log "building $name $version (cached in $dir)"
    mkdir -p "$dir"
    GOBIN="$dir" GOFLAGS=-mod=mod go install ${tags:+-tags "$tags"} "$pkg" >&2 || pb_die "go install $pkg failed"
  fi
  printf '%s\n' "$dir/$name"
}

# pb_async_profiler: fetches async-profiler (a sampling profiler that sees native and kernel frames, which JDK
# Flight Recorder does not) once from Maven Central into $PB_CACHE/async-profiler-VERSION/, checks the jar's SHA-256,
# and prints the path of its linux-x64 agent library. Benchmarks only; nothing in the product loads it.
PB_ASYNC_PROFILER_VERSION=4.6
PB_ASYNC_PROFILER_SHA256=a5d3d9f4582c2033fa9db518046e73ef97219801f3e7542b82e3e09261ebe493
pb_async_profiler() {
  local v=$PB_ASYNC_PROFILER_VERSION dir="$PB_CACHE/async-profiler-$PB_ASYNC_PROFILER_VERSION"
  local jar="$dir/async-profiler-$v.jar" lib="$dir/linux-x64/libasyncProfiler.so"
  [[ $(uname -sm) == "Linux x86_64" ]] || pb_die "async-profiler: only its linux-x64 library is used here"
  if [[ ! -f "$lib" ]]; then
    mkdir -p "$dir"
    pb_log "fetching async-profiler $v from Maven Central (cached in $dir)"
    curl -fsSL --max-time 120 -o "$jar.part" \
      "https://repo1.maven.org/maven2/tools/profiler/async-profiler/$v/async-profiler-$v.jar" \
      || pb_die "async-profiler: download failed"
    echo "$PB_ASYNC_PROFILER_SHA256  $jar.part" | sha256sum -c --quiet - >/dev/null 2>&1 \
      || { rm -f "$jar.part"; pb_die "async-profiler: the jar's SHA-256 is not the pinned one"; }
    mv "$jar.part" "$jar"
    (cd "$dir" && unzip -o -q "$jar" linux-x64/libasyncProfiler.so) || pb_die "async-profiler: unzip failed"
  fi
  printf '%s\n' "$lib"
}

# pb_buildah_env: exports the environment of hack/images' own buildah storage under $PB_CACHE/containers (its
# setup writes the files named here), for every script that runs buildah on those images
pb_buildah_env() {
  local d="$PB_CACHE/containers"
  export CONTAINERS_STORAGE_CONF="$d/storage.conf" CONTAINERS_CONF="$d/containers.conf" \
    CONTAINERS_REGISTRIES_CONF="$d/registries.conf" BUILDAH_ISOLATION=chroot TMPDIR="$d/tmp"
}

# pb_java: the JVM hack/provbench runs, as src/main/docker/provbench chooses it: JAVA_HOME's when set, else java on PATH
pb_java() { if [[ -n ${JAVA_HOME:-} && -x $JAVA_HOME/bin/java ]]; then echo "$JAVA_HOME/bin/java"; else echo java; fi; }

# pb_jar: builds the application once if it is missing, prints the jar path.
pb_jar() {
  if [[ ! -f "$PB_JAR" || -n "${PB_REBUILD:-}" ]]; then
    pb_log "building provbench (./mvnw package -DskipTests)"
    (cd "$PB_ROOT" && ./mvnw -B -q -DskipTests package >&2) || pb_die "build failed"
  fi
  printf '%s\n' "$PB_JAR"
}

# pb_wait_for_socket PATH PID SECONDS: waits until PATH is a socket; fails if PID dies or time runs out.
pb_wait_for_socket() {
  local path=$1 pid=$2 secs=$3 i
  for ((i = 0; i < secs * 10; i++)); do
    [[ -S "$path" ]] && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# pb_free_ports N: N distinct TCP ports that are free now on every address. They are drawn below the kernel's
# ephemeral range (net.ipv4.ip_local_port_range), so that a connection some process opens between the choice and
# the server's bind cannot take one as its local port. A port from bind(0) lies in that range; CI saw kube-apiserver
# fail on one with "address already in use". Falls back to bind(0) if the range leaves no room below it.
pb_free_ports() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
lo = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
chosen = []
for _ in range(2000 if lo > 21000 else 0):
    if len(chosen) == n:
        break
    p = random.randrange(20000, lo)
    if p in chosen:
        continue
    s = socket.socket()
    try:
        s.bind(("", p))  # the wildcard address: a socket bound to any address on p makes this fail
    except OSError:
        continue
    finally:
        s.close()
    chosen.append(p)
while len(chosen) < n:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    if p not in chosen:
        chosen.append(p)
print("\n".join(map(str, chosen)))
PY
}

# pb_free_port: one TCP port that is free now (see pb_free_ports).
pb_free_port() { pb_free_ports 1; }

# pb_wait_http URL PID SECONDS: waits until URL answers 2xx; fails if PID dies or time runs out.
pb_wait_http() {
  local url=$1 pid=$2 secs=$3 i
  for ((i = 0; i < secs * 10; i++)); do
    curl -fsS "$url" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# pb_stop PID [SECONDS]: SIGTERM, wait, then SIGKILL.
pb_stop() {
  local pid=$1 secs=${2:-10} i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  kill -CONT "$pid" 2>/dev/null || true # a paused process handles SIGTERM only once it runs again
  for ((i = 0; i < secs * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

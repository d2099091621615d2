#!/usr/bin/env bash
# Builds the real control-plane components from the Go module proxy at pinned versions, once, into
# ~/.cache/provbench/bin/<component>-<version>/. Used by hack/local-cluster.
#
#   hack/tools/build.sh [etcd|kube|node|coredns|csi-provisioner|csi-provisioner-static|pause|csi-sanity|benchstat|promtool|kube-burner|all]
#
# benchstat, promtool, kube-burner, csi-provisioner-static, pause and coredns print the binary's path (csi-provisioner-static and
# pause: for hack/images; coredns: for hack/local-node.sh).
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
KUBE_VERSION=${KUBE_VERSION:-v1.36.3}
PROVISIONER_VERSION=${PROVISIONER_VERSION:-v6.3.0}
SANITY_VERSION=${SANITY_VERSION:-v5.4.0}
# CoreDNS: the version its wrapper module (hack/tools/coredns: only the plugins the node's Corefile uses) requires
COREDNS_VERSION=$(sed -n 's|^require github.com/coredns/coredns \(v[^ ]*\)$|\1|p' "$PB_ROOT/hack/tools/coredns/go.mod")
# the peers the CI cross-checks run: benchstat (golang.org/x/perf, no tags: a pseudo-version) and promtool
BENCHSTAT_VERSION=${BENCHSTAT_VERSION:-v0.0.0-20260908200009-22c9c6c9d4da}
PROMTOOL_VERSION=${PROMTOOL_VERSION:-v0.316.0}
# the yardstick hack/bench/kube-burner-cost runs beside provbench (issue 27's "goal beyond")
KUBE_BURNER_VERSION=${KUBE_BURNER_VERSION:-v2.7.3}
TOOLS="$PB_ROOT/hack/tools"

build_etcd() {
  local out="$PB_BIN/etcd-$ETCD_VERSION"
  [[ -x "$out/etcd" ]] && return 0
  pb_log "building etcd $ETCD_VERSION"
  (cd "$TOOLS/etcd" && go build -trimpath -o "$out/etcd" go.etcd.io/etcd/server/v3) || pb_die "etcd build failed"
}

build_kube() {
  local out="$PB_BIN/kube-$KUBE_VERSION"
  [[ -x "$out/kube-apiserver" && -x "$out/kube-controller-manager" && -x "$out/kubectl" ]] && return 0
  pb_log "building kube-apiserver, kube-controller-manager, kubectl $KUBE_VERSION (takes a while on 2 cores)"
  mkdir -p "$out"
  (cd "$TOOLS/kube" && for c in kube-apiserver kube-controller-manager kubectl; do
      go build -trimpath -ldflags "-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION" \
        -o "$out/$c" "k8s.io/kubernetes/cmd/$c" || exit 1
    done) || pb_die "kubernetes build failed"
}

# build_module_source LABEL MODULE@VERSION COMMAND...: runs COMMAND (a build) in a writable copy of that module's
# source, fetched by version from the Go module proxy (which serves a version's files even where it does not list
# the module's versions, as `go install pkg@version` asks), and removes the copy
build_module_source() {
  local label=$1 module=$2 dir src
  shift 2
  dir=$(go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || dir=
  [[ -d "$dir" ]] || pb_die "could not download $module"
  src=$(mktemp -d /tmp/provbench-src.XXXXXX)
  cp -r "$dir/." "$src/" && chmod -R u+w "$src"
  (cd "$src" && "$@") || { rm -rf "$src"; pb_die "$label build failed"; }
  rm -rf "$src"
}

# build_provisioner: csi-provisioner, static (CGO off: one binary for hack/local-cluster's process and for the
# FROM-scratch image hack/images builds), into csi-provisioner-VERSION-static/
build_provisioner() {
  local out="$PB_BIN/csi-provisioner-$PROVISIONER_VERSION-static"
  [[ -x "$out/csi-provisioner" ]] && return 0
  pb_log "building csi-provisioner $PROVISIONER_VERSION (static)"
  build_module_source csi-provisioner "github.com/kubernetes-csi/external-provisioner/v6@$PROVISIONER_VERSION" \
    env CGO_ENABLED=0 go build -trimpath -mod=mod -ldflags "-X main.version=$PROVISIONER_VERSION" \
    -o "$out/csi-provisioner" ./cmd/csi-provisioner
}

# build_kube_burner: kube-burner at the pinned version, into kube-burner-VERSION/
build_kube_burner() {
  local out="$PB_BIN/kube-burner-$KUBE_BURNER_VERSION"
  [[ -x "$out/kube-burner" ]] && return 0
  pb_log "building kube-burner $KUBE_BURNER_VERSION"
  build_module_source kube-burner "github.com/kube-burner/kube-burner/v2@$KUBE_BURNER_VERSION" \
    go build -trimpath -mod=mod -o "$out/kube-burner" ./cmd/kube-burner
}

# build_node: what `hack/local-cluster up --node` adds: kubelet, kube-scheduler, kube-proxy (the same wrapper module
# and version as kube-apiserver) and CoreDNS (build_coredns)
build_node() {
  local out="$PB_BIN/kube-$KUBE_VERSION"
  if [[ ! -x "$out/kubelet" || ! -x "$out/kube-scheduler" || ! -x "$out/kube-proxy" ]]; then
    pb_log "building kubelet, kube-scheduler, kube-proxy $KUBE_VERSION (kubelet: ~8 min cold on 2 cores)"
    mkdir -p "$out"
    (cd "$TOOLS/kube" && for c in kubelet kube-scheduler kube-proxy; do
        go build -trimpath -ldflags "-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION" \
          -o "$out/$c" "k8s.io/kubernetes/cmd/$c" || exit 1
      done) || pb_die "kubelet/kube-scheduler/kube-proxy build failed"
  fi
  build_coredns >/dev/null
}

# build_coredns: CoreDNS from hack/tools/coredns (bind, errors, cache, template, kubernetes: not the cloud DNS
# plugins of the full build), cached by the hash of that module; prints the binary's path
build_coredns() {
  local hash out
  hash=$(cat "$TOOLS/coredns/main.go" "$TOOLS/coredns/go.mod" "$TOOLS/coredns/go.sum" | sha256sum | cut -c1-16)
  out="$PB_BIN/coredns-$COREDNS_VERSION-$hash"
  if [[ ! -x "$out/coredns" ]]; then
    pb_log "building CoreDNS $COREDNS_VERSION ($hash: the node's plugins only)"
    (cd "$TOOLS/coredns" && go build -trimpath -o "$out/coredns" .) || pb_die "CoreDNS build failed"
  fi
  printf '%s\n' "$out/coredns"
}

# build_pause: the pod sandbox's process (hack/tools/pause), static, cached by the hash of its source
build_pause() {
  local hash out
  hash=$(cat "$TOOLS/pause/main.go" "$TOOLS/pause/go.mod" | sha256sum | cut -c1-16)
  out="$PB_BIN/pause-$hash"
  if [[ ! -x "$out/pause" ]]; then
    pb_log "building pause ($hash)"
    (cd "$TOOLS/pause" && CGO_ENABLED=0 go build -trimpath -o "$out/pause" .) || pb_die "pause build failed"
  fi
  printf '%s\n' "$out/pause"
}

case "${1:-all}" in
  etcd) build_etcd ;;
  kube) build_kube ;;
  csi-provisioner) build_provisioner ;;
  csi-provisioner-static) build_provisioner; printf '%s\n' "$PB_BIN/csi-provisioner-$PROVISIONER_VERSION-static/csi-provisioner" ;;
  pause) build_pause ;;
  node) build_node ;;
  coredns) build_coredns ;;
  csi-sanity) pb_go_install csi-sanity "$SANITY_VERSION" "github.com/kubernetes-csi/csi-test/v5/cmd/csi-sanity@$SANITY_VERSION" >/dev/null ;;
  benchstat) pb_go_install benchstat "$BENCHSTAT_VERSION" "golang.org/x/perf/cmd/benchstat@$BENCHSTAT_VERSION" ;;
  # remove_all_sd: without the service-discovery plugins (cloud SDKs) that `check metrics` never uses — a
  # fraction of the build on 2 cores
  promtool) pb_go_install promtool "$PROMTOOL_VERSION" "github.com/prometheus/prometheus/cmd/promtool@$PROMTOOL_VERSION" remove_all_sd ;;
  kube-burner) build_kube_burner; printf '%s\n' "$PB_BIN/kube-burner-$KUBE_BURNER_VERSION/kube-burner" ;;
  all) build_etcd; build_provisioner; build_kube ;;
  *) pb_die "unknown component '$1' (etcd, kube, node, coredns, csi-provisioner, csi-provisioner-static, pause, csi-sanity, benchstat, promtool, kube-burner, all)" ;;
esac

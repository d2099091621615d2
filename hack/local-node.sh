# shellcheck shell=bash
# The node of `hack/local-cluster up --node` (sourced by hack/local-cluster): one real kubelet with containerd and
# runc, kube-scheduler, kube-proxy and CoreDNS beside the control plane, so that kubernetes/ runs as pods.
#
# Rules of this machine (it is not ours), and how they are kept:
#   - nothing leaves it: the node is a network namespace of its own (NODE_NS) joined to the host by one veth pair
#     (host NODE_HOST_IP, node NODE_IP); pods sit on a bridge inside that namespace (POD_CIDR). The host gets one
#     route to POD_CIDR through the veth and forwards nothing (its ip_forward stays as it is: 0 here); packets
#     between pods and the control plane are addressed to the host's own veth address. Forwarding, br_netfilter's
#     bridge-nf-call-iptables and kube-proxy's rules exist only inside the node's namespace; no masquerade.
#   - the host's kernel settings stay: containerd and kubelet run in a private mount namespace in which the three
#     /proc/sys files kubelet insists on (vm.overcommit_memory, kernel.panic, kernel.panic_on_oops) are files of
#     ours bind-mounted over the real ones, holding the values kubelet expects, so its protectKernelDefaults check
#     passes without writing anything; makeIPTablesUtilChains is off.
#   - down removes everything: processes by PID (and every process left in the node's cgroups), the network
#     namespace (with the bridge, the pods' veths and kube-proxy's rules in it), the host veth and route, the
#     cgroups under /provbench, containerd's and kubelet's state; the mounts of the private namespace end with its
#     last process. A snapshot of the host taken before `up` (kernel settings, ip_forward, firewall rules, mounts,
#     links, routes, network namespaces) is compared after `down`: a difference is named and exits 1.

COREDNS_VERSION=$(sed -n 's|^require github.com/coredns/coredns \(v[^ ]*\)$|\1|p' "$PB_ROOT/hack/tools/coredns/go.mod")
NODE_NS=provbench-node
NODE_NAME=provbench-node
NODE_HOST_IF=pbnode0
NODE_HOST_IP=10.77.255.1
NODE_IP=10.77.255.2
POD_CIDR=10.77.0.0/24
POD_GATEWAY=10.77.0.1
SERVICE_CIDR=10.0.0.0/24
CLUSTER_DNS=10.0.0.10
CGROUP_ROOT=provbench
CNI_BIN=${PB_CNI_BIN:-/usr/lib/cni}
NODE_COMPONENTS=(kube-scheduler coredns containerd kubelet kube-proxy)

# host_snapshot FILE: what `up --node` must leave as it found it
host_snapshot() {
  {
    echo "## kernel settings"
    for k in vm/overcommit_memory kernel/panic kernel/panic_on_oops net/ipv4/ip_forward net/ipv6/conf/all/forwarding \
      net/bridge/bridge-nf-call-iptables net/ipv4/conf/all/route_localnet; do
      printf '%s = %s\n' "$k" "$(cat "/proc/sys/$k" 2>/dev/null || echo absent)"
    done
    echo "## iptables"
    iptables-save 2>/dev/null | sed -e '/^#/d' -e 's/\[[0-9]*:[0-9]*\]//'
    echo "## ip6tables"
    ip6tables-save 2>/dev/null | sed -e '/^#/d' -e 's/\[[0-9]*:[0-9]*\]//'
    echo "## mounts"
    awk '{print $5, $9}' /proc/self/mountinfo | sort
    echo "## links"
    ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | sort
    echo "## routes"
    ip route show table all | sort
    echo "## network namespaces"
    ip netns list 2>/dev/null | sort
    echo "## cgroups named $CGROUP_ROOT"
    find /sys/fs/cgroup -maxdepth 2 -name "$CGROUP_ROOT" 2>/dev/null | sort
  }
}

node_install() {
  local need=() p
  command -v containerd >/dev/null || need+=(containerd)
  command -v runc >/dev/null || need+=(runc)
  [[ -x $CNI_BIN/bridge && -x $CNI_BIN/host-local && -x $CNI_BIN/loopback ]] || need+=(containernetworking-plugins)
  command -v iptables-save >/dev/null || need+=(iptables)
  command -v nsenter >/dev/null || need+=(util-linux)
  if ((${#need[@]})); then
    pb_log "installing ${need[*]} (apt)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null \
      || pb_die "could not install ${need[*]}"
  fi
  for p in containerd ctr runc nsenter unshare ip iptables-save; do
    command -v "$p" >/dev/null || pb_die "$p is needed for --node"
  done
}

node_network_up() {
  # `ip netns add` makes /run/netns (and a bind mount of it) the first time on a machine: down removes them then
  [[ -d /run/netns ]] || touch "$DIR/netns-dir-ours"
  mountpoint -q /run/netns 2>/dev/null || touch "$DIR/netns-mount-ours"
  ip netns add "$NODE_NS" || pb_die "ip netns add $NODE_NS failed (left over? hack/local-cluster down)"
  ip link add "$NODE_HOST_IF" type veth peer name eth0 netns "$NODE_NS"
  ip addr add "$NODE_HOST_IP/30" dev "$NODE_HOST_IF"
  ip link set "$NODE_HOST_IF" up
  ip route add "$POD_CIDR" via "$NODE_IP" dev "$NODE_HOST_IF"
  local in=(ip netns exec "$NODE_NS")
  "${in[@]}" ip addr add "$NODE_IP/30" dev eth0
  "${in[@]}" ip link set eth0 up
  "${in[@]}" ip link set lo up
  "${in[@]}" ip route add default via "$NODE_HOST_IP" dev eth0
  # inside the node's namespace only (per-namespace settings; the host's stay as they are)
  "${in[@]}" sysctl -qw net.ipv4.ip_forward=1
  "${in[@]}" sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null \
    || pb_log "note: net.bridge.bridge-nf-call-iptables is not settable in $NODE_NS (pod → Service → same-node pod may fail)"
}

node_cni_config() {
  mkdir -p "$DIR/node/cni/net.d" "$DIR/node/cni/ipam"
  cat >"$DIR/node/cni/net.d/10-provbench.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "provbench",
  "plugins": [
    {
      "type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": {"type": "host-local", "dataDir": "$DIR/node/cni/ipam",
               "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$POD_GATEWAY"}]],
               "routes": [{"dst": "0.0.0.0/0"}]}
    }
  ]
}
EOF
}

node_containerd_config() {
  local pause_ref=$1
  mkdir -p "$DIR/node/containerd/root" "$DIR/node/containerd/state"
  cat >"$DIR/node/containerd/config.toml" <<EOF
version = 2
root = "$DIR/node/containerd/root"
state = "$DIR/node/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.internal.v1.opt"]
[grpc]
  address = "$DIR/node/containerd.sock"
[ttrpc]
  address = "$DIR/node/containerd.ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$pause_ref"
  # without it every sandbox fails here ("can't get final child's PID from pipe"): root may not lower oom_score_adj
  restrict_oom_score_adj = true
  # the pods' network namespaces under containerd's state directory (removed at down), not in the host's /run/netns
  netns_mounts_under_state_dir = true
  enable_selinux = false
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN"
    conf_dir = "$DIR/node/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = ""
EOF
}

node_kubelet_config() {
  mkdir -p "$DIR/node/kubelet" "$DIR/node/pod-logs" "$DIR/node/sysctl"
  : >"$DIR/node/resolv.conf"
  cat >"$DIR/node/kubelet-config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $DIR/certs/ca.crt}
# only holders of a certificate of this cluster's CA reach it (the API server's kubelet client); on the node's
# address inside this machine only
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
# this machine kind's hierarchy is v1 (kubelet 1.36 refuses it unless told)
failCgroupV1: false
containerRuntimeEndpoint: unix://$DIR/node/containerd.sock
clusterDNS: [$CLUSTER_DNS]
clusterDomain: cluster.local
resolvConf: $DIR/node/resolv.conf
# check, never write, the kernel settings it wants (they are files of ours in its mount namespace)
protectKernelDefaults: true
makeIPTablesUtilChains: false
failSwapOn: false
podLogsDir: $DIR/node/pod-logs
evictionHard: {memory.available: 100Mi, nodefs.available: 2%, imagefs.available: 2%, nodefs.inodesFree: 2%}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
maxPods: 30
EOF
  # the values kubelet expects (pkg/kubelet/cm: vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1),
  # shown to it only; the host keeps its own
  echo 1 >"$DIR/node/sysctl/overcommit_memory"
  echo 10 >"$DIR/node/sysctl/panic"
  echo 1 >"$DIR/node/sysctl/panic_on_oops"
}

node_start_containerd() {
  start containerd nsenter --net="/run/netns/$NODE_NS" -- unshare --mount --propagation private -- sh -c '
    set -e
    mount --make-rshared /
    mount --bind "$1/overcommit_memory" /proc/sys/vm/overcommit_memory
    mount --bind "$1/panic" /proc/sys/kernel/panic
    mount --bind "$1/panic_on_oops" /proc/sys/kernel/panic_on_oops
    exec containerd --config "$2"' sh "$DIR/node/sysctl" "$DIR/node/containerd/config.toml"
  wait_for containerd 60 ctr --address "$DIR/node/containerd.sock" version
}

node_load_images() {
  local name ref archive names
  for name in provbench csi-provisioner pause; do
    ref=$("$PB_ROOT/hack/images" ref "$name")
    archive="$DIR/node/images/$name.tar"
    mkdir -p "$DIR/node/images"
    "$PB_ROOT/hack/images" archive "$name" "$archive"
    ctr --address "$DIR/node/containerd.sock" -n k8s.io images import --no-unpack=false "$archive" >/dev/null \
      || pb_die "ctr images import $name failed"
    # the list read whole first: `ctr … | grep -q` under pipefail fails at random when grep's early exit makes
    # ctr's next write a SIGPIPE (seen once in CI)
    names=$(ctr --address "$DIR/node/containerd.sock" -n k8s.io images ls -q)
    grep -qx "$ref" <<<"$names" || pb_die "$ref is not in containerd after import"
    rm -f "$archive"
  done
}

node_start_kubelet() {
  # kubelet's cgroup root must exist in every hierarchy (v1 here); node_down removes it
  local h
  for h in /sys/fs/cgroup/*/; do
    [[ -f ${h}cgroup.procs ]] && mkdir -p "$h$CGROUP_ROOT"
  done
  start kubelet nsenter --target "$(cat "$DIR/pids/containerd")" --mount --net -- \
    "$PB_BIN/kube-$KUBE_VERSION/kubelet" --config="$DIR/node/kubelet-config.yaml" \
    --kubeconfig="$DIR/kubelet.kubeconfig" --root-dir="$DIR/node/kubelet" --cert-dir="$DIR/node/kubelet/pki" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" -v=1
  local kubectl="$PB_BIN/kube-$KUBE_VERSION/kubectl --kubeconfig $DIR/admin.kubeconfig"
  wait_for kubelet 120 $kubectl wait --for=condition=Ready "node/$NODE_NAME" --timeout=1s
}

node_start_proxy() {
  start kube-proxy nsenter --net="/run/netns/$NODE_NS" -- "$PB_BIN/kube-$KUBE_VERSION/kube-proxy" \
    --kubeconfig="$DIR/kube-proxy.kubeconfig" --hostname-override="$NODE_NAME" --proxy-mode=iptables \
    --cluster-cidr="$POD_CIDR" --nodeport-addresses=primary --iptables-localhost-nodeports=false \
    --conntrack-max-per-core=0 --conntrack-tcp-timeout-established=0 \
    --conntrack-tcp-timeout-close-wait=0 --healthz-bind-address=127.0.0.1:10256 --metrics-bind-address=127.0.0.1:10249
  wait_for kube-proxy 60 nsenter --net="/run/netns/$NODE_NS" -- curl -sf http://127.0.0.1:10256/healthz
}

node_start_dns() {
  local kubectl="$PB_BIN/kube-$KUBE_VERSION/kubectl --kubeconfig $DIR/admin.kubeconfig"
  cat >"$DIR/node/Corefile" <<EOF
cluster.local:53 in-addr.arpa:53 ip6.arpa:53 {
    bind $NODE_HOST_IP
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $DIR/coredns.kubeconfig
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
    cache 5
}
# no name outside the cluster is answered: nothing leaves this machine
.:53 {
    bind $NODE_HOST_IP
    template ANY ANY {
        rcode REFUSED
    }
}
EOF
  local coredns
  coredns=$("$PB_ROOT/hack/tools/build.sh" coredns) || return 1
  start coredns "$coredns" -conf "$DIR/node/Corefile"
  # the Service kube-dns at $CLUSTER_DNS, its endpoint CoreDNS on the host's veth address (no pod of its own)
  $kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: $CLUSTER_DNS
  ports:
  - {name: dns, port: 53, protocol: UDP, targetPort: 53}
  - {name: dns-tcp, port: 53, protocol: TCP, targetPort: 53}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kube-dns-host
  namespace: kube-system
  labels: {kubernetes.io/service-name: kube-dns, endpointslice.kubernetes.io/managed-by: provbench.dev}
addressType: IPv4
ports:
- {name: dns, port: 53, protocol: UDP}
- {name: dns-tcp, port: 53, protocol: TCP}
endpoints:
- addresses: [$NODE_HOST_IP]
EOF
  sleep 1
  running coredns || fail_component coredns "exited at start"
}

# node_up: after etcd and kube-apiserver (started with the node's flags) and kube-controller-manager
node_up() {
  mkdir -p "$DIR/node"
  local kubectl="$PB_BIN/kube-$KUBE_VERSION/kubectl --kubeconfig $DIR/admin.kubeconfig"
  pb_log "kube-scheduler $KUBE_VERSION"
  start kube-scheduler "$PB_BIN/kube-$KUBE_VERSION/kube-scheduler" --kubeconfig="$DIR/scheduler.kubeconfig" \
    --leader-elect=false --secure-port=0
  sleep 1
  running kube-scheduler || fail_component kube-scheduler "exited at start"
  pb_log "CoreDNS $COREDNS_VERSION on $NODE_HOST_IP:53 (Service kube-dns $CLUSTER_DNS)"
  node_start_dns
  pb_log "containerd $(containerd --version | awk '{print $3}') in $NODE_NS"
  node_cni_config
  node_containerd_config "$("$PB_ROOT/hack/images" ref pause)"
  node_kubelet_config
  node_start_containerd
  pb_log "images into containerd (hack/images)"
  node_load_images
  pb_log "kubelet $KUBE_VERSION (node $NODE_NAME, $NODE_IP)"
  node_start_kubelet
  # after the kubelet: kube-proxy waits for its Node object
  pb_log "kube-proxy (iptables, inside $NODE_NS)"
  node_start_proxy
}

# node_down: every process of the node by PID, then whatever is left in its cgroups, the namespace, the veth,
# the cgroups; then the host is compared with its snapshot
node_down() {
  local c pid
  for c in kubelet kube-proxy; do
    if [[ -f "$DIR/pids/$c" ]]; then pb_stop "$(cat "$DIR/pids/$c")" 15; rm -f "$DIR/pids/$c"; fi
  done
  if [[ -f "$DIR/pids/containerd" ]] && kill -0 "$(cat "$DIR/pids/containerd")" 2>/dev/null; then
    # the pods' containers and shims end before containerd does
    local ctr=(ctr --address "$DIR/node/containerd.sock" -n k8s.io)
    for t in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks kill -s KILL "$t" >/dev/null 2>&1 || true; done
    sleep 1
    for t in $("${ctr[@]}" tasks ls -q 2>/dev/null); do "${ctr[@]}" tasks delete -f "$t" >/dev/null 2>&1 || true; done
    pb_stop "$(cat "$DIR/pids/containerd")" 15
  fi
  rm -f "$DIR/pids/containerd"
  # anything still in the node's cgroups (shims, containers): killed, then the cgroups removed, deepest first
  local d tries
  for tries in 1 2 3 4 5; do
    local left=0
    while read -r pid; do
      [[ -n $pid ]] && { kill -KILL "$pid" 2>/dev/null || true; left=1; }
    done < <(find /sys/fs/cgroup -path "*/$CGROUP_ROOT/*" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u)
    ((left)) || break
    sleep 0.5
  done
  while read -r d; do rmdir "$d" 2>/dev/null || true; done \
    < <(find /sys/fs/cgroup -depth -type d -path "*/$CGROUP_ROOT*" 2>/dev/null)
  for c in coredns kube-scheduler; do
    if [[ -f "$DIR/pids/$c" ]]; then pb_stop "$(cat "$DIR/pids/$c")" 15; rm -f "$DIR/pids/$c"; fi
  done
}

# node_network_down: after the control plane stopped (kube-apiserver listens on the host's veth address)
node_network_down() {
  ip netns del "$NODE_NS" 2>/dev/null || true
  ip link del "$NODE_HOST_IF" 2>/dev/null || true
  # what `ip netns add` made of /run/netns, if up's was the first (and no other namespace is there now)
  if [[ -f "$DIR/netns-mount-ours" && -z $(ls -A /run/netns 2>/dev/null) ]]; then
    umount /run/netns 2>/dev/null || true
  fi
  if [[ -f "$DIR/netns-dir-ours" && -z $(ls -A /run/netns 2>/dev/null) ]]; then
    rmdir /run/netns 2>/dev/null || true
  fi
  rm -f "$DIR/netns-mount-ours" "$DIR/netns-dir-ours"
  rm -rf "$DIR/node"
  return 0
}

# node_check_host: the host as it was before `up --node`; exit 1 naming what differs
node_check_host() {
  [[ -f "$DIR/host-before" ]] || return 0
  host_snapshot >"$DIR/host-after"
  if ! diff -u "$DIR/host-before" "$DIR/host-after" >"$DIR/host-diff"; then
    pb_log "down: the host differs from before \`up --node\` ($DIR/host-diff):"
    cat "$DIR/host-diff" >&2
    return 1
  fi
  pb_log "down: kernel settings, ip_forward, firewall rules, mounts, links, routes and namespaces as before up"
}

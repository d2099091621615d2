#!/usr/bin/env bash
# The 2020 table (kubernetes-csi/external-provisioner PR #447), reproduced on the real pipeline:
# csi-provisioner at --kube-api-qps/--kube-api-burst 5/10, 10/20, 25/50, 50/100, 64 workers, DURATION each,
# against hack/local-cluster (a fresh cluster per setting), once with the load driver's own client at
# client-go's default 5/10 (as in 2020) and once with it unlimited. Writes docs/results/provisioner-qps.md
# and keeps the JSON reports in target/provisioner-qps/.
#
#   hack/bench/provisioner-qps.sh [DURATION=2m] [SETTINGS="5/10 10/20 25/50 50/100"] [LOADS="5/10 unlimited"]
set -euo pipefail
source "$(dirname "$0")/../lib.sh"
duration=${1:-2m}
settings=${2:-"5/10 10/20 25/50 50/100"}
loads=${3:-"5/10 unlimited"}
jar=$(pb_jar)
outdir="$PB_ROOT/target/provisioner-qps"
mkdir -p "$outdir"
trap '"$PB_ROOT/hack/local-cluster" down || true' EXIT
for load in $loads; do
  if [[ $load == unlimited ]]; then lq=-1 lb=0; else lq=${load%/*} lb=${load#*/}; fi
  mkdir -p "$outdir/load-${load/\//-}"
  for s in $settings; do
    q=${s%/*} b=${s#*/}
    "$PB_ROOT/hack/local-cluster" up --qps "$q" --burst "$b"
    eval "$("$PB_ROOT/hack/local-cluster" env)"
    pb_log "run: provisioner qps/burst $q/$b, load driver $load, 64 workers, $duration"
    java -jar "$jar" run --storage-class "$PROVBENCH_STORAGE_CLASS" --duration "$duration" --threads 64 \
      --qps "$lq" --burst "$lb" \
      --provisioner-log "$PROVBENCH_PROVISIONER_LOG" --provisioner-metrics "$PROVBENCH_PROVISIONER_METRICS" \
      --driver-url "$PROVBENCH_DRIVER_URL" --audit-log "$PROVBENCH_AUDIT_LOG" \
      --format json --out "$outdir/load-${load/\//-}/$q-$b.json" > /dev/null 2> "$outdir/load-${load/\//-}/$q-$b.log"
    "$PB_ROOT/hack/local-cluster" down
  done
done
trap - EXIT
python3 - "$outdir" "$duration" "$settings" "$PB_ROOT/docs/results/provisioner-qps.md" "$loads" <<'PY'
import json, sys, os, datetime, subprocess
outdir, duration, settings, dest, loads = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4], sys.argv[5].split()
ref = {"5/10": (728, 2.435, "1780"), "10/20": (1404, 4.69, ""), "25/50": (1666, 5.57, ""), "50/100": (1703, 5.696, "0")}
def table(load):
  rows = []
  for s in settings:
    r = json.load(open(os.path.join(outdir, "load-" + load.replace("/", "-"), s.replace("/", "-") + ".json")))
    o = r["ops"]; c = r.get("components") or {}
    def per_cycle(name):
        v = c.get(name, {}).get("perOp")
        return "n/a" if v is None else f"{2 * v:.1f}"
    lines = (r.get("provisioner") or {}).get("throttlingLines")
    rr = ref.get(s, ("", "", ""))
    rows.append(f"| {s} | {o['creates'] + o['deletes']} | {o['opsPerSecond']:.3f} | {lines} | "
                f"{r['throttling']['throttled']} | "
                f"{per_cycle('provbench (load driver)')} | {per_cycle('csi-provisioner')} | "
                f"{per_cycle('kube-controller-manager')} | {r['latency']['create']['pipeline']['p50'] / 1000:.1f} / "
                f"{r['latency']['delete']['pipeline']['p50'] / 1000:.1f} | {o['failures']} | {rr[0]} | {rr[1]} | {rr[2]} |")
  head = ("| provisioner qps/burst | ops | ops/s | provisioner throttling lines | load driver throttled requests | "
          "requests/cycle: load driver | requests/cycle: csi-provisioner | requests/cycle: kube-controller-manager | "
          "create / delete pipeline p50 (s) | failures | 2020 ops (5 min) | 2020 ops/s | 2020 throttling lines |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
  title = ("Load driver at client-go's default 5/10 (as in 2020)" if load == "5/10"
           else "Load driver unlimited (--qps -1): only csi-provisioner's bucket limits" if load == "unlimited"
           else "Load driver at " + load)
  return f"### {title}\n\n" + head + "\n".join(rows) + "\n"
cpu = subprocess.run(["sh", "-c", "nproc"], capture_output=True, text=True).stdout.strip()
with open(dest, "w") as f:
    f.write(f"""# csi-provisioner QPS/burst vs throughput — the 2020 table, reproduced

Produced by

```bash
hack/bench/provisioner-qps.sh {duration}
```

on {datetime.date.today().isoformat()}, a {cpu}-core machine: the real etcd v3.6.16, kube-apiserver and
kube-controller-manager v1.36.3 (PV binder and protection controllers only, QPS 1000/2000), csi-provisioner
v6.3.0 with the given `--kube-api-qps/--kube-api-burst`, and `provbench driver` (answers at once), all on
127.0.0.1 (`hack/local-cluster`); `provbench run` with 64 workers for {duration} per setting, a fresh cluster
per setting; the load driver's own client once at client-go's default 5/10 and once unlimited.
JSON reports: `target/provisioner-qps/`.

- **ops** = PVC creates (to Bound) + deletes (to PV gone) completed in the window; **ops/s** = ops / window.
- **throttling lines** = csi-provisioner log lines (`-v=3`) reporting client-side throttling in the window.
- **requests per cycle** = API requests in the window from the apiserver's audit log, by client identity,
  divided by completed cycles (ops / 2).
- The 2020 columns are from kubernetes-csi/external-provisioner PR #447 (5 minutes, 64 threads, other
  hardware, client-go of 2020 with GETs instead of a PV lister): compare the shape, not the numbers.

""" + "\n".join(table(l) for l in loads))
print(open(dest).read())
PY

"""The PVC ops a client completed, by kube-apiserver's audit log (for hack/bench/tool-cost and kube-burner-cost).

python3 audit_ops.py AUDIT_SLICE WHO START_NS FROM_MS TO_MS prints "ALL FROM_TO": the claims' creates and deletes
answered 2xx to WHO ("user=NAME": that authenticated user; "agent=PREFIX": a user agent starting so) in the slice
of the log the run wrote, and of them those whose answer came FROM_MS to TO_MS milliseconds after START_NS (epoch
ns).
"""
import datetime
import json
import sys

path, who, start_ns = sys.argv[1], sys.argv[2], int(sys.argv[3])
lo, hi = float(sys.argv[4]) / 1000, float(sys.argv[5]) / 1000
kind, _, value = who.partition("=")
if kind not in ("user", "agent") or not value:
    sys.exit("WHO must be user=NAME or agent=PREFIX")
total = part = 0
with open(path, encoding="utf-8", errors="replace") as f:
    for line in f:
        try:
            e = json.loads(line)
        except ValueError:
            continue  # a line cut at the slice's start
        o = e.get("objectRef") or {}
        if (e.get("stage") != "ResponseComplete" or o.get("resource") != "persistentvolumeclaims"
                or o.get("subresource") or e.get("verb") not in ("create", "delete")
                or not 200 <= (e.get("responseStatus") or {}).get("code", 0) < 300):
            continue
        if kind == "user" and (e.get("user") or {}).get("username") != value:
            continue
        if kind == "agent" and not e.get("userAgent", "").startswith(value):
            continue
        total += 1
        at = datetime.datetime.fromisoformat(e["stageTimestamp"].replace("Z", "+00:00")).timestamp() - start_ns / 1e9
        part += lo <= at <= hi
print(total, part)

#!/usr/bin/env bash
# Checks deploy/observability/ with Prometheus's own promtool (Debian's `prometheus`
# package, installed here when missing): the alert rules, the Prometheus configuration,
# the alerts' unit tests (alerts-test.yml: each fires on the series it is about and not on a
# healthy system), and every query of the Grafana dashboard, parsed as PromQL. That every
# metric these name is exported by a running worker is Tests/EndToEndTests/ObservabilityTests.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v promtool >/dev/null; then
  echo "check-observability: installing Debian's prometheus package for promtool" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
dir=deploy/observability
promtool check rules "$dir/alerts.yml"
promtool check config "$dir/prometheus.yml"

# The dashboard: valid JSON, and each panel's query valid PromQL (as a recording rule, with
# Grafana's $__rate_interval given a value).
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 - "$dir/grafana-dashboard.json" "$tmp/dashboard-rules.yml" <<'EOF'
import json, sys
dashboard = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
assert exprs, "the dashboard has no queries"
with open(sys.argv[2], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, expr in enumerate(exprs):
        expr = expr.replace("$__rate_interval", "5m")
        out.write(f"      - record: dashboard:query{i}\n        expr: {json.dumps(expr)}\n")
EOF
promtool check rules "$tmp/dashboard-rules.yml"

#!/usr/bin/env bash
# What can be checked of deploy/ on a machine that cannot build or run containers (CI runs
# this; deploy/README.md says what it covers and what it does not):
#   1. hadolint on the Dockerfile, kubernetes-validate (strict) on the manifests, the compose
#      file against the compose-spec schema, promtool on the Prometheus config and on every
#      PromQL expression of the Grafana dashboard, nginx -t on the proxy config;
#   2. the Dockerfile's own install steps (build-wheels.sh, then install-wheels.sh with no
#      index) in fresh venvs, then the installed `referee serve` on PostgreSQL answering
#      `referee health`, as the image's HEALTHCHECK asks it.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="${TMPDIR:-/tmp}/referee-deploy-check"
rm -rf "$WORK" && mkdir -p "$WORK"

echo "== linters"
python3 -m venv "$WORK/lint"
"$WORK/lint/bin/pip" install --quiet -r deploy/lint-requirements.txt
"$WORK/lint/bin/hadolint" deploy/Dockerfile
"$WORK/lint/bin/kubernetes-validate" --strict deploy/kubernetes/*.yaml
"$WORK/lint/bin/check-jsonschema" --builtin-schema vendor.compose-spec deploy/compose.yaml
promtool check config deploy/prometheus/prometheus.yml
# Every dashboard query, as recording rules, so promtool parses its PromQL.
"$WORK/lint/bin/python" - deploy/grafana/dashboards/referee.json "$WORK/dashboard-rules.yml" <<'PY'
import json, sys
dashboard = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
rules = "\n".join(
    f"      - record: dashboard:query{i}\n        expr: {json.dumps(e)}" for i, e in enumerate(exprs)
)
open(sys.argv[2], "w").write(f"groups:\n  - name: dashboard\n    rules:\n{rules}\n")
print(f"{len(exprs)} dashboard queries")
PY
promtool check rules "$WORK/dashboard-rules.yml"
# The proxy config as nginx reads it (compose service names -> loopback, which resolves).
sed -e 's/referee-[0-9]:/127.0.0.1:/' -e 's#^pid .*#pid '"$WORK"'/nginx.pid;#' \
  deploy/nginx/nginx.conf > "$WORK/nginx.conf"
"$(command -v nginx || echo /usr/sbin/nginx)" -t -q -c "$WORK/nginx.conf" -g "error_log $WORK/nginx-error.log;"

echo "== the Dockerfile's install steps in fresh venvs"
python3 -m venv "$WORK/build"
PATH="$WORK/build/bin:$PATH" sh deploy/build-wheels.sh . "$WORK/wheels"
python3 -m venv "$WORK/runtime"
(cd "$WORK" && PATH="$WORK/runtime/bin:$PATH" sh "$OLDPWD/deploy/install-wheels.sh" "$WORK/wheels")

echo "== the installed referee serves on PostgreSQL and answers the health check"
ADMIN="${REFEREE_TEST_POSTGRES:-postgresql://postgres@127.0.0.1:5432/postgres}"
DB="referee_deploy_check_$$"
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  "$WORK/runtime/bin/python" -c 'import sys, psycopg; c = psycopg.connect(sys.argv[1], autocommit=True); c.execute("DROP DATABASE IF EXISTS " + sys.argv[2] + " WITH (FORCE)")' "$ADMIN" "$DB" || true
}
trap cleanup EXIT
"$WORK/runtime/bin/python" -c 'import sys, psycopg; c = psycopg.connect(sys.argv[1], autocommit=True); c.execute("CREATE DATABASE " + sys.argv[2])' "$ADMIN" "$DB"
STORE="${ADMIN%/*}/$DB"  # the admin URL with the new database's name
PORT=$("$WORK/runtime/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$WORK" && REFEREE_STORE="$STORE" REFEREE_LISTEN="127.0.0.1:$PORT" REFEREE_METRICS="" \
  exec "$WORK/runtime/bin/referee" serve > "$WORK/serve.log" 2>&1) &
SERVER=$!
for _ in $(seq 1 100); do
  if "$WORK/runtime/bin/referee" health --address "127.0.0.1:$PORT" --timeout 1 2>/dev/null; then
    echo "deploy/check.sh: all checks passed"
    exit 0
  fi
  sleep 0.3
done
cat "$WORK/serve.log" >&2
echo "deploy/check.sh: the installed referee did not become healthy" >&2
exit 1

#!/bin/sh
# Run pytest on PATHS (of tests/) with the Python of VENV, where the compiled build is
# installed (`make compiled`), from a temporary folder that holds links to tests/ and the
# suite's configuration but no referee/: run from the checkout, pytest would put it first on
# sys.path and the tests would import the working tree's pure source. REFEREE_EXPECT_BUILD
# makes the suite refuse to start on any other build (conftest.py). The tests listed in
# pure-only-tests.txt (what only the pure source does, each with its reason) are left out.
set -eu
VENV=${1:?usage: test.sh VENV PATH...}
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=$(cd "$VENV" && pwd)
RUN=$(mktemp -d)
trap 'rm -rf "$RUN"' EXIT
ln -s "$ROOT/tests" "$RUN/tests"
cp "$ROOT/conftest.py" "$ROOT/pyproject.toml" "$RUN/"
deselect=$(grep -v -e '^#' -e '^$' "$ROOT/deploy/compiled/pure-only-tests.txt" | sed 's/^/--deselect=/')
cd "$RUN"
# shellcheck disable=SC2086 # one --deselect=ID a word (node ids hold no spaces)
REFEREE_EXPECT_BUILD=compiled "$VENV/bin/python" -m pytest -p no:cacheprovider $deselect "$@"

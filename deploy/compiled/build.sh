#!/bin/sh
# Build a wheel from the working tree at SRC into the folder OUT (its copy of the source in
# OUT/src, the wheel in OUT/dist), with PYTHON (whose environment has setuptools, and mypy,
# which brings mypyc, for the compiled one). KIND is `compiled` (the default: with
# deploy/compiled/setup.py, the compiled build) or `pure` (pyproject.toml alone: the pure
# source). Never in place: `make compiled` and `make wheels` run this; so does
# tests/test_compiled.py, into a temporary folder, with REFEREE_MYPYC_OPT=0 (a quicker C build
# of the same code). Either wheel carries the rules pages (docs/rules) and the built web client
# (clients/web/dist, `make web`) as package data, in referee/_shipped (referee/shipped.py).
set -eu
SRC=${1:?usage: build.sh SRC OUT PYTHON [compiled|pure]}
OUT=${2:?usage: build.sh SRC OUT PYTHON [compiled|pure]}
PYTHON=${3:?usage: build.sh SRC OUT PYTHON [compiled|pure]}
KIND=${4:-compiled}
rm -rf "$OUT/src" "$OUT/dist"
mkdir -p "$OUT/src"
# Tracked and new files as they are now (uncommitted edits included), nothing ignored.
(cd "$SRC" && git ls-files -co --exclude-standard -- referee clients docs/rules pyproject.toml README.md LICENSE) \
  | (cd "$SRC" && tar -cf - -T -) | tar -xf - -C "$OUT/src"
mkdir -p "$OUT/src/referee/_shipped"
mv "$OUT/src/docs/rules" "$OUT/src/referee/_shipped/rules"
if [ -f "$SRC/clients/web/dist/index.html" ]; then
  cp -R "$SRC/clients/web/dist" "$OUT/src/referee/_shipped/web"
else
  echo "build.sh: no web client built in $SRC/clients/web/dist (make web): the wheel's server will say so at /" >&2
fi
case $KIND in
  compiled) cp "$SRC/deploy/compiled/setup.py" "$OUT/src/setup.py" ;;
  pure) ;;
  *) echo "build.sh: KIND is compiled or pure, not $KIND" >&2; exit 2 ;;
esac
OUT_ABS=$(cd "$OUT" && pwd)
cd "$OUT/src" && "$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation -w "$OUT_ABS/dist" .

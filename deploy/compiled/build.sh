#!/bin/sh
# Build a wheel from the working tree at SRC into the folder OUT (its copy of the source in
# OUT/src, the wheel in OUT/dist), with PYTHON (whose environment has setuptools, and mypy,
# which brings mypyc, for the compiled one). KIND is `compiled` (the default: with
# deploy/compiled/setup.py, the compiled build) or `pure` (pyproject.toml alone: the pure
# source). Never in place: `make compiled` and `make wheels` run this; so does
# tests/test_compiled.py, into a temporary folder, with REFEREE_MYPYC_OPT=0 (a quicker C build
# of the same code).
set -eu
SRC=${1:?usage: build.sh SRC OUT PYTHON [compiled|pure]}
OUT=${2:?usage: build.sh SRC OUT PYTHON [compiled|pure]}
PYTHON=${3:?usage: build.sh SRC OUT PYTHON [compiled|pure]}
KIND=${4:-compiled}
rm -rf "$OUT/src" "$OUT/dist"
mkdir -p "$OUT/src"
# Tracked and new files as they are now (uncommitted edits included), nothing ignored.
(cd "$SRC" && git ls-files -co --exclude-standard -- referee clients pyproject.toml README.md LICENSE) \
  | (cd "$SRC" && tar -cf - -T -) | tar -xf - -C "$OUT/src"
case $KIND in
  compiled) cp "$SRC/deploy/compiled/setup.py" "$OUT/src/setup.py" ;;
  pure) ;;
  *) echo "build.sh: KIND is compiled or pure, not $KIND" >&2; exit 2 ;;
esac
OUT_ABS=$(cd "$OUT" && pwd)
cd "$OUT/src" && "$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation -w "$OUT_ABS/dist" .

#!/bin/sh
# Build the compiled wheel (deploy/compiled/setup.py) from the working tree at SRC into the
# folder OUT (its copy of the source in OUT/src, the wheel in OUT/dist), with PYTHON (whose
# environment has mypy, which brings mypyc, and setuptools). Never in place: `make compiled`
# runs this; so does tests/test_compiled.py, into a temporary folder, with REFEREE_MYPYC_OPT=0
# (a quicker C build of the same code).
set -eu
SRC=${1:?usage: build.sh SRC OUT PYTHON}
OUT=${2:?usage: build.sh SRC OUT PYTHON}
PYTHON=${3:?usage: build.sh SRC OUT PYTHON}
rm -rf "$OUT/src" "$OUT/dist"
mkdir -p "$OUT/src"
# Tracked and new files as they are now (uncommitted edits included), nothing ignored.
(cd "$SRC" && git ls-files -co --exclude-standard -- referee clients pyproject.toml README.md LICENSE) \
  | (cd "$SRC" && tar -cf - -T -) | tar -xf - -C "$OUT/src"
cp "$SRC/deploy/compiled/setup.py" "$OUT/src/setup.py"
OUT_ABS=$(cd "$OUT" && pwd)
cd "$OUT/src" && "$PYTHON" -m pip wheel --quiet --no-deps --no-build-isolation -w "$OUT_ABS/dist" .

#!/bin/sh
# Build the referee's wheel and a wheel of every dependency (exact versions from
# constraints.txt) into WHEELS, from the source tree SRC. The Dockerfile's build stage runs
# this; so does CI (.ci/run), in a fresh venv, to check the image's install steps here.
set -eu
SRC=${1:?usage: build-wheels.sh SRC WHEELS}
WHEELS=${2:?usage: build-wheels.sh SRC WHEELS}
# Only what the service needs: the package with its `postgres` extra, no dev tools.
python -m pip wheel --no-cache-dir --quiet -c "$SRC/constraints.txt" -w "$WHEELS" "$SRC[postgres]"
ls "$WHEELS"

#!/bin/sh
# Install the referee from the wheels build-wheels.sh made, with no index: the runtime stage
# of the Dockerfile needs neither network nor compilers. CI runs it in a fresh venv too.
set -eu
WHEELS=${1:?usage: install-wheels.sh WHEELS}
python -m pip install --no-cache-dir --quiet --no-index --find-links "$WHEELS" "game-referee[postgres]"
referee --version

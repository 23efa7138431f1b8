#!/bin/sh
# Installs what Greenroom needs on a fresh Debian machine, and nothing that is already there:
# apt: libuv1-dev, libjansson-dev, pkg-config, socat (and jq for the shell tour);
# pip: the Python client (editable) and its test dependencies.
set -eu
cd "$(dirname "$0")/.."

missing=""
for pkg in libuv1-dev libjansson-dev pkg-config socat jq; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
done
if [ -n "$missing" ]; then
    echo "install-deps: apt-get install$missing" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

PY=${PYTHON:-python3}
stamp=.build/.pip-deps-stamp
if [ ! -f "$stamp" ] || [ clients/python/pyproject.toml -nt "$stamp" ] || [ clients/python/requirements-dev.txt -nt "$stamp" ] \
   || ! "$PY" -c "import greenroom, jsonschema, pytest" >/dev/null 2>&1; then
    echo "install-deps: pip install the Python client and test dependencies" >&2
    "$PY" -m pip install -q --disable-pip-version-check -e clients/python -r clients/python/requirements-dev.txt
    mkdir -p .build && touch "$stamp"
fi

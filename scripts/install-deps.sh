#!/bin/sh
# Installs what Greenroom needs on a fresh Debian machine, and nothing that is already there.
#
#   install-deps.sh build   the C libraries the host links (apt) — all that `make run` needs: libuv,
#                           Jansson, wslay (WebSocket frames) and nettle (the handshake's SHA-1, base64)
#   install-deps.sh test    the above, plus the test tools (apt; chromium runs the JavaScript client's
#                           tests) and a project virtual environment (.venv/) holding the Python client
#                           and its test dependencies
#
# Python packages go into .venv/ only, never into the system's or the user's interpreter (Debian's
# python3 refuses them anyway: PEP 668, "externally-managed-environment").
set -eu
cd "$(dirname "$0")/.."
what=${1:-build}

apt_install() {
    missing=""
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || missing="$missing $pkg"
    done
    [ -n "$missing" ] || return 0
    echo "install-deps: apt-get install$missing" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

apt_install libuv1-dev libjansson-dev libwslay-dev nettle-dev pkg-config
[ "$what" = build ] && exit 0

# nodejs runs the web pages' logic tests (node --test tests/js); node-typescript's tsc type-checks
# clients/js/greenroom.d.ts there (tests/js/greenroom_dts.test.mjs); chromium runs the browser tests.
apt_install socat jq python3-venv shellcheck nodejs node-typescript chromium
VENV=${VENV:-.venv}
PY=${PYTHON:-python3}
stamp="$VENV/.greenroom-deps"
if [ ! -x "$VENV/bin/python" ]; then
    echo "install-deps: $PY -m venv $VENV" >&2
    "$PY" -m venv "$VENV"
fi
if [ ! -f "$stamp" ] || [ clients/python/pyproject.toml -nt "$stamp" ] \
   || [ clients/python/requirements-dev.txt -nt "$stamp" ]; then
    echo "install-deps: pip install the Python client and test dependencies into $VENV" >&2
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
        -e clients/python -r clients/python/requirements-dev.txt
    touch "$stamp"
fi

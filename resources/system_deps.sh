#!/usr/bin/env bash
# Installs the Debian packages SOP Studio needs for one purpose (python | test | gui), when it can.
# As root it uses apt-get; with password-less sudo it uses sudo; otherwise it prints what to install.
set -u
purpose="${1:-test}"
case "$purpose" in
  python) pkgs="python3 python3-venv python3-pip" ;;
  test)   pkgs="libegl1 libgl1 libglib2.0-0 libdbus-1-3 libfontconfig1 libxkbcommon0 libxrender1" ;;
  gui)    pkgs="libegl1 libgl1 libglib2.0-0 libdbus-1-3 libfontconfig1 libxkbcommon0 libxrender1
                xvfb xauth libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
                libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0" ;;
  *) echo "system_deps.sh: unknown purpose '$purpose'" >&2; exit 2 ;;
esac

command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian-like: nothing we can check

missing=""
for p in $pkgs; do
  if [ "$p" = python3-venv ]; then
    # A Python built outside Debian (pyenv, python.org) brings its own venv/ensurepip.
    python3 -c "import ensurepip, venv" >/dev/null 2>&1 && continue
  fi
  if [ "$p" = python3 ] || [ "$p" = python3-pip ]; then
    command -v python3 >/dev/null 2>&1 && continue
  fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"
else
  echo "SOP Studio needs these system packages; please run: sudo apt-get install$missing" >&2
  exit 0
fi
echo "Installing system packages:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null 2>&1 || true
$sudo apt-get install -y -qq $missing >/dev/null || \
  echo "apt-get could not install:$missing (continuing; Qt may fail to start)" >&2

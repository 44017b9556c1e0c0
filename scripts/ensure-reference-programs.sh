#!/usr/bin/env bash
# The tests hold our tools to the real programs (differential tests) and drive Debian's Chromium.
# Installs, with one apt-get line, whichever of them is missing on this machine; otherwise does nothing.
set -euo pipefail
declare -A needs=(
  [/usr/bin/chromium]=chromium
  [/usr/bin/jq]=jq
  [/usr/bin/gawk]=gawk
  [/usr/bin/rg]=ripgrep
  [/usr/bin/patch]=patch
  [/usr/bin/git]=git
  [/usr/lib/python3/dist-packages/pytest]=python3-pytest
)
missing=()
for path in "${!needs[@]}"; do
  [ -e "$path" ] || missing+=("${needs[$path]}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "Installing the reference programs the tests need: ${missing[*]}" >&2
$SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}"

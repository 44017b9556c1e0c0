#!/usr/bin/env bash
# The end-to-end tests drive Debian's Chromium at /usr/bin/chromium (Playwright's own browser
# download is not available here). Installs it when it is missing; otherwise does nothing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "Chromium is missing: installing it with apt-get (needed by npm run test:e2e)." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium

#!/usr/bin/env bash
# Installs Debian's chromium when it is missing (browser tests drive it through playwright-core;
# no prebuilt browser is downloaded). Idempotent; needs root or sudo on Debian.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version

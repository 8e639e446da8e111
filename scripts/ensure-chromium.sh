#!/usr/bin/env bash
# Installs Debian's chromium when it is missing (browser tests drive it through playwright-core;
# no prebuilt browser is downloaded). Idempotent; needs root or password-less sudo on Debian.
#
# One install at a time on the machine: the script holds a lock for its whole run, so a second
# caller waits for the first and then finds chromium installed (three apt-gets at once fail on
# dpkg's lock). apt-get itself waits up to 5 minutes for any other apt or dpkg to finish.
# test/helpers/global-setup.ts runs it once, in the background, before the browser tests.
set -euo pipefail
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then exit 0; fi
LOCK=/tmp/vapc-ensure-chromium.lock
touch "$LOCK" 2>/dev/null || true
exec 9<"$LOCK"
flock 9
if [ -x "$CHROMIUM" ]; then exit 0; fi
SUDO=()
if [ "$(id -u)" != "0" ]; then
  if ! command -v sudo >/dev/null 2>&1 || ! sudo -n true 2>/dev/null; then
    echo "ensure-chromium: not root and no password-less sudo; install it as root: apt-get install chromium" >&2
    exit 1
  fi
  SUDO=(sudo -n)
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: no apt-get here (not Debian); install Chromium at $CHROMIUM yourself" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
APT=(-qq -o DPkg::Lock::Timeout=300)
"${SUDO[@]}" apt-get "${APT[@]}" update
"${SUDO[@]}" apt-get "${APT[@]}" install -y chromium >/dev/null
"$CHROMIUM" --version

#!/usr/bin/env bash
# Debian packages the test suite needs: redis-server (read model), chromium (page tests),
# prometheus (promtool, to check the alert rules; installed without starting the service).
# Installs only what is missing, so a warm machine skips apt entirely.
set -euo pipefail
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)  # promtool checks deploy/prometheus
if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "system deps: redis-server $(redis-server --version | awk '{print $3}'), $(chromium --version 2>/dev/null || echo 'chromium missing')"

#!/usr/bin/env bash
# Install the Debian packages named as arguments that are not installed yet (apt-get,
# as root or through sudo); does nothing when all are there. Usage:
#   scripts/debian-packages.sh chromium chromium-driver dataset-fashion-mnist
set -euo pipefail
missing=()
for package in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0
echo "installing Debian packages: ${missing[*]}" >&2
sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null

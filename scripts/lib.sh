#!/usr/bin/env bash
# Shared by scripts/run and scripts/test: install what is missing, idempotently.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

need_tool() {
  command -v "$1" >/dev/null 2>&1 || die "$1 is missing: $2"
}

check_toolchains() {
  need_tool cargo "install Rust (https://rustup.rs) and open a new shell"
  need_tool node "install Node.js 20.19 or newer"
  need_tool npm "install npm (it comes with Node.js)"
}

APT_UPDATED=0
# apt_install PACKAGE... : installs Debian packages that are not installed yet.
apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "need root (or sudo) to install: ${missing[*]}"
    sudo="sudo"
  fi
  say "installing Debian packages: ${missing[*]}"
  if [ "$APT_UPDATED" -eq 0 ]; then
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
  fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# npm packages from the lockfile, when node_modules is missing or older than the lockfile.
npm_install() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing npm packages (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

# The web app, rebuilt when a source is newer than the build.
web_build() {
  if [ ! -f web/dist/index.html ] || [ -n "$(find web/src web/index.html web/package.json web/vite.config.ts -newer web/dist/index.html 2>/dev/null | head -n 1)" ]; then
    say "building the web app"
    npm run --silent build
  fi
}

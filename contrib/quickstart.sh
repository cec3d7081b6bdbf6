#!/bin/bash
# Quick start on a fresh Debian 12, as root: installs what is missing, builds
# cvisor (out of tree, in ./build-quickstart or $BUILD_DIR), makes a busybox
# bundle in a temporary directory, shows `cvisor spec` and runs a container.
set -euo pipefail

PACKAGES=(build-essential autoconf automake libtool pkg-config
	libyajl-dev libseccomp-dev libcap-dev libmount-dev libarchive-dev busybox-static jq)

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$SRC/build-quickstart}"

say() { printf '\n== %s\n' "$*"; }

missing=()
for p in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	say "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
fi

say "building cvisor in $BUILD_DIR"
(cd "$SRC" && ./autogen.sh >/dev/null 2>&1) || (cd "$SRC" && ./autogen.sh)
mkdir -p "$BUILD_DIR"
(cd "$BUILD_DIR" && "$SRC/configure" -q && make -j"$(nproc)" >/dev/null)
CVISOR="$BUILD_DIR/src/cvisor"
"$CVISOR" --version

WORK="$(mktemp -d /tmp/cvisor-quickstart.XXXXXX)"
ROOT="$WORK/state"
ID="quickstart-$$"
cleanup() {
	"$CVISOR" --root "$ROOT" delete --force "$ID" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

say "a busybox root filesystem in $WORK/bundle/rootfs"
mkdir -p "$WORK/bundle/rootfs"/{bin,etc,proc,sys,dev,tmp}
cp /bin/busybox "$WORK/bundle/rootfs/bin/busybox"
while read -r app; do
	[ "$app" = bin/busybox ] && continue
	mkdir -p "$WORK/bundle/rootfs/$(dirname "$app")"
	ln -sf /bin/busybox "$WORK/bundle/rootfs/$app"
done < <(/bin/busybox --list-full)
echo 'root:x:0:0:root:/root:/bin/sh' >"$WORK/bundle/rootfs/etc/passwd"

say "cvisor spec --bundle $WORK/bundle   (the default config.json)"
"$CVISOR" spec --bundle "$WORK/bundle"
cat "$WORK/bundle/config.json"

say "edit it: no terminal, and a program to run"
jq '.process.terminal = false
    | .process.args = ["sh", "-c", "echo \"hello from inside: $(hostname), pid $$, uid $(id -u)\"; ls /"]' \
	"$WORK/bundle/config.json" >"$WORK/config.json"
mv "$WORK/config.json" "$WORK/bundle/config.json"

say "cvisor --root $ROOT run --bundle $WORK/bundle $ID"
status=0
"$CVISOR" --root "$ROOT" run --bundle "$WORK/bundle" "$ID" || status=$?
say "the container exited with status $status"
exit "$status"

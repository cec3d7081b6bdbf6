#!/usr/bin/env bats
# The files module (src/libcvisor/files): archives of directory trees in
# every format, extraction of hostile archives, the cache's disk and s3
# backends. Through tests/integration/archive-tool; the hostile archives
# come from tests/integration/evil-tar.py.

load helpers

setup() {
	cv_setup
	AT="$CVISOR_BUILDDIR/tests/integration/archive-tool"
	EVIL="$CVISOR_TESTS_DIR/evil-tar.py"
	mkdir -p "$CV_TMP/out"
	echo secret >"$CV_TMP/outside"
}

teardown() {
	if [ -n "${S3_PID:-}" ]; then
		kill "$S3_PID" 2>/dev/null || true
		wait "$S3_PID" 2>/dev/null || true
	fi
	if [ -n "${ROOT_KEY_DIR:-}" ]; then
		rm -rf "$ROOT_KEY_DIR"
		if [ "$ROOT_CACHE_EXISTED" = no ]; then
			rmdir /var/cache/cvisor
		fi
	fi
	if [ -n "${NOBODY_DIR:-}" ]; then
		rm -rf "$NOBODY_DIR"
	fi
	cv_teardown
}

# A tree with what an archive must keep: modes, mtimes, nested and empty
# directories, symlinks (relative, absolute, dangling), odd names, a long
# path (beyond ustar's 100 bytes), a file of several MiB.
make_tree() {
	local t="$1"
	mkdir -p "$t/sub/deep" "$t/empty" "$t/ro"
	echo hello >"$t/a.txt"
	chmod 640 "$t/a.txt"
	printf '#!/bin/sh\n' >"$t/sub/run.sh"
	chmod 755 "$t/sub/run.sh"
	head -c 3000000 /dev/urandom >"$t/sub/deep/random.bin"
	echo spaces >"$t/name with spaces é"
	ln -s ../a.txt "$t/sub/rel-link"
	ln -s /etc/passwd "$t/abs-link"
	ln -s no-such-target "$t/dangling"
	local long
	long="$t/$(printf 'd%.0s' {1..60})/$(printf 'e%.0s' {1..60})"
	mkdir -p "$long"
	echo long >"$long/$(printf 'f%.0s' {1..120})"
	echo inside >"$t/ro/file"
	chmod 555 "$t/ro"
	touch -h -d '2001-02-03 04:05:06' "$t/a.txt" "$t/sub/rel-link" "$t/sub" "$t/empty"
}

# Makes the hostile archive CASE of evil-tar.py and extracts it into out/.
extract_evil() {
	python3 "$EVIL" "$@" >"$CV_TMP/evil.tar"
	"$AT" extract "$CV_TMP/out" <"$CV_TMP/evil.tar"
}

# One line per entry: path, type, mode, mtime (seconds), link target.
listing() {
	(cd "$1" && find . -mindepth 1 -printf '%p %y %m %Ts %l\n' | LC_ALL=C sort)
}

@test "round trip in every format keeps contents, types, modes and mtimes" {
	make_tree "$CV_TMP/src"
	for f in gzip none zstd; do
		"$AT" write "$CV_TMP/src" "$f" >"$CV_TMP/a.$f"
		# the same tree, the same bytes
		"$AT" write "$CV_TMP/src" "$f" | cmp - "$CV_TMP/a.$f"
		rm -rf "$CV_TMP/out"
		mkdir "$CV_TMP/out"
		"$AT" extract "$CV_TMP/out" <"$CV_TMP/a.$f"
		diff -r --no-dereference "$CV_TMP/src" "$CV_TMP/out"
		diff <(listing "$CV_TMP/src") <(listing "$CV_TMP/out")
	done
	# no time in the gzip header (MTIME, bytes 4-7), or the bytes would change each second
	[ "$(od -An -tu4 -j4 -N4 "$CV_TMP/a.gzip" | tr -d ' ')" = 0 ]
	run file -b "$CV_TMP/a.gzip" "$CV_TMP/a.none" "$CV_TMP/a.zstd"
	[ "${lines[0]%%,*}" = "gzip compressed data" ]
	[[ "${lines[1]}" == "POSIX tar archive"* ]]
	[[ "${lines[2]}" == "Zstandard compressed data"* ]]
}

@test "the default format is gzip; estargz and unknown formats are refused by name" {
	echo x >"$CV_TMP/out/f"
	"$AT" write "$CV_TMP/out" >"$CV_TMP/a"
	run file -b "$CV_TMP/a"
	[[ "$output" == "gzip compressed data"* ]]
	run -1 "$AT" write "$CV_TMP/out" estargz
	[[ "$output" == *"archive format \`estargz\` is not implemented"*"Operation not supported"* ]]
	run -1 "$AT" write "$CV_TMP/out" lz4
	[[ "$output" == *"unknown archive format \`lz4\`"*"Invalid argument"* ]]
}

@test "GNU tar reads what we write, and we read what GNU tar writes" {
	make_tree "$CV_TMP/src"
	"$AT" write "$CV_TMP/src" zstd >"$CV_TMP/ours.tar.zst"
	tar -C "$CV_TMP/out" --zstd -xf "$CV_TMP/ours.tar.zst"
	diff -r --no-dereference "$CV_TMP/src" "$CV_TMP/out"
	mkdir "$CV_TMP/out2"
	tar -C "$CV_TMP/src" -czf "$CV_TMP/theirs.tar.gz" .
	"$AT" extract "$CV_TMP/out2" <"$CV_TMP/theirs.tar.gz"
	diff -r --no-dereference "$CV_TMP/src" "$CV_TMP/out2"
	diff <(listing "$CV_TMP/src") <(listing "$CV_TMP/out2")
}

@test "write stores symlinks as symlinks and leaves out fifos and sockets" {
	mkdir "$CV_TMP/src"
	ln -s /etc "$CV_TMP/src/etc-link"
	mkfifo "$CV_TMP/src/fifo"
	python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$CV_TMP/src/sock"
	echo x >"$CV_TMP/src/file"
	ARCHIVE_TOOL_DEBUG=1 "$AT" write "$CV_TMP/src" none >"$CV_TMP/a.tar" 2>"$CV_TMP/log"
	run tar -tvf "$CV_TMP/a.tar"
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[0]}" == "lrwxrwxrwx "*" etc-link -> /etc" ]]
	[[ "${lines[1]}" == *" file" ]]
	run cat "$CV_TMP/log"
	[[ "$output" == *"\`fifo\` left out: not a regular file, directory or symlink"* ]]
	[[ "$output" == *"\`sock\` left out"* ]]
}

@test "the skip callback leaves out paths, and skipped directories are not descended" {
	mkdir -p "$CV_TMP/src/node_modules/pkg" "$CV_TMP/src/keep"
	echo x >"$CV_TMP/src/node_modules/pkg/index.js"
	echo x >"$CV_TMP/src/keep/a.log"
	echo x >"$CV_TMP/src/keep/b.txt"
	"$AT" write "$CV_TMP/src" none --skip node_modules --skip '*/*.log' >"$CV_TMP/a.tar"
	run tar -tf "$CV_TMP/a.tar"
	[ "$output" = "$(printf 'keep/\nkeep/b.txt')" ]
}

@test "extract refuses an absolute path" {
	run -1 extract_evil absolute "$CV_TMP"
	[[ "$output" == *"archive entry \`$CV_TMP/pwned\`: absolute path"* ]]
	[ ! -e "$CV_TMP/pwned" ]
}

@test "extract refuses .. components" {
	run -1 extract_evil dotdot
	[[ "$output" == *"archive entry \`a/../../pwned\`: \`..\` in its path"* ]]
	[ ! -e "$CV_TMP/pwned" ]
	[ ! -e "$CV_TMP/out/pwned" ]
}

@test "extract refuses a file through a symlink the archive made (absolute and relative)" {
	mkdir "$CV_TMP/elsewhere"
	run -1 extract_evil symlink-then-file "$CV_TMP/elsewhere"
	[[ "$output" == *"archive entry \`link/pwned\`: \`link\` is a symlink"* ]]
	[ ! -e "$CV_TMP/elsewhere/pwned" ]
	run -1 extract_evil symlink-relative-then-file
	[[ "$output" == *"archive entry \`d/up/pwned\`: \`d/up\` is a symlink"* ]]
	[ ! -e "$CV_TMP/pwned" ]
	run -1 extract_evil symlink-then-dir "$CV_TMP/elsewhere"
	[[ "$output" == *"archive entry \`link/sub/\`: \`link\` is a symlink"* ]]
	[ ! -e "$CV_TMP/elsewhere/sub" ]
}

@test "a symlink already in the target is never passed through: refused, or replaced by a directory entry" {
	mkdir "$CV_TMP/elsewhere" "$CV_TMP/src" "$CV_TMP/src/dir"
	echo x >"$CV_TMP/src/dir/f"
	ln -s "$CV_TMP/elsewhere" "$CV_TMP/out/dir"
	tar -C "$CV_TMP/src" -cf "$CV_TMP/file-only.tar" dir/f
	run -1 "$AT" extract "$CV_TMP/out" <"$CV_TMP/file-only.tar"
	[[ "$output" == *"archive entry \`dir/f\`: \`dir\` is a symlink"* ]]
	[ ! -e "$CV_TMP/elsewhere/f" ]
	# with an entry for the directory itself, the directory replaces the
	# symlink, as GNU tar does
	"$AT" write "$CV_TMP/src" >"$CV_TMP/a.tgz"
	"$AT" extract "$CV_TMP/out" <"$CV_TMP/a.tgz"
	[ ! -L "$CV_TMP/out/dir" ]
	[ "$(cat "$CV_TMP/out/dir/f")" = x ]
	[ ! -e "$CV_TMP/elsewhere/f" ]
}

@test "a file replaces a symlink of the same name instead of writing through it" {
	python3 "$EVIL" symlink-replaced "$CV_TMP/outside" >"$CV_TMP/a.tar"
	"$AT" extract "$CV_TMP/out" <"$CV_TMP/a.tar"
	[ "$(cat "$CV_TMP/outside")" = secret ]
	[ ! -L "$CV_TMP/out/victim" ]
	[ "$(cat "$CV_TMP/out/victim")" = replaced ]
}

@test "extract refuses hard links out of the target, to symlinks and to files not yet extracted" {
	run -1 extract_evil hardlink-out "$CV_TMP/outside"
	[[ "$output" == *"archive entry \`h\`: absolute hard link target"* ]]
	run -1 extract_evil hardlink-dotdot
	[[ "$output" == *"archive entry \`h\`: \`..\` in its hard link target"* ]]
	run -1 extract_evil hardlink-symlink "$CV_TMP/outside"
	[[ "$output" == *"archive entry \`h\`: hard link to \`s\`, not a regular file extracted before it"* ]]
	run -1 extract_evil hardlink-later
	[[ "$output" == *"hard link to \`later\`, not a regular file extracted before it"* ]]
	[ "$(stat -c %h "$CV_TMP/outside")" -eq 1 ]
	[ ! -e "$CV_TMP/out/h" ]
}

@test "a hard link to a file the archive extracted is a hard link" {
	python3 "$EVIL" hardlink-ok >"$CV_TMP/a.tar"
	"$AT" extract "$CV_TMP/out" <"$CV_TMP/a.tar"
	[ "$(stat -c %i "$CV_TMP/out/copy")" = "$(stat -c %i "$CV_TMP/out/dir/orig")" ]
	[ "$(cat "$CV_TMP/out/copy")" = shared ]
}

@test "extract refuses device nodes and fifos" {
	run -1 extract_evil device
	[[ "$output" == *"archive entry \`null\`: device node refused"* ]]
	[ ! -e "$CV_TMP/out/null" ]
	run -1 extract_evil blockdev
	[[ "$output" == *"archive entry \`sda\`: device node refused"* ]]
	run -1 extract_evil fifo
	[[ "$output" == *"archive entry \`pipe\`: fifo refused"* ]]
	[ ! -e "$CV_TMP/out/pipe" ]
}

@test "extract refuses a huge declared size before writing anything" {
	run -1 extract_evil huge
	[[ "$output" == *"archive entry \`huge\`: 10737418240 bytes, beyond the limit of 4294967296 for the archive"* ]]
	[ -z "$(ls -A "$CV_TMP/out")" ]
}

@test "extract stops at the byte limit across entries, and a compressed bomb with it" {
	python3 "$EVIL" big 600000 | gzip >"$CV_TMP/a.tgz"
	"$AT" extract "$CV_TMP/out" --max-bytes 600010 <"$CV_TMP/a.tgz"
	rm -rf "$CV_TMP/out" && mkdir "$CV_TMP/out"
	run -1 "$AT" extract "$CV_TMP/out" --max-bytes 500000 <"$CV_TMP/a.tgz"
	[[ "$output" == *"archive entry \`big\`: 600000 bytes, beyond the limit of 500000 for the archive"* ]]
	[ ! -e "$CV_TMP/out/big" ]
	# 64 MiB of zeros is a 65 KiB gzip: refused on its header
	rm -rf "$CV_TMP/out" && mkdir "$CV_TMP/out"
	head -c 67108864 /dev/zero >"$CV_TMP/zeros"
	tar -C "$CV_TMP" -czf "$CV_TMP/bomb.tgz" zeros
	run -1 "$AT" extract "$CV_TMP/out" --max-bytes 1000000 <"$CV_TMP/bomb.tgz"
	[[ "$output" == *"archive entry \`zeros\`: 67108864 bytes, beyond the limit"* ]]
	[ -z "$(ls -A "$CV_TMP/out")" ]
}

@test "extract refuses too many entries and too long paths" {
	python3 "$EVIL" many 150 >"$CV_TMP/a.tar"
	run -1 "$AT" extract "$CV_TMP/out" --max-entries 100 <"$CV_TMP/a.tar"
	[[ "$output" == *"archive entry \`f99\`: the archive has more than 100 entries"* ]]
	[ ! -e "$CV_TMP/out/f99" ]
	"$AT" extract "$CV_TMP/out" --max-entries 151 <"$CV_TMP/a.tar"
	python3 "$EVIL" longpath 200 >"$CV_TMP/b.tar"
	run -1 "$AT" extract "$CV_TMP/out" --max-path 100 <"$CV_TMP/b.tar"
	[[ "$output" == *": path longer than 100 bytes"* ]]
}

@test "extract drops setuid and setgid, keeps the sticky bit on directories" {
	python3 "$EVIL" setuid >"$CV_TMP/a.tar"
	"$AT" extract "$CV_TMP/out" <"$CV_TMP/a.tar"
	[ "$(stat -c %a "$CV_TMP/out/suid")" = 755 ]
	[ "$(stat -c %a "$CV_TMP/out/sdir")" = 1777 ]
}

@test "a truncated archive leaves no part of the entry it was writing" {
	run -1 extract_evil truncated
	[[ "$output" == *"read archive entry partial: "* ]]
	[ -z "$(ls -A "$CV_TMP/out")" ]
}

@test "garbage is not an archive" {
	head -c 5000 /dev/urandom >"$CV_TMP/junk"
	run -1 "$AT" extract "$CV_TMP/out" <"$CV_TMP/junk"
	[[ "$output" == *"read archive: "* ]]
}

@test "cache disk:/path round trip in every format; a miss is ENOENT" {
	make_tree "$CV_TMP/src"
	for f in gzip none zstd; do
		"$AT" write "$CV_TMP/src" "$f" >"$CV_TMP/a.$f"
		"$AT" cache-put "disk:$CV_TMP/cache" proj/deps-1 "$f" <"$CV_TMP/a.$f"
	done
	for f in gzip none zstd; do
		"$AT" cache-get "disk:$CV_TMP/cache" proj/deps-1 "$f" >"$CV_TMP/got"
		cmp "$CV_TMP/got" "$CV_TMP/a.$f"
	done
	[ -f "$CV_TMP/cache/proj/deps-1.tar.gz" ]
	[ -f "$CV_TMP/cache/proj/deps-1.tar" ]
	[ -f "$CV_TMP/cache/proj/deps-1.tar.zst" ]
	# a pipe in, replacing the entry; no temporary file left
	cat "$CV_TMP/a.none" | "$AT" cache-put "disk:$CV_TMP/cache" proj/deps-1 gzip
	"$AT" cache-get "disk:$CV_TMP/cache" proj/deps-1 gzip | cmp - "$CV_TMP/a.none"
	[ "$(ls -A "$CV_TMP/cache/proj" | wc -l)" -eq 3 ]
	run -2 "$AT" cache-get "disk:$CV_TMP/cache" proj/other
	[[ "$output" == *"cache entry \`proj/other\` not in \`$CV_TMP/cache\`"* ]]
	run -2 "$AT" cache-get "disk:$CV_TMP/nowhere" k
	[[ "$output" == *"No such file or directory"* ]]
}

@test "cache refuses bad keys, formats and backends by name" {
	run -1 "$AT" cache-put "disk:$CV_TMP/cache" ../escape </dev/null
	[[ "$output" == *"cache key \`../escape\`: a component starts with \`.\`"* ]]
	run -1 "$AT" cache-put "disk:$CV_TMP/cache" /abs </dev/null
	[[ "$output" == *"cache key \`/abs\`: empty path component"* ]]
	run -1 "$AT" cache-put "disk:$CV_TMP/cache" k estargz </dev/null
	[[ "$output" == *"estargz"*"Operation not supported"* ]]
	run -1 "$AT" cache-put "disk:relative" k </dev/null
	[[ "$output" == *"cache backend \`disk:relative\`: the directory must be an absolute path"* ]]
	run -1 "$AT" cache-put "ftp://x" k </dev/null
	[[ "$output" == *"unknown cache backend \`ftp://x\`"* ]]
	run -1 "$AT" cache-put "s3://b?color=red" k </dev/null
	[[ "$output" == *"unknown parameter \`color\`"* ]]
	[ ! -e "$CV_TMP/cache" ]
}

@test "cache entries below the cache directory are never reached through a symlink" {
	mkdir -p "$CV_TMP/cache" "$CV_TMP/elsewhere"
	ln -s "$CV_TMP/elsewhere" "$CV_TMP/cache/proj"
	run -1 "$AT" cache-put "disk:$CV_TMP/cache" proj/k </dev/null
	[[ "$output" == *"a symlink on its path"* ]]
	[ -z "$(ls -A "$CV_TMP/elsewhere")" ]
	echo x >"$CV_TMP/elsewhere/k.tar.gz"
	ln -s "$CV_TMP/elsewhere/k.tar.gz" "$CV_TMP/cache/k.tar.gz"
	run -1 "$AT" cache-get "disk:$CV_TMP/cache" k
	[[ "$output" == *"cache entry \`k.tar.gz\` in \`$CV_TMP/cache\`"* ]]
}

@test "the default disk backend: /var/cache/cvisor for root, XDG_CACHE_HOME or ~/.cache for a user" {
	requires_root
	requires setpriv
	key="cvisor-test-$$-$RANDOM"
	ROOT_CACHE_EXISTED=no
	if [ -e /var/cache/cvisor ]; then
		ROOT_CACHE_EXISTED=yes
	fi
	ROOT_KEY_DIR="/var/cache/cvisor/$key"
	echo data | "$AT" cache-put "" "$key/k" none
	[ "$(cat "/var/cache/cvisor/$key/k.tar")" = data ]
	[ "$("$AT" cache-get disk "$key/k" none)" = data ]
	# a directory nobody can reach (CV_TMP's parents are root's)
	NOBODY_DIR="$(mktemp -d /tmp/cvisor-archive.XXXXXX)"
	chmod 777 "$NOBODY_DIR"
	as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups env -i "$@"; }
	echo user | as_nobody XDG_CACHE_HOME="$NOBODY_DIR/xdg" "$AT" cache-put disk k
	[ "$(cat "$NOBODY_DIR/xdg/cvisor/k.tar.gz")" = user ]
	[ "$(stat -c %a "$NOBODY_DIR/xdg/cvisor")" = 700 ]
	echo home | as_nobody HOME="$NOBODY_DIR/home" "$AT" cache-put "" k
	[ "$(cat "$NOBODY_DIR/home/.cache/cvisor/k.tar.gz")" = home ]
	run -1 as_nobody "$AT" cache-put "" k </dev/null
	[[ "$output" == *"neither XDG_CACHE_HOME nor HOME is an absolute path"* ]]
}

# s3rver (npm), installed once into the build tree; the test skips when
# neither it nor npm is there.
s3rver_bin() {
	local dir="$CVISOR_BUILDDIR/tests/s3rver"
	if [ ! -x "$dir/node_modules/.bin/s3rver" ]; then
		command -v npm >/dev/null || return 1
		mkdir -p "$dir"
		(cd "$dir" && npm install --no-audit --no-fund --silent s3rver@3 >install.log 2>&1) || return 1
	fi
	echo "$dir/node_modules/.bin/s3rver"
}

start_s3rver() {
	local bin port
	bin="$(s3rver_bin)" || skip "s3rver is not installed and npm could not install it (needs node, npm and the npm registry)"
	grep -q '^#define HAVE_LIBCURL 1' "$CVISOR_BUILDDIR/config.h" || skip "built without libcurl: no s3 backend"
	port=$((20000 + RANDOM % 20000))
	mkdir -p "$CV_TMP/s3"
	"$bin" --directory "$CV_TMP/s3" --address 127.0.0.1 --port "$port" --configure-bucket bkt --silent \
		>"$CV_TMP/s3rver.log" 2>&1 &
	S3_PID=$!
	for _ in $(seq 100); do
		grep -q listening "$CV_TMP/s3rver.log" && break
		sleep 0.1
	done
	grep -q listening "$CV_TMP/s3rver.log"
	S3="s3://bkt/ci/cache?region=us-east-1&endpoint=http://127.0.0.1:$port"
	export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
}

@test "cache s3 backend against s3rver: round trip in every format, misses, credentials" {
	start_s3rver
	make_tree "$CV_TMP/src"
	for f in gzip none zstd; do
		"$AT" write "$CV_TMP/src" "$f" >"$CV_TMP/a.$f"
		"$AT" cache-put "$S3" proj/deps "$f" <"$CV_TMP/a.$f"
		"$AT" cache-get "$S3" proj/deps "$f" >"$CV_TMP/got"
		cmp "$CV_TMP/got" "$CV_TMP/a.$f"
		rm -rf "$CV_TMP/out" && mkdir "$CV_TMP/out"
		"$AT" extract "$CV_TMP/out" <"$CV_TMP/got"
		diff -r --no-dereference "$CV_TMP/src" "$CV_TMP/out"
	done
	[ -e "$CV_TMP/s3/bkt/ci/cache/proj/deps.tar.zst._S3rver_object" ]
	cat "$CV_TMP/a.none" | "$AT" cache-put "$S3" piped none
	"$AT" cache-get "$S3" piped none | cmp - "$CV_TMP/a.none"
	run -2 "$AT" cache-get "$S3" proj/missing
	[[ "$output" == *"cache entry \`proj/missing\` not in s3://bkt/ci/cache/"* ]]
	run -1 env AWS_ACCESS_KEY_ID=unknown "$AT" cache-get "$S3" proj/deps
	[[ "$output" == *"HTTP 403: InvalidAccessKeyId"* ]]
	run -1 env AWS_SECRET_ACCESS_KEY= "$AT" cache-get "$S3" proj/deps
	[[ "$output" == *"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set"* ]]
	run -2 "$AT" cache-put "s3://nobucket?endpoint=http://127.0.0.1:${S3##*:}" k <"$CV_TMP/a.none"
	[[ "$output" == *"no such bucket \`nobucket\`"* ]]
}

@test "cache s3 backend: the requests carry a valid SigV4 signature (checked by sigv4-server.py)" {
	grep -q '^#define HAVE_LIBCURL 1' "$CVISOR_BUILDDIR/config.h" || skip "built without libcurl: no s3 backend"
	python3 "$CVISOR_TESTS_DIR/sigv4-server.py" "$CV_TMP/port" AKIDTEST s3cr3t eu-west-3 2>"$CV_TMP/sigv4.log" &
	S3_PID=$!
	for _ in $(seq 100); do
		[ -s "$CV_TMP/port" ] && break
		sleep 0.1
	done
	B="s3://bkt/pre?region=eu-west-3&endpoint=http://127.0.0.1:$(cat "$CV_TMP/port")"
	head -c 2000000 /dev/urandom >"$CV_TMP/blob"
	AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=s3cr3t "$AT" cache-put "$B" a/b zstd <"$CV_TMP/blob"
	AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=s3cr3t "$AT" cache-get "$B" a/b zstd >"$CV_TMP/got"
	cmp "$CV_TMP/blob" "$CV_TMP/got"
	# the session token is sent and signed
	AWS_SESSION_TOKEN=tok AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=s3cr3t "$AT" cache-get "$B" a/b zstd >/dev/null
	run -1 env AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=wrong "$AT" cache-get "$B" a/b zstd
	[[ "$output" == *"HTTP 403: SignatureDoesNotMatch"* ]]
	run -1 env AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=s3cr3t "$AT" cache-get "${B/eu-west-3/us-east-1}" a/b zstd
	[[ "$output" == *"HTTP 403: AuthorizationHeaderMalformed"* ]]
}

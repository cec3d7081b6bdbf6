#!/usr/bin/env bats
# libcvisor embedded in another program (see the top of src/include/cvisor.h):
# tests/embed/embed-test.c (cvisor.h and libcvisor.so only, a writable
# binary) and the same from python3 through ctypes (tests/embed/test_embed.py).

load helpers

EMBED_TEST="$CVISOR_BUILDDIR/tests/embed/embed-test"
LIBCVISOR="$CVISOR_BUILDDIR/.libs/libcvisor.so.0"

setup() {
	cv_setup
	[ -x "$EMBED_TEST" ] || skip "tests/embed/embed-test not built (make check builds it)"
}

teardown() {
	cv_teardown
}

# The bundle both programs use: config.json sleeps, config-exit3.json exits
# 3, config-warn.json exits 3 with a poststop hook that fails.
embed_bundle() {
	make_bundle
	update_config '.process.args = ["sleep", "1000"]'
	jq '.process.args = ["sh", "-c", "exit 3"]' "$CV_BUNDLE/config.json" >"$CV_BUNDLE/config-exit3.json"
	jq '.process.args = ["sh", "-c", "exit 3"] | .hooks = {"poststop": [{"path": "/bin/false"}]}' \
		"$CV_BUNDLE/config.json" >"$CV_BUNDLE/config-warn.json"
}

@test "embed: the test program links libcvisor.so and the C library only, and includes cvisor.h only" {
	run readelf -d "$EMBED_TEST"
	[ "$status" -eq 0 ]
	# (a sanitizer build adds the sanitizers' runtimes)
	run sh -c "readelf -d '$EMBED_TEST' | grep NEEDED | grep -o '\[.*\]' | grep -v -e libasan -e libubsan | sort | tr '\n' ' '"
	[ "$output" = "[libc.so.6] [libcvisor.so.0] " ]
	run sh -c "grep '^#include' '$CVISOR_SRCDIR/tests/embed/embed-test.c' | grep -v '^#include <'"
	[ "$output" = '#include "cvisor.h"' ]
}

@test "embed: libcvisor.so exports exactly what cvisor.h declares, each versioned" {
	requires nm
	[ -e "$LIBCVISOR" ] || skip "no libcvisor.so (--disable-shared)"
	declared="$(grep -oE '\bcvisor_[a-z_]+\(' "$CVISOR_SRCDIR/src/include/cvisor.h" | tr -d '(' | sort -u)"
	exported="$(nm -D --defined-only "$LIBCVISOR" | awk '$2 == "T" { print $3 }' | sed 's/@@.*//' | sort -u)"
	listed="$(grep -oE '^\s*cvisor_[a-z_]+;' "$CVISOR_SRCDIR/src/libcvisor.sym" | tr -d ' \t;' | sort -u)"
	[ -n "$declared" ]
	[ "$declared" = "$exported" ]
	[ "$declared" = "$listed" ]
	run sh -c "nm -D --defined-only '$LIBCVISOR' | awk '\$2 != \"A\"' | grep -v '@@CVISOR_0.[12]\$'"
	[ -z "$output" ]
	# the container API's run was renamed for the sandbox ABI's cvisor_run,
	# and each node holds its release's calls
	run sh -c "nm -D '$LIBCVISOR' | grep -w 'cvisor_run@@CVISOR_0.2'"
	[ "$status" -eq 0 ]
	run sh -c "nm -D '$LIBCVISOR' | grep -w 'cvisor_container_run@@CVISOR_0.1'"
	[ "$status" -eq 0 ]
	run sh -c "nm -D '$LIBCVISOR' | grep -w 'cvisor_sandbox_new@@CVISOR_0.2'"
	[ "$status" -eq 0 ]
}

@test "embed: 8 threads create, start, exec, kill and delete from a writable binary; the caller is unchanged" {
	requires_root
	embed_bundle
	local rc=0
	"$EMBED_TEST" threads "$CV_BUNDLE" "$CV_ROOT" "$CVISOR" 8 </dev/null >"$CV_TMP/out" 2>&1 3>&- || rc=$?
	cat "$CV_TMP/out"
	[ "$rc" -eq 0 ]
	grep -q '^ok - thread 7: delete$' "$CV_TMP/out"
	grep -q '^ok - our own child is ours to wait for' "$CV_TMP/out"
	grep -q '^0 failed$' "$CV_TMP/out"
	run "$CVISOR" --root "$CV_ROOT" list -q
	[ -z "$output" ]
}

@test "embed: the same from python3 through ctypes" {
	requires_root
	[ -x /usr/bin/python3 ] || skip "requires Debian's python3"
	[ -e "$LIBCVISOR" ] || skip "no libcvisor.so (--disable-shared)"
	if ldd "$LIBCVISOR" | grep -q libasan; then
		skip "python3 cannot load an ASan-instrumented libcvisor.so"
	fi
	embed_bundle
	local rc=0
	CVISOR_LIB="$LIBCVISOR" EMBED_BUNDLE="$CV_BUNDLE" EMBED_ROOT="$CV_ROOT" EMBED_HELPER="$CVISOR" \
		/usr/bin/python3 "$CVISOR_SRCDIR/tests/embed/test_embed.py" </dev/null >"$CV_TMP/out" 2>&1 3>&- || rc=$?
	cat "$CV_TMP/out"
	[ "$rc" -eq 0 ]
	grep -q '^Ran 4 tests' "$CV_TMP/out"
	grep -q '^OK$' "$CV_TMP/out"
	run "$CVISOR" --root "$CV_ROOT" list -q
	[ -z "$output" ]
}

@test "embed: the caller's socket activation (LISTEN_FDS) does not reach the container, as the command's does" {
	requires_root
	make_bundle
	update_config '.process.args = ["sh", "-c", "test -z \"$LISTEN_FDS\""]'
	run env LISTEN_FDS=1 LISTEN_PID=1 "$EMBED_TEST" cli "$CV_ROOT" "$CVISOR" run "$CV_ID" "$CV_BUNDLE" 3</dev/null
	[ "$status" -eq 0 ]
	# the command hands it on: the same container sees it
	run env LISTEN_FDS=1 "$CVISOR" --root "$CV_ROOT" run --bundle "$CV_BUNDLE" "$CV_ID" 3</dev/null
	[ "$status" -eq 1 ]
}

@test "embed: errors come back with the helper's errno and message; a missing helper is named" {
	requires_root
	make_bundle
	run "$EMBED_TEST" cli "$CV_ROOT" "$CVISOR" exec nosuch true
	[ "$status" -eq 1 ]
	[ "$output" = 'embed-test: container "nosuch" does not exist' ]
	run "$EMBED_TEST" cli "$CV_ROOT" "$CV_TMP/no-cvisor" run "$CV_ID" "$CV_BUNDLE"
	[ "$status" -eq 1 ]
	[ "$output" = "embed-test: run the cvisor helper \`$CV_TMP/no-cvisor\`: No such file or directory" ]
	# not a cvisor binary: it never reports
	run "$EMBED_TEST" cli "$CV_ROOT" /bin/true run "$CV_ID" "$CV_BUNDLE"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the cvisor helper \`/bin/true\` ended without reporting"* ]]
	# CVISOR_HELPER is the default when the context names none
	run env CVISOR_HELPER="$CVISOR" "$EMBED_TEST" cli "$CV_ROOT" "" run "$CV_ID" "$CV_BUNDLE"
	[ "$status" -eq 0 ]
}

@test "embed: spec and features run in-process and give the commands' documents; do is refused" {
	mkdir "$CV_TMP/api" "$CV_TMP/cmd"
	run "$EMBED_TEST" cli "$CV_ROOT" "$CV_TMP/no-cvisor" spec "$CV_TMP/api"
	[ "$status" -eq 0 ]
	cvisor spec --bundle "$CV_TMP/cmd"
	cmp "$CV_TMP/api/config.json" "$CV_TMP/cmd/config.json"
	run "$EMBED_TEST" cli "$CV_ROOT" "$CV_TMP/no-cvisor" spec "$CV_TMP/api"
	[ "$status" -eq 1 ]
	[ "$output" = "embed-test: \`$CV_TMP/api/config.json\` already exists: remove it first" ]
	# the features annotation is the binary's: the program passed none
	"$EMBED_TEST" cli "$CV_ROOT" "$CV_TMP/no-cvisor" features >"$CV_TMP/api/features.json"
	cvisor features | jq -S 'del(.annotations["org.cvisor.features"])' >"$CV_TMP/cmd/features.json"
	jq -S . "$CV_TMP/api/features.json" | diff - "$CV_TMP/cmd/features.json"
	run "$EMBED_TEST" cli "$CV_ROOT" "$CVISOR" do true
	[ "$status" -eq 1 ]
	[ "$output" = "embed-test: do: only the cvisor binary runs a sandbox (run \`cvisor do\`): Operation not supported" ]
}

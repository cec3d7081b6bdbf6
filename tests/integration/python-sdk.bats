#!/usr/bin/env bats
# The Python SDK (contrib/python: the `cvisor` package): its pytest suite
# through the libcvisor.so and the cvisor helper of this build, and its
# installation by pip, offline, into a fresh virtual environment.

load helpers
load sandbox-helpers

PY=/usr/bin/python3 # Debian's, with python3-pytest
PKG="$CVISOR_SRCDIR/contrib/python"

setup() {
	sb_setup
	[ -x "$PY" ] || skip "no $PY"
	export CVISOR_LIB="$CVISOR_BUILDDIR/.libs/libcvisor.so.0"
	export CVISOR_HELPER="$CVISOR"
	export PYTHONDONTWRITEBYTECODE=1
}

teardown() {
	rm -rf "${VENV:-}"
	sb_teardown
}

@test "python sdk: the pytest suite through this build's libcvisor" {
	"$PY" -c 'import pytest' 2>/dev/null || skip "python3-pytest is not installed (contrib/check.sh installs it)"
	run timeout 900 "$PY" -m pytest -p no:cacheprovider -q -rs "$PKG/tests"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "python sdk: the pytest suite as nobody" {
	"$PY" -c 'import pytest' 2>/dev/null || skip "python3-pytest is not installed (contrib/check.sh installs it)"
	requires_root
	requires_unprivileged_userns
	setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$CVISOR_LIB" -a -r "$PKG/cvisor/__init__.py" ||
		skip "the build tree is not readable by nobody"
	# the state root is $XDG_RUNTIME_DIR/cvisor, as for a user's session
	run timeout 900 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH="$PATH" HOME="$NR/home" XDG_RUNTIME_DIR="$NR" TMPDIR="$NR/ws" CVISOR_LIB="$CVISOR_LIB" \
		CVISOR_HELPER="$CVISOR_HELPER" CVISOR_SLIRP_HOOK="$CVISOR_SLIRP_HOOK" PYTHONDONTWRITEBYTECODE=1 \
		"$PY" -m pytest -p no:cacheprovider -q -rs "$PKG/tests"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "python sdk: pip installs ./contrib/python offline into a fresh venv" {
	"$PY" -c 'import ensurepip' 2>/dev/null || skip "python3-venv is not installed"
	VENV="$(mktemp -d)"
	"$PY" -m venv "$VENV/env"
	run "$VENV/env/bin/pip" install --no-index --no-cache-dir "$PKG"
	echo "$output"
	[ "$status" -eq 0 ]
	# from the installed copy, not the source tree
	cd /
	run "$VENV/env/bin/python" -c 'import cvisor, sys; print(cvisor.__file__); print(cvisor.parse_size("1.5G"))'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$("$VENV/env/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/cvisor/__init__.py" ]
	[ "${lines[1]}" = "1610612736" ]
	# the remote service's command, made by pip from [project.scripts]
	run "$VENV/env/bin/cvisor-server" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--tokens FILE"* ]]
	run "$VENV/env/bin/python" -c 'import cvisor; print(cvisor.Sandbox().run("echo from-venv").stdout)'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "from-venv" ]
}

@test "python sdk: make install puts the package where Debian's python3 finds it" {
	VENV="$(mktemp -d)"
	run make -s -C "$CVISOR_BUILDDIR" install-cvisorpyDATA install-cvisorserverpyDATA install-binSCRIPTS DESTDIR="$VENV"
	[ "$status" -eq 0 ]
	init="$(cd "$VENV" && find . -path '*/cvisor/__init__.py')"
	[ -n "$init" ]
	site="${init#.}"
	site="${site%/cvisor/__init__.py}"
	# a directory of python3's own search path, not one we add
	run "$PY" -c 'import sys; print("\n".join(sys.path))'
	printf '%s\n' "${lines[@]}" | grep -qx "$site"
	cd /
	run env PYTHONPATH="$VENV$site" "$PY" -c 'import cvisor; print(cvisor.__file__)'
	[ "$status" -eq 0 ]
	[ "$output" = "$VENV$site/cvisor/__init__.py" ]
	# the remote service: its command, and every module of its package
	server="$(cd "$VENV" && find . -path '*/bin/cvisor-server')"
	[ -n "$server" ]
	"$PY" -c 'import aiohttp, graphql' 2>/dev/null || return 0
	run env PYTHONPATH="$VENV$site" "$VENV${server#.}" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--tokens FILE"* ]]
	run env PYTHONPATH="$VENV$site" "$PY" -c 'import cvisor.server.app, cvisor.server.schema; print("ok")'
	[ "$output" = "ok" ]
}

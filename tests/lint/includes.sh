#!/bin/sh
# The dependency rules of the source tree, checked on its #include lines.
# The build enforces most of them with include paths; this names the file
# and line when one breaks, and covers what include paths cannot:
#   1. only oci/ includes a yajl header: the rest of cvisor reads and writes
#      JSON through oci/json.h, which shows no yajl type (the tests are not
#      checked: they may use yajl as a parser independent of ours);
#   2. oci/ includes only oci/ and base headers (and yajl's);
#   3. base includes only base headers;
#   4. hooks/ includes only oci/ and base headers;
#   5. the command line (src/cvisor.c, src/cmd/) includes only the public
#      cvisor.h, base headers and its own (its include path has nothing
#      else); main (src/cvisor.c) also cvisor-binary.h, what only the binary
#      calls in the library, which the verbs may not.
# Prints TAP, one test point per rule and a `# FILE:LINE: NAME` line per
# offence; exit status 1 when anything is found. `make check` runs it.
#
#   tests/lint/includes.sh [SOURCE-DIR]   (default: the tree holding it)
set -eu

cd "${1:-$(dirname "$0")/../..}"

# FILE:LINE:NAME for every #include of the C files given, quoted or angled,
# except the angled ones that name no header of this tree (system headers).
includes() {
	for f in "$@"; do
		grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$f" |
			sed 's/^\([0-9]*\):[[:space:]]*#[[:space:]]*include[[:space:]]*\(["<]\)\([^">]*\)[">].*/\1:\2\3/' |
			while IFS=: read -r line name; do
				case $name in
				'<'*)
					name=${name#<}
					case $name in yajl/*) ;; *) in_tree "$name" || continue ;; esac
					;;
				*) name=${name#\"} ;;
				esac
				echo "$f:$line:$name"
			done
	done
}
in_tree() { [ -f "src/libcvisor/$1" ] || [ -f "$1" ] || [ -f "src/libcvisor/base/$1" ] || [ -f "src/include/$1" ]; }
is_base() { [ -f "src/libcvisor/base/$1" ]; }
is_oci() { case $1 in oci/*) [ -f "$1" ] ;; *) false ;; esac; }
c_files() { find "$@" -name '*.[ch]' | LC_ALL=C sort; }

n=0
failed=0
point() { # NAME OFFENCES (one a line)
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		printf '%s\n' "$2" | sed 's/^/# /'
		failed=1
	fi
}

bad=$(includes $(c_files src hooks) | grep ':yajl/' || true)
point "only oci/ includes a yajl header" "$bad"

bad=$(includes $(c_files oci) | while IFS=: read -r f line name; do
	case $name in yajl/*) continue ;; esac
	[ "$name" = config.h ] || [ -f "oci/$name" ] || is_base "$name" || echo "$f:$line: $name"
done)
point "oci/ includes only oci/ and base headers" "$bad"

bad=$(includes $(c_files src/libcvisor/base) | while IFS=: read -r f line name; do
	[ "$name" = config.h ] || is_base "$name" || echo "$f:$line: $name"
done)
point "base includes only base headers" "$bad"

bad=$(includes $(c_files hooks) | while IFS=: read -r f line name; do
	[ "$name" = config.h ] || is_oci "$name" || is_base "$name" || echo "$f:$line: $name"
done)
point "hooks/ includes only oci/ and base headers" "$bad"

bad=$(includes src/cvisor.c $(c_files src/cmd) | while IFS=: read -r f line name; do
	case $f:$name in src/cvisor.c:cvisor-binary.h) continue ;; esac
	[ "$name" = config.h ] || [ "$name" = cvisor.h ] || [ -f "src/cmd/$name" ] || is_base "$name" ||
		echo "$f:$line: $name: a library header (use the public API, src/include/cvisor.h)"
done)
point "the command line includes no library header" "$bad"

echo "1..$n"
exit $failed

#!/bin/sh
# Every C source of the tree is as .clang-format lays it out (`make format`
# rewrites them so). TAP: one test point, a `# FILE` line per file that
# clang-format would change. Skipped without clang-format 14 (Debian 12's:
# another version lays some constructs out differently).
#
#   tests/lint/format.sh [SOURCE-DIR]   (default: the tree holding it)
set -eu

cd "${1:-$(dirname "$0")/../..}"

echo "1..1"
version=$(clang-format --version 2>/dev/null | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [ "$version" != 14 ]; then
	echo "ok 1 # SKIP clang-format 14 is not installed (found: ${version:-none})"
	exit 0
fi
# one clang-format for all: its complaints name FILE:LINE:COL
bad=$(find src oci hooks tests -name build -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print | sort |
	xargs clang-format --dry-run 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: .*clang-format-violations.*/\1/p' | uniq)
if [ -z "$bad" ]; then
	echo "ok 1 every C file is as .clang-format lays it out"
	exit 0
fi
echo "not ok 1 every C file is as .clang-format lays it out (make format fixes these)"
echo "$bad" | sed 's/^/# /'
exit 1

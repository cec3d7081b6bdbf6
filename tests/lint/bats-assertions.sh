#!/bin/sh
# Rejects bats assertions that cannot fail. bats runs a test under `set -e`,
# which ignores a pipeline negated with `!` and every part of `a && b` but the
# last, so these pass whatever the runtime does:
#   1. a `! cmd` statement: write `run ! cmd`, or `! cmd || false`
#      (`|| return 1`, `|| exit 1` and `|| { ...; false; }` are fine too);
#   2. a chain of tests, `[ ... ] && [ ...` or `[[ ... ]] && ...`: write one
#      assertion a line, or `[[ a && b ]]`.
# The conditions of if/elif/while/until are exempt, as are comments and
# here-documents (scripts written for the container).
#
#   tests/lint/bats-assertions.sh [FILE|DIR...]
# scans the *.bats and *.bash files given (default: all of tests/) and prints
# TAP: one test point per rule, one `# FILE:LINE: text` line per offence.
# Exit status 1 when anything is found. `make check` runs it.
set -eu

if [ $# -eq 0 ]; then
	cd "$(dirname "$0")/../.."
	set -- tests
fi

list() {
	find "$@" -type f \( -name '*.bats' -o -name '*.bash' \) -print0 | LC_ALL=C sort -z
}
if [ -z "$(list "$@" | tr -d '\0')" ]; then
	echo "1..0 # SKIP no .bats or .bash file in $*"
	exit 0
fi

prog=$(
	cat <<'AWK'
# s without the conditions of if/elif/while/until (up to their then/do); a
# condition left open at the end of a line that ends in && || | or \ goes on
# to the next line (incond).
function strip_conditions(s,    out, rest) {
	out = ""
	if (incond) {
		if (!match(s, /(^|[^A-Za-z0-9_])(then|do)([^A-Za-z0-9_]|$)/))
			return ""
		s = substr(s, RSTART + RLENGTH - 1)
		incond = 0
	}
	while (match(s, /(^|[^A-Za-z0-9_$-])(if|elif|while|until)[ \t]/)) {
		out = out substr(s, 1, RSTART)
		rest = substr(s, RSTART + RLENGTH)
		if (!match(rest, /(^|[^A-Za-z0-9_])(then|do)([^A-Za-z0-9_]|$)/)) {
			incond = 1
			return out
		}
		s = substr(rest, RSTART)
	}
	return out s
}

function report(rule) {
	printf "%s\t%s:%d: %s\n", rule, FILENAME, FNR, text
}

FNR == 1 { heredoc = ""; incond = 0 }

{
	line = $0
	if (heredoc != "") {
		t = line
		if (heredoc_tabs)
			sub(/^\t+/, "", t)
		if (t == heredoc)
			heredoc = ""
		next
	}
	text = line
	sub(/^[ \t]+/, "", text)
	if (text == "" || text ~ /^#/)
		next
	code = text
	sub(/[ \t]+#.*$/, "", code)
	open = (code ~ /(&&|\|\||\||\\)[ \t]*$/)
	t = strip_conditions(code)
	if (!open)
		incond = 0

	# rule 1: a negated statement whose status set -e ignores
	if (match(t, /(^|[;&|{(]|[^A-Za-z0-9_](then|do|else))[ \t]*![ \t]/)) {
		rest = substr(t, RSTART + RLENGTH)
		if (rest !~ /\|\|[ \t]*(false|return 1|exit 1)([^A-Za-z0-9_]|$)/ &&
		    rest !~ /\|\|[ \t]*\{.*(false|return 1|exit 1)[ \t]*;?[ \t]*\}/)
			report(1)
	}
	# rule 2: tests chained with &&
	if (t ~ /\][ \t]*&&[ \t]*\[/ || t ~ /\]\][ \t]*&&/)
		report(2)

	# a here-document starts after this line (<<< is a here-string)
	if (match(code, /(^|[^<])<<-?[ \t]*["']?[A-Za-z_][A-Za-z0-9_]*/)) {
		tok = substr(code, RSTART, RLENGTH)
		sub(/^[^<]*<</, "", tok)
		heredoc_tabs = (substr(tok, 1, 1) == "-")
		gsub(/[- \t"']/, "", tok)
		heredoc = tok
	}
}
AWK
)

found="$(list "$@" | xargs -0 -r awk "$prog")"

rule_point() {
	n=$1
	what=$2
	hits="$(printf '%s\n' "$found" | sed -n "s/^$n	//p")"
	if [ -z "$hits" ]; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		printf '%s\n' "$hits" | sed 's/^/# /'
	fi
}

echo 1..2
rule_point 1 "no \`! cmd\` statement that set -e ignores (use \`run ! cmd\` or \`! cmd || false\`)"
rule_point 2 "no \`[ ] && [\` or \`[[ ]] &&\` chain of assertions (one assertion a line)"
[ -z "$found" ]

#!/usr/bin/env bats
# contrib/completion/cvisor against the binary's own --help: every command
# and every flag it lists is completed, and nothing else, so the two cannot
# drift apart.

load helpers

setup() {
	cv_setup
	COMPLETION="$CVISOR_SRCDIR/contrib/completion/cvisor"
	[ -f "$COMPLETION" ]
	# shellcheck source=/dev/null
	source "$COMPLETION"
}

# complete WORD...: what completing the last word offers, sorted, one a line.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_cvisor
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

# The commands of `cvisor --help`.
help_commands() {
	"$CVISOR" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' | sort -u
}

# The flags of a --help text on stdin: the flag column of the indented lines
# of its flag section (up to the first run of two spaces), every -x and
# --xyz in it.
help_flags() {
	awk '/^(Global flags|Flags)/ { on = 1; seen = 0; next }
		on && /^ / { seen = 1; print; next }
		on && seen { on = 0 }' |
		sed -E 's/^ +//; s/  .*//' | grep -oE '(^|[ ,])--?[a-zA-Z][a-z0-9-]*' | sed -E 's/^[ ,]//' | sort -u
}

@test "completion: every command of cvisor --help, and nothing else" {
	run help_commands
	[ "${#lines[@]}" -ge 17 ]
	want="$output"
	run complete_words cvisor ""
	[ "$output" = "$want" ]
	run complete_words cvisor --root /x ""
	[ "$output" = "$want" ]
}

@test "completion: the global flags of cvisor --help, and nothing else" {
	want="$("$CVISOR" --help | help_flags)"
	[[ "$want" == *--root* ]]
	run complete_words cvisor -
	[ "$output" = "$want" ]
}

@test "completion: every flag of every command's --help, and nothing else" {
	local cmd want
	for cmd in $(help_commands); do
		want="$("$CVISOR" "$cmd" --help | help_flags)"
		# a command without a flag section still takes -h and --help
		[ -n "$want" ] || want="$(printf '%s\n' --help -h)"
		run complete_words cvisor "$cmd" -
		if [ "$output" != "$want" ]; then
			echo "cvisor $cmd: --help lists:" $want
			echo "completion offers:" $output
			false
		fi
	done
}

@test "completion: values of flags, container ids, signals" {
	run complete_words cvisor --log-format ""
	[ "$output" = "$(printf '%s\n' json text)" ]
	run complete_words cvisor --rootless a
	[ "$output" = auto ]
	run complete_words cvisor list --format ""
	[ "$output" = "$(printf '%s\n' json table)" ]
	run complete_words cvisor do --network o
	[ "$output" = outbound ]
	run complete_words cvisor exec --cap CAP_SYS_AD
	[ "$output" = CAP_SYS_ADMIN ]
	run complete_words cvisor kill some-id TER
	[ "$output" = TERM ]
	# a flag's value is not taken for the command
	run complete_words cvisor --root "$CV_TMP" --log /dev/null st
	[ "$output" = "$(printf '%s\n' start state)" ]
	# ids come from `cvisor list -q` under the --root of the command line
	mkdir -p "$CV_TMP/fake"
	cat >"$CV_TMP/fake/cvisor" <<-EOF
	#!/bin/sh
	[ "\$*" = "--root $CV_TMP/r list -q" ] && printf 'alpha\nbeta\n'
	EOF
	chmod +x "$CV_TMP/fake/cvisor"
	run complete_words "$CV_TMP/fake/cvisor" --root "$CV_TMP/r" delete -f b
	[ "$output" = beta ]
}

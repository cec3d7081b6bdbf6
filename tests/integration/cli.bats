#!/usr/bin/env bats
# The command line itself: help, version, flags, errors, spec, features,
# list/state on an empty root, --log output.

load helpers

VERBS="create start run state kill delete exec ps list pause resume update events spec features"

@test "cli: --help lists every command" {
	run "$CVISOR" --help
	[ "$status" -eq 0 ]
	for v in $VERBS; do
		[[ "$output" == *"  $v "* ]] || { echo "missing $v"; false; }
	done
	run "$CVISOR" -h
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: cvisor"* ]]
}

@test "cli: every command has --help" {
	for v in $VERBS; do
		run "$CVISOR" "$v" --help
		[ "$status" -eq 0 ] || { echo "$v: $output"; false; }
		[[ "$output" == "Usage: cvisor $v"* ]] || { echo "$v: $output"; false; }
	done
}

@test "cli: --version names cvisor, the spec and the libraries" {
	run "$CVISOR" --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^cvisor\ version\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[ "${lines[1]}" = "spec: 1.3.0" ]
	[[ "$output" =~ yajl:\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[[ "$output" =~ libseccomp:\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[[ "$output" =~ libcap:\ [0-9]+\.[0-9]+ ]]
	[[ "$output" =~ libmount:\ [0-9]+\.[0-9]+ ]]
	run "$CVISOR" -v
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "cvisor version "* ]]
}

# +STATIC when the binary has no program interpreter (a libtool wrapper
# script means a dynamic build).
expected_static_word() {
	if [ "$(head -c 2 "$CVISOR")" != "#!" ] && ! readelf -l "$CVISOR" | grep -q INTERP; then
		echo +STATIC
	else
		echo -STATIC
	fi
}

@test "cli: --version and features say what this build supports" {
	requires jq readelf
	run "$CVISOR" --version
	[ "$status" -eq 0 ]
	local words
	words="$(printf '%s\n' "$output" | sed -n 's/^features: //p')"
	[ -n "$words" ]
	[[ " $words " == *" $(expected_static_word) "* ]]
	for w in +SECCOMP +SECCOMP_NOTIFY +SYSTEMD +IDMAP +ROOTLESS -CRIU; do
		[[ " $words " == *" $w "* ]] || { echo "missing $w in: $words"; false; }
	done
	run "$CVISOR" features
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.annotations["org.cvisor.features"]')" = "$words" ]
	[ "$(echo "$output" | jq -r '.annotations["org.cvisor.version"]')" = "$("$CVISOR" --version | sed -n 's/^cvisor version //p')" ]
	[ "$(echo "$output" | jq -r '.annotations["io.github.seccomp.libseccomp.version"]')" = "$("$CVISOR" --version | sed -n 's/^libseccomp: //p')" ]
	[[ "$(echo "$output" | jq -r '.annotations["org.cvisor.rootless"]')" == *newuidmap*delegated* ]]
	echo "$output" | jq -e '.linux.cgroup.systemd == true and .linux.cgroup.systemdUser == true'
	echo "$output" | jq -e '.linux.seccomp.actions | index("SCMP_ACT_NOTIFY") != null'
	echo "$output" | jq -e '.linux.mountExtensions.idmap.enabled == true'
}

@test "cli: usage errors: one line, a hint, exit 1" {
	run "$CVISOR" --bogus list
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: unknown flag --bogus; see cvisor --help" ]

	run cvisor state --bogus x
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: unknown flag --bogus; see cvisor state --help" ]

	run cvisor delete -z x
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: unknown flag -z; see cvisor delete --help" ]

	run cvisor start
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: missing container id; see cvisor start --help" ]

	run cvisor state a b
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: unexpected argument "b"; see cvisor state --help' ]

	run cvisor create --bundle
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: flag --bundle needs a value; see cvisor create --help" ]

	run cvisor frobnicate
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: unknown command "frobnicate"; see cvisor --help' ]

	run "$CVISOR" --root "$CV_ROOT"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: missing command; see cvisor --help" ]

	run "$CVISOR" --rootless maybe list
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: --rootless: invalid value "maybe" (expected true, false or auto); see cvisor --help' ]

	run "$CVISOR" --log-format xml list
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: --log-format: invalid value "xml" (expected text or json); see cvisor --help' ]

	run cvisor create --preserve-fds -1 x
	[ "$status" -eq 1 ]
	[[ "$output" == 'cvisor: --preserve-fds: invalid value "-1"'* ]]

	run cvisor list --format yaml
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: --format: invalid value "yaml" (expected table or json); see cvisor list --help' ]

	run cvisor exec x
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: missing the command to run (or --process FILE); see cvisor exec --help" ]
}

@test "cli: runc-style flag spellings: -flag, --flag=value" {
	run "$CVISOR" -root "$CV_ROOT" list -q
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	run "$CVISOR" --root="$CV_ROOT" list --format=json
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
	# --criu is accepted (engines pass it) and has no effect.
	run "$CVISOR" --criu /usr/sbin/criu --root "$CV_ROOT" list -q
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
}

@test "cli: kill: signal names and numbers are checked before anything else" {
	for s in NOTASIG SIGFOO 0 65 -3 RTMIN+99 RTMAX-99 9x; do
		run cvisor kill "$CV_ID" "$s"
		[ "$status" -eq 1 ]
		[ "$output" = "cvisor: invalid signal \"$s\"" ] || { echo "$s: $output"; false; }
	done
	# Valid names reach the library, which reports the missing container.
	for s in KILL SIGKILL kill sigterm 9 15 HUP SIGUSR1 RTMIN RTMIN+2 SIGRTMAX-1 rtmax; do
		run cvisor kill "$CV_ID" "$s"
		[ "$status" -eq 1 ]
		[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ] || { echo "$s: $output"; false; }
	done
}

@test "cli: list and state on an empty root" {
	run cvisor list
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^ID\ +PID\ +STATUS\ +BUNDLE\ +CREATED\ +OWNER$ ]]
	run cvisor list --format json
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
	run cvisor list -q
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	# Listing does not create the root.
	[ ! -e "$CV_ROOT" ]

	run cvisor state "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ]
	for verb in start pause resume delete ps; do
		run cvisor "$verb" "$CV_ID"
		[ "$status" -eq 1 ]
		[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ] || { echo "$verb: $output"; false; }
	done
}

@test "cli: bad container ids are refused with the rule" {
	local long
	long="$(printf 'a%.0s' $(seq 1025))"
	for id in 'a/b' '../x' 'a b' 'a:b' 'a*' 'é' '$x'; do
		run cvisor state "$id"
		[ "$status" -eq 1 ]
		[ "$output" = "cvisor: invalid container id \"$id\": only letters, digits and _+-. are allowed" ] ||
			{ echo "$id: $output"; false; }
	done
	for id in . ..; do
		run cvisor state "$id"
		[ "$status" -eq 1 ]
		[ "$output" = "cvisor: invalid container id \"$id\": must not be \".\" or \"..\"" ]
	done
	run cvisor state ""
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: invalid container id "": must not be empty' ]
	run cvisor state "$long"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: invalid container id \"${long:0:32}...\": longer than 1024 bytes" ]
	# Ids runc accepts are valid here too (and simply do not exist).
	for id in a A0 a_b a+b a-b a.b .a ..a 'a..'; do
		run cvisor state "$id"
		[ "$status" -eq 1 ]
		[ "$output" = "cvisor: container \"$id\" does not exist" ] || { echo "$id: $output"; false; }
	done
}

@test "cli: spec writes a valid default config.json and never overwrites" {
	requires jq
	mkdir -p "$CV_TMP/b"
	run "$CVISOR" spec --bundle "$CV_TMP/b"
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	run jq -r '.ociVersion, .root.path, .process.args[0], .process.cwd' "$CV_TMP/b/config.json"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "1.3.0" ]
	[ "${lines[1]}" = "rootfs" ]
	[ "${lines[2]}" = "sh" ]
	[ "${lines[3]}" = "/" ]
	run jq -r '[.linux.namespaces[].type] | sort | join(",")' "$CV_TMP/b/config.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *mount* ]]
	[[ "$output" == *pid* ]]
	[[ "$output" != *user* ]]

	cp "$CV_TMP/b/config.json" "$CV_TMP/before"
	run "$CVISOR" spec --bundle "$CV_TMP/b"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: \`$CV_TMP/b/config.json\` already exists: remove it first" ]
	cmp "$CV_TMP/before" "$CV_TMP/b/config.json"

	# Default bundle: the current directory.
	mkdir "$CV_TMP/cwd"
	(cd "$CV_TMP/cwd" && "$CVISOR" spec)
	jq -e '.ociVersion == "1.3.0"' "$CV_TMP/cwd/config.json"

	run "$CVISOR" spec --bundle "$CV_TMP/missing"
	[ "$status" -eq 1 ]
	[[ "$output" == "cvisor: open bundle \`$CV_TMP/missing\`: No such file or directory" ]]
}

@test "cli: spec --rootless maps the caller's ids in a user namespace" {
	requires jq
	"$CVISOR" spec --rootless --bundle "$CV_TMP"
	jq -e '[.linux.namespaces[].type] | index("user") != null' "$CV_TMP/config.json"
	jq -e ".linux.uidMappings[0].hostID == $(id -u) and .linux.gidMappings[0].hostID == $(id -g)" "$CV_TMP/config.json"
}

@test "cli: runc runs the bundle cvisor spec writes" {
	requires runc jq
	requires_root
	make_bundle
	update_config '.process.args = ["sh", "-c", "echo hello from runc"]'
	local rroot="$CV_TMP/runc-root"
	run runc --root "$rroot" run --bundle "$CV_BUNDLE" "$CV_ID"
	runc --root "$rroot" delete --force "$CV_ID" >/dev/null 2>&1 || true
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$output" = "hello from runc" ]
}

@test "cli: features prints runtime-spec features JSON" {
	requires jq
	run "$CVISOR" features
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.ociVersionMin == "1.0.0" and .ociVersionMax == "1.3.0"'
	echo "$output" | jq -e '.linux.namespaces | index("mount") != null'
	echo "$output" | jq -e '.linux.capabilities | index("CAP_SYS_ADMIN") != null'
	echo "$output" | jq -e '(.mountOptions | length) > 0'
	echo "$output" | jq -e '.linux.memoryPolicy.modes | index("MPOL_BIND") != null'
	echo "$output" | jq -e '.linux.memoryPolicy.flags | index("MPOL_F_STATIC_NODES") != null'
}

@test "cli: update and events parse runc's flags and name bad values" {
	run cvisor update --memory 1000000 --cpu-quota 1000 --pids-limit 10 "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ]
	run cvisor update --memory lots "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: update: --memory: invalid size "lots" (e.g. 128m, 1g, -1)' ]
	run cvisor update --l3-cache-schema L3:0=f "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: update: --l3-cache-schema: Intel RDT (linux.intelRdt) is not supported by cvisor" ]
	run cvisor events --stats --interval 1s "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ]
	run cvisor events --interval bogus "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: events: --interval: invalid duration "bogus" (e.g. 500ms, 5s; at least 1ms)' ]
}

@test "cli: --log-format json writes one JSON object per line" {
	requires jq
	run "$CVISOR" --root "$CV_ROOT" --log "$CV_TMP/log.json" --log-format json state "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ]
	[ "$(wc -l <"$CV_TMP/log.json")" -eq 1 ]
	run jq -r '.level, .msg, .time' "$CV_TMP/log.json"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "error" ]
	[ "${lines[1]}" = "container \"$CV_ID\" does not exist" ]
	[[ "${lines[2]}" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$ ]]

	# Appends; messages with quotes, backslashes and newlines stay one valid line.
	run "$CVISOR" --root "$CV_ROOT" --log "$CV_TMP/log.json" --log-format json state 'a"b\c'
	[ "$status" -eq 1 ]
	[ "$(wc -l <"$CV_TMP/log.json")" -eq 2 ]
	run jq -r -s '.[1].msg' "$CV_TMP/log.json"
	[ "$output" = 'invalid container id "a"b\c": only letters, digits and _+-. are allowed' ]
}

@test "cli: --log text format and an unwritable log" {
	run "$CVISOR" --root "$CV_ROOT" --log "$CV_TMP/log.txt" state "$CV_ID"
	[ "$status" -eq 1 ]
	run cat "$CV_TMP/log.txt"
	[[ "$output" =~ ^time=\"[0-9T:.Z-]+\"\ level=error\ msg=\"container\ \\\"$CV_ID\\\"\ does\ not\ exist\"$ ]]

	run "$CVISOR" --root "$CV_ROOT" --log "$CV_TMP/no/such/dir/log" list
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: open log file \`$CV_TMP/no/such/dir/log\`: No such file or directory" ]
}

#!/usr/bin/env bats
# The state store under --root: layout, atomic entries, duplicate and missing
# ids, locking between concurrent commands.

load helpers

@test "store: list skips what is not a container; symlinks are not followed" {
	mkdir -p "$CV_ROOT/~new~abc" "$CV_TMP/elsewhere"
	touch "$CV_ROOT/plain-file"
	ln -s "$CV_TMP/elsewhere" "$CV_ROOT/link"
	run cvisor list -q
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	# A directory without our lock file is no container.
	mkdir "$CV_ROOT/real-dir-without-lock"
	run cvisor state link
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: container "link" does not exist' ]
	run cvisor state real-dir-without-lock
	[ "$status" -eq 1 ]
	[ "$output" = 'cvisor: container "real-dir-without-lock" does not exist' ]
	# Nothing was created or removed.
	[ -d "$CV_TMP/elsewhere" ]
	[ -f "$CV_ROOT/plain-file" ]
}

@test "store: create makes a 0700 root and one entry; duplicate ids are refused" {
	make_bundle
	cv_create "$CV_ID"
	[ "$(stat -c %a "$CV_ROOT")" = 700 ]
	[ -d "$CV_ROOT/$CV_ID" ]
	[ -f "$CV_ROOT/$CV_ID/state.json" ]
	[ "$(stat -c %a "$CV_ROOT/$CV_ID")" = 700 ]
	run cvisor state "$CV_ID"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r .status)" = created ]
	local before
	before="$(cat "$CV_ROOT/$CV_ID/state.json")"

	run cvisor create --bundle "$CV_BUNDLE" "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: container \"$CV_ID\" already exists" ]
	[ "$(cat "$CV_ROOT/$CV_ID/state.json")" = "$before" ]
	# No temporary entries are left behind.
	[ "$(ls -A "$CV_ROOT")" = "$CV_ID" ]
}

@test "store: delete removes the entry" {
	make_bundle
	cv_create "$CV_ID"
	run cvisor delete --force "$CV_ID"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ ! -e "$CV_ROOT/$CV_ID" ]
	[ -z "$(ls -A "$CV_ROOT")" ]
	run cvisor state "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ]
	run cvisor delete "$CV_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: container \"$CV_ID\" does not exist" ]
}

@test "store: list is sorted and shows every container" {
	make_bundle
	local a b c
	c="$(cv_new_id)-c" && b="$(cv_new_id)-b" && a="$(cv_new_id)-a"
	for id in "$c" "$a" "$b"; do
		cv_create "$id"
	done
	run cvisor list -q
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' "$a" "$b" "$c" | sort)" ]
	run cvisor list --format json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r 'map(.id) | join(" ")')" = "$(printf '%s\n' "$a" "$b" "$c" | sort | xargs)" ]
	[ "$(echo "$output" | jq -r 'map(.status) | unique | join(" ")')" = created ]
	run cvisor list
	[ "${#lines[@]}" -eq 4 ]
	[[ "${lines[1]}" == "$(printf '%s\n' "$a" "$b" "$c" | sort | head -1) "* ]]
}

@test "store: concurrent creates: distinct ids all succeed, one id exactly once" {
	make_bundle
	local i pids=() ok=0 ids=()
	for i in 1 2 3 4 5 6; do
		ids+=("$(cv_new_id)")
	done
	for id in "${ids[@]}"; do
		"$CVISOR" --root "$CV_ROOT" create --bundle "$CV_BUNDLE" "$id" </dev/null >"$CV_TMP/out.$id" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || { cat "$CV_TMP"/out.*; false; }
	done
	[ "$(cvisor list -q | wc -l)" -eq 6 ]

	local same
	same="$(cv_new_id)"
	pids=()
	for i in 1 2 3 4 5 6; do
		"$CVISOR" --root "$CV_ROOT" create --bundle "$CV_BUNDLE" "$same" </dev/null >"$CV_TMP/same.$i" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		if wait "$p"; then ok=$((ok + 1)); fi
	done
	[ "$ok" -eq 1 ]
	[ "$(grep -l "already exists" "$CV_TMP"/same.* | wc -l)" -eq 5 ]
	[ "$(cvisor list -q | wc -l)" -eq 7 ]
}

@test "store: an id too long for a directory name is refused cleanly" {
	make_bundle
	local long
	long="$(printf 'b%.0s' $(seq 300))"
	run cvisor create --bundle "$CV_BUNDLE" "$long"
	[ "$status" -eq 1 ]
	[ "$output" = "cvisor: invalid container id \"${long:0:32}...\": longer than 255 bytes, the limit of a directory name" ]
	[ -z "$(ls -A "$CV_ROOT" 2>/dev/null)" ]
}

#!/usr/bin/env bats
# The ignore rules of copy_into and cache_save (src/libcvisor/files/ignore.c)
# through their tree walk (tests/integration/ignore-list), against git
# itself: a tree of real-world .gitignore patterns in a scratch repository,
# where what the walk keeps must be exactly what git does not ignore.

load helpers

ignore_list() {
	"$CVISOR_BUILDDIR/tests/integration/ignore-list" "$@"
}

# git on the scratch repository only: no global or system excludes, no
# user configuration (HOME points into CV_TMP)
git_repo() {
	HOME="$CV_TMP/home" XDG_CONFIG_HOME="$CV_TMP/home/.config" GIT_CONFIG_NOSYSTEM=1 \
		git -C "$CV_TMP/repo" -c core.excludesFile=/dev/null "$@"
}

# A tree with nested .gitignore files: negations, anchors, `**`,
# directory-only patterns, classes, escapes, trailing spaces.
make_repo() {
	local r="$CV_TMP/repo"
	mkdir -p "$CV_TMP/home" "$r"
	git_repo init -q
	cd "$r"
	# 50 patterns at the root
	cat >.gitignore <<-'EOF'
	# build output
	/build/
	dist/
	*.o
	*.so
	*.py[cod]
	__pycache__/
	*.log
	!important.log
	node_modules/
	.env
	.env.*
	!.env.example
	*.swp
	*~
	.DS_Store
	/coverage
	**/tmp/
	logs/**
	!logs/keep/
	!logs/keep/**
	doc/**/*.pdf
	**/secret/*.key
	[Tt]humbs.db
	*.[oa]x
	file?.txt
	\#notes#
	\!important
	/anchored.txt
	mid/anchored
	vendor/*
	!vendor/keep-me/
	*.tmp
	!*.tmp/
	target
	!src/**/*.keep.o
	[!a-m]*.bak
	[[:digit:]]*.num
	linkdir/
	a/**/z
	**/cache/**
	!**/cache/README
	*.min.[jc]s
	/*.cfg
	!/app.cfg
	.idea/
	*.iml
	out/*/gen
	[^x]y.dat
	nested/**/deep/
	q/a[!x]b
	q/?/c
	q/x?y
	EOF
	# trailing spaces: removed, unless escaped
	printf 'trailing.txt   \nescaped\\ \n  lead.txt\nbackslash\\\\name\n' >>.gitignore
	mkdir -p src/sub src/generated doc/api doc/internal vendor/keep-me vendor/drop logs/keep/x logs/other \
		a/b/c a/z-dir mid tmp src/tmp build src/build dist x/dist node_modules/pkg __pycache__ \
		x/secret secret coverage sub/coverage target/debug src/target nested/a/deep nested/deep \
		nested/a/b/deep/more cache/x src/cache xtmp src/mytmp q/a q/b q/x out/a/gen out/a/b/gen symdir .idea
	cat >src/.gitignore <<-'EOF'
	*.gen.c
	!keep.gen.c
	/local-only
	generated/
	!*.log
	EOF
	cat >src/sub/.gitignore <<-'EOF'
	/dist
	*.c
	!main.c
	!*.o
	EOF
	cat >doc/.gitignore <<-'EOF'
	internal/
	!public.pdf
	EOF
	printf '*.bin\n!keep.bin\n' >vendor/keep-me/.gitignore
	printf '!*.tmp\n' >a/b/.gitignore
	# a symlinked .gitignore is not read, by git nor by the walk
	printf '*\n' >"$CV_TMP/elsewhere"
	ln -s "$CV_TMP/elsewhere" symdir/.gitignore
	local f
	for f in main.c x.o x.so m.pyc m.pyo m.py important.log debug.log .env .env.local .env.example \
		a.swp notes~ .DS_Store Thumbs.db thumbs.db Xhumbs.db k.ox k.ax k.bx file1.txt file10.txt \
		'#notes#' '!important' anchored.txt x.tmp Cargo.lock n.bak a.bak 1.num a1.num \
		trailing.txt 'trailing.txt ' 'escaped ' escaped lead.txt '  lead.txt' 'backslash\name' \
		app.min.js app.min.css app.min.ts x.cfg app.cfg proj.iml yy.dat xy.dat .idea/ws.xml \
		build/out src/build/out dist/d x/dist/d src/sub/dist src/dist node_modules/pkg/i.js \
		__pycache__/c src/a.gen.c src/keep.gen.c src/local-only src/sub/local-only src/generated/g \
		src/x.log src/sub/a.c src/sub/main.c src/sub/q.o src/sub/x.keep.o src/y.keep.o \
		doc/api/a.pdf doc/public.pdf doc/api/public.pdf doc/x.pdf doc/internal/i doc/api/internal \
		vendor/keep-me/a.bin vendor/keep-me/keep.bin vendor/keep-me/s vendor/drop/d vendor/top \
		logs/keep/x/l logs/keep/k logs/other/o logs/top a/b/c/z a/z a/b/z a/z-dir/f a/b/y.tmp \
		a/b/c/y.tmp mid/anchored tmp/t src/tmp/t x/secret/a.key x/secret/a.pem secret/b.key \
		coverage/c sub/coverage/c target/debug/t src/target/t nested/a/deep/f nested/deep/f \
		nested/a/b/deep/more/f cache/x/f cache/README src/cache/README src/cache/f out/a/gen/f \
		out/a/b/gen/f symdir/s a/xz xtmp/f src/mytmp/f q/a/b q/acb q/a/c q/b/c q/x/y q/xzy; do
		printf 'x\n' >"$f"
	done
	mkdir x.tmp.d y.tmp && printf 'x\n' >y.tmp/inside
	ln -s symdir linkdir
	ln -s /etc etc-link
	cd - >/dev/null
}

# Paths, one a line, sorted: what the walk keeps (all, or files only).
walk_kept() {
	ignore_list -0 "$CV_TMP/repo" | tr '\0' '\n' | grep -v '^\.git/' | sort
}

@test "ignore: the walk keeps exactly the files git does not ignore (50+ patterns, nested files)" {
	requires git
	make_repo
	[ "$(grep -cv '^#' "$CV_TMP/repo/.gitignore")" -ge 40 ]
	walk_kept | grep -v '/$' >"$CV_TMP/walk-files"
	git_repo ls-files -z --others --exclude-standard | tr '\0' '\n' | sort >"$CV_TMP/git-files"
	# the corpus exercises both sides
	[ "$(wc -l <"$CV_TMP/git-files")" -ge 50 ]
	[ "$(git_repo ls-files -z --others --ignored --exclude-standard | tr '\0' '\n' | wc -l)" -ge 50 ]
	run diff -u "$CV_TMP/git-files" "$CV_TMP/walk-files"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "ignore: for every path of the tree, kept by the walk exactly when git check-ignore says not ignored" {
	requires git
	make_repo
	walk_kept | sed 's|/$||' | sort >"$CV_TMP/walk-all"
	# every path, directories too; git's verdict one path at a time (-v
	# --non-matching: an empty pattern or a `!` one means not ignored)
	(cd "$CV_TMP/repo" && find . -mindepth 1 -path ./.git -prune -o -printf '%P\0') >"$CV_TMP/all"
	git_repo check-ignore -z -v --non-matching --stdin <"$CV_TMP/all" | tr '\0' '\n' |
		awk 'NR % 4 == 3 { pat = $0 } NR % 4 == 0 { if (pat == "" || substr(pat, 1, 1) == "!") print }' |
		sort >"$CV_TMP/git-kept"
	[ "$(wc -l <"$CV_TMP/git-kept")" -ge 80 ]
	run diff -u "$CV_TMP/git-kept" "$CV_TMP/walk-all"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "ignore: the walk never follows a symlink, and reads no symlinked or special ignore file" {
	local t="$CV_TMP/t"
	mkdir -p "$t/d" "$t/fifo" "$t/real"
	printf 'x\n' >"$t/real/file"
	printf '*\n' >"$CV_TMP/outside-rules"
	ln -s "$CV_TMP/outside-rules" "$t/d/.gitignore"
	printf 'kept\n' >"$t/d/kept"
	mkfifo "$t/fifo/.gitignore"
	printf 'kept\n' >"$t/fifo/kept"
	ln -s real "$t/link"
	ln -s /etc "$t/etc"
	run -0 timeout 20 "$CVISOR_BUILDDIR/tests/integration/ignore-list" "$t"
	[ "${lines[*]}" = "d/ d/.gitignore d/kept etc fifo/ fifo/.gitignore fifo/kept link real/ real/file" ]
}

@test "ignore: a directory comes before its contents, in name order, and a callback can skip it" {
	local t="$CV_TMP/t"
	mkdir -p "$t/b/inner" "$t/a" "$t/c"
	touch "$t/b/inner/z" "$t/b/y" "$t/a/x" "$t/c/w" "$t/0"
	run -0 ignore_list --skip b "$t"
	[ "${lines[*]}" = "0 a/ a/x b/ c/ c/w" ]
}

@test "ignore: .dockerignore at the root: exceptions reach into excluded directories" {
	local t="$CV_TMP/t"
	mkdir -p "$t/node_modules/pkg" "$t/docs/api" "$t/src/sub" "$t/sub/node_modules"
	cat >"$t/.dockerignore" <<-'EOF'
	# comment
	  node_modules  
	!node_modules/pkg/keep.js
	/docs
	!docs/README.md
	*.md
	!/README.md
	**/*.secret
	./src/sub/
	EOF
	touch "$t/node_modules/pkg/i.js" "$t/node_modules/pkg/keep.js" "$t/docs/api/a.html" "$t/docs/README.md" \
		"$t/README.md" "$t/CHANGES.md" "$t/src/a.secret" "$t/src/a.c" "$t/src/sub/x" \
		"$t/sub/node_modules/m" "$t/a.secret"
	run -0 ignore_list "$t"
	echo "$output"
	# `*.md` matches at the root only: docs/README.md stays re-included
	[ "${lines[*]}" = ".dockerignore README.md docs/ docs/README.md node_modules/ node_modules/pkg/ node_modules/pkg/keep.js src/ src/a.c sub/ sub/node_modules/ sub/node_modules/m" ]
	# a directory visited late can still be skipped
	run -0 ignore_list --skip pkg "$t"
	[ "${lines[*]}" = ".dockerignore README.md docs/ docs/README.md node_modules/ node_modules/pkg/ src/ src/a.c sub/ sub/node_modules/ sub/node_modules/m" ]
}

@test "ignore: a .dockerignore with a bad pattern is an error naming its line" {
	mkdir -p "$CV_TMP/t"
	printf 'ok\nbad[\n' >"$CV_TMP/t/.dockerignore"
	run -1 ignore_list "$CV_TMP/t"
	[ "$output" = 'ignore-list: `.dockerignore`, line 2: bad pattern `bad[`' ]
}

@test "ignore: the walk's bounds: depth, ignore file size" {
	local t="$CV_TMP/t" p i
	p="$t"
	for ((i = 0; i < 258; i++)); do p="$p/d"; done
	mkdir -p "$p"
	run -1 ignore_list "$t"
	[[ "$output" == *'ignore-list: `d/d/'*'`: deeper than 256 directories' ]]
	rm -rf "$t"
	mkdir -p "$t/sub"
	head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' 'a' >"$t/sub/.gitignore"
	run -1 ignore_list "$t"
	[[ "$output" == *'ignore-list: `sub/.gitignore`: too large'* ]]
}

@test "ignore: random patterns made from the tree's own paths: the walk keeps what git keeps (100 rounds)" {
	requires git python3
	run -0 python3 "$CVISOR_TESTS_DIR/ignore-random.py" "$CVISOR_BUILDDIR/tests/integration/ignore-list" \
		"$CV_TMP" 1 100
	echo "$output"
	[[ "${lines[-1]}" == "100 rounds, 0 mismatches;"* ]]
}

#!/usr/bin/env python3
"""Differential test of the .gitignore rules against git, for ignore.bats.

Usage: ignore-random.py IGNORE_LIST WORKDIR SEED ROUNDS

Each round (deterministic from SEED) builds a small random tree in a fresh
repository under WORKDIR, writes .gitignore files in up to three of its
directories with patterns made from its own paths (wildcards, classes,
`**`, anchors, negations, directory-only, escapes, trailing spaces) and
from random atoms, and compares the files ignore-list keeps with
`git ls-files --others --exclude-standard`. Prints each mismatch and
exits 1 if there was one."""
import os
import random
import shutil
import subprocess
import sys

NAMES = ["a", "b", "ab", "ba", "a.c", "b.o", "x", "[a]", "!a", "#a", "a b", "a ", "*", "ac", "bb"]
ATOMS = ["a", "b", "*", "**", "?", "/", "[ab]", "[!a]", "[a-c]", "\\*", "!", ".", "c", "o", " ", "\\ ",
         "#", "\\!", "x", "[]a]", "[", "\\"]
SPECIAL = "*?[]!# \\"


def make_tree(root, rnd, depth=0):
    for name in rnd.sample(NAMES, 5):
        path = os.path.join(root, name)
        if depth < 3 and rnd.random() < 0.4:
            os.makedirs(path, exist_ok=True)
            make_tree(path, rnd, depth + 1)
        elif not os.path.exists(path):
            with open(path, "w") as f:
                f.write("x")


def component(c, rnd):
    r = rnd.random()
    if r < 0.15:
        return "**"
    if r < 0.3:
        return "*"
    out = ""
    for ch in c:
        if rnd.random() < 0.2:
            out += rnd.choice(["*", "?", "[a-b]", "[!b]", ch])
        else:
            out += "\\" + ch if ch in SPECIAL else ch
    return out


def pattern(paths, rnd):
    if not paths or rnd.random() < 0.3:
        return "".join(rnd.choice(ATOMS) for _ in range(rnd.randint(1, 4)))
    comps = rnd.choice(paths).split("/")
    i = rnd.randrange(len(comps))
    s = "/".join(component(c, rnd) for c in comps[i:rnd.randint(i + 1, len(comps))])
    if rnd.random() < 0.3:
        s = "/" + s
    if rnd.random() < 0.2:
        s = "**/" + s
    if rnd.random() < 0.3:
        s += "/"
    if rnd.random() < 0.3:
        s = "!" + s
    if rnd.random() < 0.1:
        s += "  "
    return s


def main():
    ignore_list, work, seed, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=home, GIT_CONFIG_NOSYSTEM="1")
    root = os.path.join(work, "repo")
    bad = kept = total = 0
    for r in range(rounds):
        rnd = random.Random(seed * 100000 + r)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        subprocess.run(["git", "init", "-q", root], env=env, check=True)
        make_tree(root, rnd)
        paths, dirs = [], [""]
        for dp, dn, fn in os.walk(root):
            if dp == os.path.join(root, ".git"):
                dn[:] = []
                continue
            dn[:] = [d for d in dn if not (dp == root and d == ".git")]
            rel = os.path.relpath(dp, root)
            if rel != ".":
                dirs.append(rel)
            paths += [os.path.normpath(os.path.join(rel, n)) for n in dn + fn]
        for d in rnd.sample(dirs, min(len(dirs), 3)):
            with open(os.path.join(root, d, ".gitignore"), "w") as f:
                f.write("\n".join(pattern(paths, rnd) for _ in range(rnd.randint(1, 6))) + "\n")
        git = subprocess.run(["git", "-C", root, "-c", "core.excludesFile=/dev/null", "ls-files", "-z",
                              "--others", "--exclude-standard"], env=env, capture_output=True, check=True)
        want = sorted(x for x in git.stdout.split(b"\0") if x)
        walk = subprocess.run([ignore_list, "-0", root], capture_output=True)
        got = sorted(x for x in walk.stdout.split(b"\0")
                     if x and not x.endswith(b"/") and not x.startswith(b".git/"))
        kept += len(want)
        total += sum(1 for p in paths if os.path.isfile(os.path.join(root, p))) + 1
        if walk.returncode != 0 or want != got:
            bad += 1
            print("mismatch in round %d (seed %d): %s" % (r, seed, walk.stderr.decode(errors="replace")))
            for dp, _, fn in os.walk(root):
                if ".gitignore" in fn and "/.git" not in dp:
                    with open(os.path.join(dp, ".gitignore")) as f:
                        print("  %s/.gitignore: %r" % (os.path.relpath(dp, root), f.read()))
            print("  only git keeps:", sorted(set(want) - set(got))[:10])
            print("  only the walk keeps:", sorted(set(got) - set(want))[:10])
    print("%d rounds, %d mismatches; git kept %d of about %d files" % (rounds, bad, kept, total))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

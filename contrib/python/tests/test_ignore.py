"""cvisor._ignore: the ignore rules RemoteSandbox.copy_into applies on the
client, against git itself (git check-ignore and ls-files, without global
or system configuration) on the corpus of tests/integration/ignore.bats and
on random trees and patterns (tests/integration/ignore-random.py's), and
against libcvisor's own walk (tests/integration/ignore-list of the build)
on the same trees, .dockerignore files included. Each comparison runs the
patterns on both of the module's matchers (regular expressions, NFA)."""
import contextlib
import errno
import importlib.util
import io
import os
import random
import re
import shutil
import stat
import subprocess
import sys
import tarfile

import pytest

from conftest import PKG_DIR
from cvisor import _ignore, _tar

TESTS_DIR = os.environ.get("CVISOR_TESTS_DIR") or os.path.join(os.path.dirname(os.path.dirname(PKG_DIR)), "tests",
                                                                "integration")
IGNORE_BATS = os.path.join(TESTS_DIR, "ignore.bats")


def _build_dir():
    if os.environ.get("CVISOR_BUILDDIR"):
        return os.environ["CVISOR_BUILDDIR"]
    lib = os.environ.get("CVISOR_LIB")  # <build>/.libs/libcvisor.so.0, also where the environment is cleared
    return os.path.dirname(os.path.dirname(lib)) if lib else None


IGNORE_LIST = os.path.join(_build_dir() or "/nonexistent", "tests", "integration", "ignore-list")
needs_c_walk = pytest.mark.skipif(not os.access(IGNORE_LIST, os.X_OK), reason=(
    "%s is not built (make check builds it; CVISOR_BUILDDIR or CVISOR_LIB name the build)" % IGNORE_LIST))
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
needs_corpus = pytest.mark.skipif(not os.path.exists(IGNORE_BATS), reason="%s is not there" % IGNORE_BATS)

ENGINES = ["regex", "nfa"]


@contextlib.contextmanager
def engine(name):
    """Patterns compiled inside run on the matcher NAME only."""
    saved = _ignore._REGEX_MAX_UNBOUNDED
    _ignore._REGEX_MAX_UNBOUNDED = 1 << 20 if name == "regex" else -1
    try:
        yield
    finally:
        _ignore._REGEX_MAX_UNBOUNDED = saved


def py_walk(root, **kw):
    """What _ignore.walk keeps, as ignore-list prints it: bytes, a
    directory with a trailing ``/``, in the walk's order."""
    return [os.fsencode(e.path) + (b"/" if e.is_dir else b"") for e in _ignore.walk(str(root), **kw)]


def c_walk(root):
    """What libcvisor's walk keeps (ignore-list -0): (paths, error)."""
    r = subprocess.run([IGNORE_LIST, "-0", str(root)], capture_output=True)
    paths = [p for p in r.stdout.split(b"\0") if p]
    if r.returncode != 0:
        return paths, r.stderr.decode(errors="replace").strip()
    return paths, None


def py_walk_or_error(root):
    try:
        return py_walk(root), None
    except OSError as e:
        return None, "ignore-list: " + e.strerror


def files_of(paths):
    return sorted(p for p in paths if not p.endswith(b"/") and not p.startswith(b".git/"))


# ---- git, with no configuration but the repository's (as ignore.bats) ----

def git(work, repo, *args, stdin=None):
    home = os.path.join(str(work), "home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"), GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", "-C", str(repo), "-c", "core.excludesFile=/dev/null"] + list(args), env=env,
                          input=stdin, capture_output=True, check=True).stdout


def git_ls_kept(work, repo):
    """The files git does not ignore (ls-files --others --exclude-standard)."""
    return sorted(p for p in git(work, repo, "ls-files", "-z", "--others", "--exclude-standard").split(b"\0") if p)


def all_paths(repo):
    """Every path of the tree but .git's, relative, as bytes."""
    out = []
    for d, dirs, files in os.walk(os.fsencode(str(repo))):
        rel = os.path.relpath(d, os.fsencode(str(repo)))
        if rel == b".":
            dirs[:] = [x for x in dirs if x != b".git"]
        out += [n if rel == b"." else rel + b"/" + n for n in dirs + files]
    return sorted(out)


def git_check_ignore(work, repo, paths):
    """path -> whether git ignores it: git check-ignore -v --non-matching,
    one path at a time through --stdin (an empty pattern or a `!` one:
    not ignored)."""
    out = git(work, repo, "check-ignore", "-z", "-v", "--non-matching", "--stdin", stdin=b"\0".join(paths) + b"\0")
    f = out.split(b"\0")
    verdict = {}
    for i in range(0, len(f) - 3, 4):
        _source, _line, pattern, path = f[i:i + 4]
        verdict[path] = pattern != b"" and not pattern.startswith(b"!")
    assert set(verdict) == set(paths)
    return verdict


def tree(root, files):
    """ROOT with FILES (path -> text), their directories made."""
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


# ---- the corpus of ignore.bats ----

def make_corpus(work):
    """ignore.bats's tree of real-world patterns (its make_repo, run by
    bash as the bats file has it): WORK/repo."""
    with open(IGNORE_BATS) as f:
        text = f.read()
    funcs = re.findall(r"^(?:git_repo|make_repo)\(\) \{\n.*?^\}\n", text, re.M | re.S)
    assert len(funcs) == 2, "git_repo and make_repo are no longer in %s" % IGNORE_BATS
    subprocess.run(["bash", "-c", 'set -e; CV_TMP="$1"; ' + "".join(funcs) + "make_repo", "bash", str(work)],
                   check=True, capture_output=True)
    return work / "repo"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    if not os.path.exists(IGNORE_BATS):
        pytest.skip("%s is not there" % IGNORE_BATS)
    work = tmp_path_factory.mktemp("corpus")
    return work, make_corpus(work)


def gitignore_files(repo):
    """(directory, text) of the regular .gitignore files of the tree."""
    out = []
    for d, dirs, files in os.walk(str(repo)):
        if os.path.relpath(d, str(repo)) == ".":
            dirs[:] = [x for x in dirs if x != ".git"]
        p = os.path.join(d, ".gitignore")
        if ".gitignore" in files and not os.path.islink(p):
            rel = os.path.relpath(d, str(repo))
            with open(p, "rb") as f:
                out.append(("" if rel == "." else rel, f.read()))
    return out


@pytest.mark.parametrize("name", ENGINES)
def test_corpus_walk_keeps_the_files_git_keeps(corpus, name):
    work, repo = corpus
    with open(repo / ".gitignore", "rb") as f:
        assert sum(1 for line in f.read().splitlines() if line and not line.startswith(b"#")) >= 50
    want = git_ls_kept(work, repo)
    ignored = [p for p in git(work, repo, "ls-files", "-z", "--others", "--ignored", "--exclude-standard").split(b"\0")
               if p]
    assert len(want) >= 50 and len(ignored) >= 50  # the corpus exercises both sides
    with engine(name):
        assert files_of(py_walk(repo)) == want


@pytest.mark.parametrize("name", ENGINES)
def test_corpus_every_path_kept_exactly_when_git_check_ignore_keeps_it(corpus, name):
    work, repo = corpus
    paths = all_paths(repo)
    ignored = git_check_ignore(work, repo, paths)
    git_kept = sorted(p for p in paths if not ignored[p])
    assert len(git_kept) >= 80
    with engine(name):
        assert sorted(p.rstrip(b"/") for p in py_walk(repo) if not p.startswith(b".git/") and p != b".git/") == git_kept
        # and one path at a time (cv_ignore_match), every .gitignore added up front
        rules = _ignore.Rules()
        for d, text in reversed(gitignore_files(repo)):  # any order: the depth gives the precedence
            rules.add(d, text, _ignore.GITIGNORE)
        for p in paths:
            st = os.lstat(os.path.join(os.fsencode(str(repo)), p))
            assert rules.excluded(p, stat.S_ISDIR(st.st_mode)) == ignored[p], p


@needs_c_walk
@pytest.mark.parametrize("name", ENGINES)
def test_corpus_the_c_walk_and_this_one_keep_the_same_paths(corpus, name):
    _, repo = corpus
    c, err = c_walk(repo)
    assert err is None
    with engine(name):
        assert py_walk(repo) == c  # the same paths, in the same order


# ---- random trees and patterns (ignore-random.py's generators) ----

def load_ignore_random():
    spec = importlib.util.spec_from_file_location("ignore_random", os.path.join(TESTS_DIR, "ignore-random.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def random_tree(root, rnd, gen, dockerignore=False):
    """A random tree under ROOT with .gitignore files in up to three of its
    directories (and a .dockerignore at the root) made of patterns from its
    own paths."""
    gen.make_tree(str(root), rnd)
    paths, dirs = [], [""]
    for dp, dn, fn in os.walk(str(root)):
        dn[:] = [d for d in dn if not (dp == str(root) and d == ".git")]
        rel = os.path.relpath(dp, str(root))
        if rel != ".":
            dirs.append(rel)
        paths += [os.path.normpath(os.path.join(rel, n)) for n in dn + fn]
    for d in rnd.sample(dirs, min(len(dirs), 3)):
        with open(os.path.join(str(root), d, ".gitignore"), "w") as f:
            f.write("\n".join(gen.pattern(paths, rnd) for _ in range(rnd.randint(1, 6))) + "\n")
    if dockerignore:
        with open(os.path.join(str(root), ".dockerignore"), "w") as f:
            f.write("\n".join(gen.pattern(paths, rnd) for _ in range(rnd.randint(1, 6))) + "\n")


@needs_git
@pytest.mark.skipif(not os.path.exists(os.path.join(TESTS_DIR, "ignore-random.py")), reason="no ignore-random.py")
def test_random_patterns_keep_what_git_keeps(tmp_path):
    gen = load_ignore_random()
    rounds, bad = 150, []
    kept = left_out = 0
    for r in range(rounds):
        rnd = random.Random(7 * 100000 + r)
        root = tmp_path / ("r%d" % r)
        root.mkdir()
        git(tmp_path, root, "init", "-q")
        random_tree(root, rnd, gen)
        want = git_ls_kept(tmp_path, root)
        kept += len(want)
        left_out += sum(1 for p in all_paths(root) if os.path.isfile(os.path.join(os.fsencode(str(root)), p))) - \
            len(want)
        for name in ENGINES:
            with engine(name):
                got = files_of(py_walk(root))
            if got != want:
                bad.append((r, name, sorted(set(want) - set(got))[:5], sorted(set(got) - set(want))[:5],
                            [(d, t) for d, t in gitignore_files(root)]))
        shutil.rmtree(root)
    assert not bad, "\n".join("round %d (%s): only git keeps %s, only the walk keeps %s; %s" % b for b in bad)
    assert kept > rounds and left_out > rounds, (kept, left_out)  # both sides are exercised


@needs_c_walk
@pytest.mark.skipif(not os.path.exists(os.path.join(TESTS_DIR, "ignore-random.py")), reason="no ignore-random.py")
def test_random_trees_with_dockerignore_the_c_walk_and_this_one_agree(tmp_path):
    gen = load_ignore_random()
    rounds, bad, errors, lazy = 150, [], 0, 0
    for r in range(rounds):
        rnd = random.Random(11 * 100000 + r)
        root = tmp_path / ("r%d" % r)
        root.mkdir()
        random_tree(root, rnd, gen, dockerignore=True)
        c, c_err = c_walk(root)
        errors += c_err is not None
        for name in ENGINES:
            with engine(name):
                got, err = py_walk_or_error(root)
            if (got, err) != ((c, None) if c_err is None else (None, c_err)):
                with open(root / ".dockerignore", "rb") as f:
                    bad.append((r, name, c_err, err, f.read(), c, got))
        if c_err is None:
            # directories kept only for an exception below them
            lazy += sum(1 for p in c if p.endswith(b"/") and _is_docker_excluded(root, p[:-1]))
        shutil.rmtree(root)
    assert not bad, "\n".join("round %d (%s): C %s / %s, .dockerignore %r:\n  C:  %s\n  py: %s" % b for b in bad)
    assert 0 < errors < rounds // 2  # bad patterns are met, but most rounds walk
    assert lazy > 0


def _is_docker_excluded(root, path):
    rules = _ignore.Rules()
    with open(os.path.join(str(root), ".dockerignore"), "rb") as f:
        rules.add("", f.read(), _ignore.DOCKERIGNORE)
    return rules.docker_excluded(path)


# ---- what copy_into sends: the kept paths, and the ignore files the server needs ----

@needs_git
@pytest.mark.skipif(not os.path.exists(os.path.join(TESTS_DIR, "ignore-random.py")), reason="no ignore-random.py")
def test_the_rules_applied_again_to_what_is_sent_keep_the_same(tmp_path):
    # The server unpacks the upload and copies it with libcvisor's rules:
    # over what the client sends they must keep exactly what the client
    # kept, ignored .gitignore files with negations included.
    gen = load_ignore_random()
    corner = tmp_path / "corner"
    (corner / "sub").mkdir(parents=True)
    (corner / ".gitignore").write_text("*.log\nsub/.gitignore\n")
    (corner / "sub" / ".gitignore").write_text("!x.log\n")
    (corner / "sub" / "x.log").write_text("kept by sub/.gitignore")
    trees = [corner]
    for r in range(60):
        root = tmp_path / ("r%d" % r)
        root.mkdir()
        random_tree(root, random.Random(13 * 100000 + r), gen, dockerignore=r % 2 == 0)
        trees.append(root)
    for root in trees:
        try:
            want = py_walk(root)
        except OSError:
            continue  # a bad .dockerignore: nothing is sent
        sent = [e.path for e in _ignore.walk(str(root), ignore_files=True)]
        out = root.parent / (root.name + ".out")
        out.mkdir()
        _tar.unpack_tree(_tar.pack_tree(str(root), sent), str(out))
        assert py_walk(out) == want, root
        if os.access(IGNORE_LIST, os.X_OK):
            assert c_walk(out) == (want, None), root
    assert py_walk(corner) == [b".gitignore", b"sub/", b"sub/x.log"]
    assert [e.path for e in _ignore.walk(str(corner), ignore_files=True) if e.excluded] == ["sub/.gitignore"]


# Every file opened and directory listed by this process while recording
# (audit events: a hook cannot be removed, so one for the module).
_seen = None


def _audit(event, args):
    if _seen is not None and event in ("open", "os.listdir", "os.scandir") and args and \
            isinstance(args[0], (str, bytes)):
        _seen.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


@contextlib.contextmanager
def recording():
    global _seen
    _seen = []
    try:
        yield _seen
    finally:
        _seen = None


def test_an_ignored_directory_is_never_entered_nor_an_ignored_file_read(tmp_path):
    t = tree(tmp_path / "t", {"node_modules/pkg/i.js": "x", "src/a.c": "x", ".env": "SECRET=1", "big.log": "x",
                              ".gitignore": "node_modules/\n.env\n*.log\n"})
    with recording() as seen:
        data = _tar.pack_tree(str(t), (e.path for e in _ignore.walk(str(t), ignore_files=True)))
    names = tarfile.open(fileobj=io.BytesIO(data)).getnames()
    assert names == [".gitignore", "src", "src/a.c"]
    assert not [p for p in seen if "node_modules" in p or p.endswith((".env", ".log"))], seen
    assert os.path.join(str(t), "src") in seen  # what is kept is listed and read
    assert os.path.join(str(t), "src", "a.c") in seen


# ---- the semantics, case by case (the differential tests above cover them at large) ----

def kept(root, name="regex"):
    """What the walk keeps of ROOT (on the matcher NAME), checked against
    the C walk when it is built."""
    with engine(name):
        got = py_walk(root)
    if os.access(IGNORE_LIST, os.X_OK):
        assert c_walk(root) == (got, None)
    return [p.decode() for p in got]


@pytest.mark.parametrize("name", ENGINES)
def test_git_rules(tmp_path, name):
    t = tree(tmp_path / "t", {
        ".gitignore": "*.o\n!keep.o\n/anchored\ndeep/**/x\n**/any\nonlydir/\n[!a-c]?.txt\n[[:digit:]]n\n"
                      "\\#h\n\\!b\ntrail  \nesc\\ \nlogs/\n!logs/in\nsub/*.tmp\n",
        "a.o": "", "keep.o": "", "anchored": "", "d/anchored": "", "deep/x": "", "deep/a/b/x": "",
        "q/any": "", "onlydir/f": "", "d/onlydir": "", "ab.txt": "", "db.txt": "", "1n": "", "an": "",
        "#h": "", "!b": "", "trail": "", "trail  ": "", "esc ": "", "esc": "", "logs/in": "", "sub/a.tmp": "",
        "sub/s/a.tmp": "", "d/sub/a.tmp": "",
    })
    # `!logs/in`: logs/ is excluded, so nothing below it comes back
    assert kept(t, name) == [
        ".gitignore", "ab.txt", "an", "d/", "d/anchored", "d/onlydir", "d/sub/", "d/sub/a.tmp", "deep/", "deep/a/",
        "deep/a/b/", "esc", "keep.o", "q/", "sub/", "sub/s/", "sub/s/a.tmp", "trail  "]


@pytest.mark.parametrize("name", ENGINES)
def test_nested_gitignore_files_deepest_decides(tmp_path, name):
    t = tree(tmp_path / "t", {
        ".gitignore": "*.log\n/top-only\n", "a.log": "", "top-only": "",
        "src/.gitignore": "!*.log\ngen/\n/local\n", "src/b.log": "", "src/local": "", "src/gen/g": "",
        "src/top-only": "", "src/sub/local": "", "src/sub/c.log": "",
    })
    assert kept(t, name) == [".gitignore", "src/", "src/.gitignore", "src/b.log", "src/sub/", "src/sub/c.log",
                             "src/sub/local", "src/top-only"]


def test_symlinked_or_fifo_ignore_files_are_not_read_and_symlinks_not_followed(tmp_path):
    outside = tmp_path / "rules"
    outside.write_text("*\n")
    t = tree(tmp_path / "t", {"d/kept": "", "fifo/kept": "", "real/file": ""})
    os.symlink(str(outside), str(t / "d" / ".gitignore"))
    os.mkfifo(str(t / "fifo" / ".gitignore"))
    os.symlink("real", str(t / "link"))
    os.symlink("/etc", str(t / "etc"))
    assert kept(t) == ["d/", "d/.gitignore", "d/kept", "etc", "fifo/", "fifo/.gitignore", "fifo/kept", "link",
                       "real/", "real/file"]
    # packed: the symlinks as links, the FIFO left out
    data = _tar.pack_tree(str(t), (e.path for e in _ignore.walk(str(t))))
    members = {m.name: m for m in tarfile.open(fileobj=io.BytesIO(data))}
    assert "fifo/.gitignore" not in members
    assert members["link"].issym() and members["link"].linkname == "real"
    assert members["d/.gitignore"].issym()


def bats_dockerignore():
    """The .dockerignore of ignore.bats's test of it (a heredoc, <<-)."""
    with open(IGNORE_BATS) as f:
        m = re.search(r"cat >\"\$t/\.dockerignore\" <<-'EOF'\n(.*?)\n\tEOF\n", f.read(), re.S)
    assert m, "no .dockerignore in %s" % IGNORE_BATS
    return "".join(line.lstrip("\t") + "\n" for line in m.group(1).split("\n"))


@needs_corpus
@pytest.mark.parametrize("name", ENGINES)
def test_dockerignore_at_the_root(tmp_path, name):
    # ignore.bats's tree: exceptions reach into excluded directories, which
    # are kept when something below them is
    text = bats_dockerignore()
    assert "  node_modules  \n" in text and "!/README.md\n" in text
    t = tree(tmp_path / "t", {".dockerignore": text, "node_modules/pkg/i.js": "",
                              "node_modules/pkg/keep.js": "", "docs/api/a.html": "", "docs/README.md": "",
                              "README.md": "", "CHANGES.md": "", "src/a.secret": "", "src/a.c": "", "src/sub/x": "",
                              "sub/node_modules/m": "", "a.secret": ""})
    assert kept(t, name) == [
        ".dockerignore", "README.md", "docs/", "docs/README.md", "node_modules/", "node_modules/pkg/",
        "node_modules/pkg/keep.js", "src/", "src/a.c", "sub/", "sub/node_modules/", "sub/node_modules/m"]
    # only the root's is read; a .dockerignore below is an ordinary file
    (t / "src" / ".dockerignore").write_text("*\n")
    assert "src/a.c" in kept(t, name)


@pytest.mark.parametrize("name", ENGINES)
def test_dockerignore_syntax(tmp_path, name):
    t = tree(tmp_path / "t", {
        ".dockerignore": "**.log\nc[^a]d\ne[/]f\n./up/../top\na/**/z\n!  kept.log\n", "x.log": "", "d/e/y.log": "",
        "kept.log": "", "a/x": "", "a/z": "", "a/b/c/z": "", "c/d": "", "cxd": "", "e/f": "", "top": ""})
    # `**.log`: any path ending in .log; a negated class may match `/`, a
    # class of `/` never does; `.` and `..` are cleaned away; `a/**/z`: any depth
    assert kept(t, name) == [".dockerignore", "a/", "a/b/", "a/b/c/", "a/x", "c/", "d/", "d/e/", "e/", "e/f",
                             "kept.log"]


def test_bad_dockerignore_is_an_error_naming_the_line(tmp_path):
    for text, shown in (("ok\nbad[\n", "bad["), ("ok\n\n trailing\\\\\\ \n", "trailing\\\\\\"), ("!\n", "!"),
                        ("[[:nope:]]", "[[:nope:]]")):
        t = tree(tmp_path / "t", {".dockerignore": text, "f": ""})
        with pytest.raises(OSError) as e:
            list(_ignore.walk(str(t)))
        assert e.value.errno == errno.EINVAL
        line = 1 if text.startswith(("!", "[")) else (2 if "bad" in text else 3)
        assert e.value.strerror == "`.dockerignore`, line %d: bad pattern `%s`" % (line, shown)
        shutil.rmtree(t)
    # git's never match instead
    t = tree(tmp_path / "g", {".gitignore": "bad[\ntrail\\\n[[:nope:]]\n", "bad[": "", "trail\\": "", "n": ""})
    assert kept(t) == [".gitignore", "bad[", "n", "trail\\"]


def test_bounds_are_errors_naming_the_path(tmp_path):
    p = tmp_path / "deep"
    for _ in range(258):
        p = p / "d"
    os.makedirs(str(p))
    with pytest.raises(OSError) as e:
        list(_ignore.walk(str(tmp_path / "deep")))
    assert e.value.errno == errno.ELOOP
    assert e.value.strerror.endswith("`: deeper than 256 directories")
    # excluded, the same tree is not entered: no error
    (tmp_path / "deep" / ".gitignore").write_text("d/\n")
    assert kept(tmp_path / "deep") == [".gitignore"]
    t = tree(tmp_path / "big", {"sub/.gitignore": b"a" * ((1 << 20) + 1)})
    with pytest.raises(OSError) as e:
        list(_ignore.walk(str(t)))
    assert e.value.errno == errno.EFBIG
    assert e.value.strerror.startswith("`sub/.gitignore`: too large")
    t = tree(tmp_path / "line", {".gitignore": b"ok\n" + b"a" * 4097 + b"\n"})
    with pytest.raises(OSError) as e:
        list(_ignore.walk(str(t)))
    assert e.value.strerror == "`.gitignore`, line 2: longer than 4096 bytes"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads what its modes forbid (python-sdk.bats runs this as nobody)")
def test_what_cannot_be_read_is_an_error_naming_it(tmp_path):
    t = tree(tmp_path / "t", {"locked/f": "", "secret": "x", "ok": ""})
    os.chmod(str(t / "locked"), 0)
    try:
        with pytest.raises(PermissionError) as e:
            list(_ignore.walk(str(t)))
        assert e.value.strerror == "open `locked`: Permission denied"
        if os.access(IGNORE_LIST, os.X_OK):
            assert c_walk(t)[1] == "ignore-list: " + e.value.strerror
        # excluded, it is not entered
        (t / ".gitignore").write_text("locked/\n")
        assert kept(t) == [".gitignore", "ok", "secret"]
        os.chmod(str(t / "secret"), 0)
        with pytest.raises(PermissionError) as e:
            _tar.pack_tree(str(t), ["ok", "secret"])
        assert e.value.strerror == "open `secret`: Permission denied"
    finally:
        os.chmod(str(t / "locked"), 0o755)


def test_a_hostile_pattern_runs_on_the_nfa_and_ends(tmp_path):
    # backtracking would try about C(60, 12) ways; the NFA goes once over the name
    hostile = b"*a" * 12 + b"[!a]b"
    rules = _ignore.Rules()
    rules.add("", hostile + b"\n", _ignore.GITIGNORE)
    assert isinstance(rules._sets[0].pats[0]._match, _ignore._Nfa)
    assert not rules.excluded(b"a" * 60 + b"ab", False)
    assert rules.excluded(b"a" * 60 + b"cb", False)


def test_rules_added_in_any_order_and_bad_input():
    rules = _ignore.Rules()
    rules.add("a/b", b"!x\n", _ignore.GITIGNORE)
    rules.add("", b"x\n", _ignore.GITIGNORE)
    rules.add("a", b"\xef\xbb\xbf# bom and comment\r\nx\r\n", _ignore.GITIGNORE)
    assert rules.excluded("x", False) and rules.excluded("a/x", False)
    assert not rules.excluded("a/b/x", False)  # the deepest decides
    assert rules.excluded("a/b/y/x", False) is False
    with pytest.raises(OSError) as e:
        rules.add("sub", b"x\n", _ignore.DOCKERIGNORE)
    assert e.value.strerror == "`sub/.dockerignore`: only the root's is read"
    with pytest.raises(OSError):
        rules.add("/abs", b"x\n", _ignore.GITIGNORE)
    with pytest.raises(ValueError):
        rules.add("", b"x\n", "hgignore")

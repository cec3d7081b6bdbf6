"""The ignore rules of copy_into on the client: which paths of a host tree
RemoteSandbox.copy_into leaves out before it packs and uploads the tree,
so that an ignored file (a secret in ``.env``, a ``node_modules``) never
leaves the machine. Standard library only: the client runs where
libcvisor does not (a macOS laptop).

The semantics are exactly those of libcvisor's src/libcvisor/files/ignore.c
(its header, ignore.h, states them in full), which Sandbox.copy_into and
the server apply; in short:

* Every directory's ``.gitignore`` (git's rules: ``!`` negation, ``/``
  anchoring, ``**``, a trailing ``/`` for directories only, classes,
  backslash escapes, unescaped trailing spaces dropped). For one path the
  deepest ``.gitignore`` with a matching pattern decides, and in it the
  last such pattern. A directory excluded is not entered: nothing below it
  can be re-included. Only the tree's own files count (not
  ``.git/info/exclude`` nor ``core.excludesFile``); ``.git`` is not special.
* The ``.dockerignore`` at the root only (Docker's rules: patterns cleaned
  as paths and relative to the root, ``**`` anywhere, a negated class may
  match ``/``, a bad pattern is an error). A path is left out by the last
  pattern matching it or a parent; a later ``!`` exception re-includes it
  even inside an excluded directory, which is then entered when an
  exception could match below it, and kept when something below it is.
* A path is left out when either excludes it. Ignore files that are not
  regular files (a symlink, a FIFO) are not read.

Patterns and paths are bytes, as in C. A pattern becomes a regular
expression when that cannot backtrack badly (at most _REGEX_MAX_UNBOUNDED
unbounded tokens), else it runs on a bit-parallel NFA, the C module's
automaton: a hostile pattern (``*a*a*a*a*b``) costs its length times the
path's, never an exponential.

The walk reads the user's own tree by path (any OS), not by descriptor as
the C walk does inside a sandbox's keeper."""
from __future__ import annotations

import errno
import os
import re
import stat
from typing import Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

__all__ = ["GITIGNORE", "DOCKERIGNORE", "Rules", "Entry", "walk"]

GITIGNORE = "gitignore"
DOCKERIGNORE = "dockerignore"

# ignore.h's bounds
MAX_FILE = 1 << 20
MAX_LINE = 4096
MAX_TOTAL = 16 << 20
MAX_DEPTH = 256
PATH_MAX = 4096

# Patterns with more unbounded tokens than this run on the NFA (tests set
# it to -1 to run everything there).
_REGEX_MAX_UNBOUNDED = 2

_LIT, _ANY, _CLASS, _STAR, _ANYSTR, _DSTARDIR = range(6)
_UNBOUNDED = (_STAR, _ANYSTR, _DSTARDIR)
_SLASH, _STARCH, _BSL = ord("/"), ord("*"), ord("\\")
_GLOB_SPECIAL = b"*?[\\"  # and `]`, for Docker's literal prefix and suffix shortcut
_SPACE = b" \t\n\v\f\r"
_ALL = (1 << 256) - 1


def _ctype_mask(test: Callable[[int], bool]) -> int:
    return sum(1 << c for c in range(256) if test(c))


def _upper(c: int) -> bool:
    return 65 <= c <= 90


def _lower(c: int) -> bool:
    return 97 <= c <= 122


def _digit(c: int) -> bool:
    return 48 <= c <= 57


def _print(c: int) -> bool:
    return 0x20 <= c < 0x7F


# POSIX classes, ASCII only (bytes from 0x80 are in none), as ignore.c's
_CTYPES: Dict[bytes, int] = {
    b"alnum": _ctype_mask(lambda c: _upper(c) or _lower(c) or _digit(c)),
    b"alpha": _ctype_mask(lambda c: _upper(c) or _lower(c)),
    b"blank": _ctype_mask(lambda c: c in (32, 9)),
    b"cntrl": _ctype_mask(lambda c: c < 0x20 or c == 0x7F),
    b"digit": _ctype_mask(_digit),
    b"graph": _ctype_mask(lambda c: _print(c) and c != 32),
    b"lower": _ctype_mask(_lower),
    b"print": _ctype_mask(_print),
    b"punct": _ctype_mask(lambda c: _print(c) and c != 32 and not (_upper(c) or _lower(c) or _digit(c))),
    b"space": _ctype_mask(lambda c: c == 32 or 9 <= c <= 13),
    b"upper": _ctype_mask(_upper),
    b"xdigit": _ctype_mask(lambda c: _digit(c) or 97 <= c <= 102 or 65 <= c <= 70),
}

Token = Tuple[int, int]  # (kind, the byte of _LIT or the 256-bit set of _CLASS)


def _parse_class(pat: bytes, pos: int, docker: bool) -> Optional[Tuple[int, int]]:
    """The class whose ``[`` is at PAT[POS]: (its set of bytes, the index
    past its ``]``), or None when malformed (unterminated, an unknown
    ``[:name:]``, a backslash at the end). DOCKER: only ``^`` negates, and a
    negated class may match ``/``."""
    n = len(pat)
    i = pos + 1
    negated = False
    prev = -1  # the last single byte, which may start a range
    members = 0
    if i < n and (pat[i] == ord("^") or (not docker and pat[i] == ord("!"))):
        negated = True
        i += 1
    first = True
    while True:
        if i >= n:
            return None
        c = pat[i]
        if c == ord("]") and not first:
            i += 1
            break
        if c == _BSL:
            i += 1
            if i >= n:
                return None
            c = pat[i]
            i += 1
            members |= 1 << c
            prev = c
        elif c == ord("-") and prev >= 0 and i + 1 < n and pat[i + 1] != ord("]"):
            hi = pat[i + 1]
            i += 2
            if hi == _BSL:
                if i >= n:
                    return None
                hi = pat[i]
                i += 1
            for x in range(prev, hi + 1):
                members |= 1 << x
            prev = -1
        elif c == ord("[") and i + 1 < n and pat[i + 1] == ord(":"):
            s = e = i + 2
            while e < n and pat[e] != ord("]"):
                e += 1
            if e >= n:
                return None
            if e == s or pat[e - 1] != ord(":"):
                # no `:]`: the `[` is an ordinary member
                members |= 1 << c
                prev = c
                i += 1
            else:
                cls = _CTYPES.get(pat[s:e - 1])
                if cls is None:
                    return None
                members |= cls
                prev = -1
                i = e + 1
        else:
            members |= 1 << c
            prev = c
            i += 1
        first = False
    if negated:
        members ^= _ALL
    if not docker or not negated:
        members &= ~(1 << _SLASH)
    return members, i


class _BadPattern(Exception):
    """A malformed .dockerignore pattern (git's never match instead)."""


def _tokens(pat: bytes, docker: bool, nodir: bool) -> Optional[List[Token]]:
    """PAT (already stripped of ``!``, trailing and leading ``/``) as
    tokens; None for a git pattern that never matches (a malformed class, a
    trailing lone backslash); _BadPattern for a malformed Docker one."""
    toks: List[Token] = []
    n = len(pat)
    i = 0
    while i < n:
        c = pat[i]
        if c == _STARCH and docker and i + 1 < n and pat[i + 1] == _STARCH:
            j = i + 2
            slash = j < n and pat[j] == _SLASH
            if slash:
                j += 1
            kind = _ANYSTR if j == n else _DSTARDIR
            if i == 0 and not slash and j < n and not any(b in _GLOB_SPECIAL or b == ord("]") for b in pat[j:]):
                kind = _ANYSTR  # Docker's suffix shortcut: `**lit` is any path ending in lit
            toks.append((kind, 0))
            i = j
        elif c == _STARCH:
            j = i
            while j < n and pat[j] == _STARCH:
                j += 1
            kind = _STAR
            if not docker and not nodir and j - i >= 2 and (i == 0 or pat[i - 1] == _SLASH):
                if j == n:
                    kind = _ANYSTR
                elif pat[j] == _SLASH:
                    kind = _DSTARDIR
                    j += 1
                elif pat[j] == _BSL and j + 1 < n and pat[j + 1] == _SLASH:
                    kind = _DSTARDIR
                    j += 2
            toks.append((kind, 0))
            i = j
        elif c == ord("?"):
            toks.append((_ANY, 0))
            i += 1
        elif c == ord("["):
            cls = _parse_class(pat, i, docker)
            if cls is None:
                if docker:
                    raise _BadPattern()
                return None
            toks.append((_CLASS, cls[0]))
            i = cls[1]
        elif c == _BSL:
            if i + 1 >= n:
                if docker:
                    raise _BadPattern()
                return None
            toks.append((_LIT, pat[i + 1]))
            i += 2
        else:
            toks.append((_LIT, c))
            i += 1
    return toks


def _class_regex(members: int) -> bytes:
    ranges = []
    c = 0
    while c < 256:
        if members >> c & 1:
            lo = c
            while c + 1 < 256 and members >> (c + 1) & 1:
                c += 1
            ranges.append(b"\\x%02x" % lo if lo == c else b"\\x%02x-\\x%02x" % (lo, c))
        c += 1
    return b"[" + b"".join(ranges) + b"]" if ranges else b"(?!)"


_TOKEN_REGEX = {_ANY: b"[^/]", _STAR: b"[^/]*", _ANYSTR: b".*", _DSTARDIR: b"(?:.*/)?"}


def _regex(toks: List[Token]) -> Callable[[bytes], object]:
    parts = []
    for kind, v in toks:
        if kind == _LIT:
            parts.append(re.escape(bytes((v,))))
        elif kind == _CLASS:
            parts.append(_class_regex(v))
        else:
            parts.append(_TOKEN_REGEX[kind])
    return re.compile(b"".join(parts), re.DOTALL).fullmatch


class _Nfa:
    """ignore.c's automaton, one bit a state (state i: before token i; the
    last, len(toks), accepts), run on all states at once with integers."""

    def __init__(self, toks: List[Token]) -> None:
        self.adv = [0] * 256   # states that consume the byte and advance
        self.stay = [0] * 256  # states that consume the byte and stay (the stars' loops)
        self.eps = 0           # states that may be skipped: the stars
        self.dstar = 0         # `**/`: skipped only where entered, not from inside its loop
        for i, (kind, v) in enumerate(toks):
            bit = 1 << i
            if kind == _LIT:
                self.adv[v] |= bit
                continue
            for c in range(256):
                if kind == _ANY and c != _SLASH or kind == _CLASS and v >> c & 1:
                    self.adv[c] |= bit
                elif kind == _STAR and c != _SLASH or kind in (_ANYSTR, _DSTARDIR):
                    self.stay[c] |= bit
            if kind in _UNBOUNDED:
                self.eps |= bit
            if kind == _DSTARDIR:
                self.dstar |= bit
                self.adv[_SLASH] |= bit
        self.final = 1 << len(toks)

    def _close(self, live: int, entered: int) -> int:
        # Each live skippable state makes the states after it live, through
        # the run of skippable states it starts: adding it to EPS carries a
        # bit from it up to the first state after the run.
        seeds = live & self.eps & (entered | ~self.dstar)
        return live | ((self.eps + seeds) ^ self.eps) if seeds else live

    def __call__(self, text: bytes) -> bool:
        live = self._close(1, 1)
        adv, stay = self.adv, self.stay
        for c in text:
            entered = (live & adv[c]) << 1
            live = self._close(entered | (live & stay[c]), entered)
            if not live:
                return False
        return bool(live & self.final)


class _Pattern:
    """One line of an ignore file, compiled."""

    __slots__ = ("negated", "mustbedir", "nodir", "prefix", "_never", "_literal", "_head", "_tail", "_min", "_match")

    def __init__(self, pat: bytes, docker: bool, negated: bool = False, mustbedir: bool = False,
                 nodir: bool = False) -> None:
        self.negated, self.mustbedir, self.nodir = negated, mustbedir, nodir
        self.prefix = b""
        if docker:
            n = 0
            while n < len(pat) and pat[n] not in _GLOB_SPECIAL and pat[n] != ord("]"):
                n += 1
            self.prefix = pat[:n]  # where an exception can reach
        toks = _tokens(pat, docker, nodir)
        self._never = toks is None
        self._literal: Optional[bytes] = None
        self._match: Optional[Callable[[bytes], object]] = None
        if toks is None:
            return
        head = 0
        while head < len(toks) and toks[head][0] == _LIT:
            head += 1
        if head == len(toks):
            self._literal = bytes(v for _, v in toks)
            return
        tail = 0
        while tail < len(toks) - head and toks[len(toks) - 1 - tail][0] == _LIT:
            tail += 1
        # literal tokens at the start and at the end: a quick refusal
        self._head = bytes(v for _, v in toks[:head])
        self._tail = bytes(v for _, v in toks[len(toks) - tail:])
        self._min = head + tail
        unbounded = sum(1 for kind, _ in toks if kind in _UNBOUNDED)
        self._match = _regex(toks) if unbounded <= _REGEX_MAX_UNBOUNDED else _Nfa(toks)

    def match(self, text: bytes) -> bool:
        """Whether the pattern matches all of TEXT."""
        if self._never:
            return False
        if self._literal is not None:
            return text == self._literal
        if len(text) < self._min or not text.startswith(self._head) or not text.endswith(self._tail):
            return False
        assert self._match is not None
        return bool(self._match(text))


def _git_trim(s: bytes) -> bytes:
    """S without the trailing spaces no backslash escapes (git's rule)."""
    keep = i = 0
    while i < len(s):
        if s[i] != ord(" "):
            if s[i] == _BSL and i + 1 < len(s):
                i += 1
            keep = i + 1
        i += 1
    return s[:keep]


def _git_pattern(s: bytes) -> _Pattern:
    negated = s[:1] == b"!"
    if negated:
        s = s[1:]
    mustbedir = s[-1:] == b"/"
    if mustbedir:
        s = s[:-1]
    nodir = b"/" not in s
    if s[:1] == b"/":
        s = s[1:]
    return _Pattern(s, False, negated, mustbedir, nodir)


def _path_clean(s: bytes) -> bytes:
    """Go's filepath.Clean, lexically, as ignore.c's path_clean."""
    rooted = s[:1] == b"/"
    out = bytearray(b"/" if rooted else b"")
    floor = len(out)  # the leading `..` elements end here: a later `..` cannot undo them
    for comp in s.split(b"/"):
        if comp == b"..":
            if len(out) > floor:
                o = len(out) - 1
                while o > floor and out[o] != _SLASH:
                    o -= 1
                del out[o:]
            elif not rooted:
                out += b"/.." if out else b".."
                floor = len(out)
        elif comp and comp != b".":
            if len(out) > (1 if rooted else 0):
                out += b"/"
            out += comp
    return bytes(out) or b"."


def _docker_pattern(s: bytes) -> _Pattern:
    negated = s[:1] == b"!"
    if negated:
        s = s[1:].lstrip(_SPACE)
        if not s:
            raise _BadPattern()
    c = _path_clean(s)
    if c[:1] == b"/" and len(c) > 1:
        c = c[1:]
    return _Pattern(c, True, negated)


class _RuleSet:
    __slots__ = ("dir", "depth", "pats")

    def __init__(self, dir_rel: bytes) -> None:
        self.dir = dir_rel  # relative to the root, b"" for the root
        self.depth = dir_rel.count(b"/") + 1 if dir_rel else 0
        self.pats: List[_Pattern] = []


PathLike = Union[str, bytes]


def _show(path: bytes) -> str:
    return os.fsdecode(path)


class Rules:
    """The rules of one tree's ignore files (cv_ignore in C): add() each
    file's text, then ask excluded(). Paths are relative to the root of the
    tree, ``/``-separated, str or bytes."""

    def __init__(self) -> None:
        self._sets: List[_RuleSet] = []  # git's, by depth (deepest last)
        self._docker: Optional[_RuleSet] = None
        self._total = 0

    def add(self, dir_rel: PathLike, data: bytes, kind: str) -> None:
        """Add the rules of DATA, read from DIR_REL/.gitignore (KIND
        GITIGNORE; DIR_REL ``""`` for the root) or from the root's
        .dockerignore (KIND DOCKERIGNORE, DIR_REL ``""``), in any order:
        the depth of DIR_REL gives the precedence. OSError (EFBIG, EINVAL
        for a bad .dockerignore line) names the file and line; the lines
        before a bad one stay added."""
        d = os.fsencode(dir_rel)
        docker = kind == DOCKERIGNORE
        if kind not in (GITIGNORE, DOCKERIGNORE):
            raise ValueError("ignore rules: unknown kind %r" % (kind,))
        if docker and d:
            raise OSError(errno.EINVAL, "`%s/.dockerignore`: only the root's is read" % _show(d))
        if d[:1] == b"/" or d[-1:] == b"/":
            raise OSError(errno.EINVAL, "ignore rules: `%s`: not a relative directory" % _show(d))
        where = _show(d + b"/" if d else b"") + (".dockerignore" if docker else ".gitignore")
        if len(data) > MAX_FILE:
            raise OSError(errno.EFBIG, "`%s`: too large (%d bytes, the limit is %d)" % (where, len(data), MAX_FILE))
        if len(data) > MAX_TOTAL - self._total:
            raise OSError(errno.EFBIG, "`%s`: the ignore files add up to more than %d bytes" % (where, MAX_TOTAL))
        rs = self._set_for(d, docker)
        self._total += len(data)
        if data[:3] == b"\xef\xbb\xbf":
            data = data[3:]
        for lineno, line in enumerate(data.split(b"\n"), 1):
            if line[-1:] == b"\r":
                line = line[:-1]
            if len(line) > MAX_LINE:
                raise OSError(errno.EINVAL, "`%s`, line %d: longer than %d bytes" % (where, lineno, MAX_LINE))
            if not line or line[:1] == b"#":
                continue
            if docker:
                line = line.strip(_SPACE)
                if not line:
                    continue
                try:
                    rs.pats.append(_docker_pattern(line))
                except _BadPattern:
                    raise OSError(errno.EINVAL, "`%s`, line %d: bad pattern `%s`" % (where, lineno, _show(line))) \
                        from None
            else:
                line = _git_trim(line.split(b"\0", 1)[0])  # git reads lines as C strings
                if line:
                    rs.pats.append(_git_pattern(line))

    def _set_for(self, d: bytes, docker: bool) -> _RuleSet:
        if docker:
            if self._docker is None:
                self._docker = _RuleSet(b"")
            return self._docker
        new = _RuleSet(d)
        at = len(self._sets)
        for i, rs in enumerate(self._sets):
            if rs.dir == d:
                return rs
            if rs.depth > new.depth and at == len(self._sets):
                at = i
        self._sets.insert(at, new)
        return new

    def _pop(self, d: bytes) -> None:
        """Drop the rules of D's .gitignore, the deepest (the walk's way out)."""
        if self._sets and self._sets[-1].dir == d:
            self._sets.pop()

    def git_excluded(self, path: bytes, is_dir: bool) -> bool:
        """git's verdict on PATH alone, not its parents."""
        base = path[path.rfind(b"/") + 1:]
        for rs in reversed(self._sets):
            name = path
            if rs.dir:
                n = len(rs.dir)
                if len(path) <= n or path[n] != _SLASH or not path.startswith(rs.dir):
                    continue
                name = path[n + 1:]
            for p in reversed(rs.pats):
                if p.mustbedir and not is_dir:
                    continue
                if p.match(base if p.nodir else name):
                    return not p.negated
        return False

    def docker_excluded(self, path: bytes) -> bool:
        """The .dockerignore's verdict on PATH: the last pattern matching it
        or one of its parents decides."""
        if self._docker is None:
            return False
        parents = [path[:i] for i in range(len(path)) if path[i] == _SLASH]
        for p in reversed(self._docker.pats):
            if p.match(path) or any(p.match(q) for q in parents):
                return not p.negated
        return False

    def docker_may_reinclude_below(self, path: bytes) -> bool:
        """Whether an exception of the .dockerignore could match below the
        directory PATH: its literal start agrees with PATH/ as far as both go."""
        if self._docker is None:
            return False
        for p in self._docker.pats:
            if not p.negated:
                continue
            n = min(len(p.prefix), len(path))
            if p.prefix[:n] == path[:n] and (len(p.prefix) <= len(path) or p.prefix[len(path)] == _SLASH):
                return True
        return False

    def excluded(self, rel_path: PathLike, is_dir: bool) -> bool:
        """Whether REL_PATH (IS_DIR: a directory, not a symlink to one) is
        left out by the rules added so far, through an excluded parent
        directory too (cv_ignore_match)."""
        path = os.fsencode(rel_path)
        for i in range(len(path)):
            if path[i] == _SLASH and self.git_excluded(path[:i], True):
                return True
        return self.git_excluded(path, is_dir) or self.docker_excluded(path)


class Entry(NamedTuple):
    """What the walk keeps: PATH relative to the root (``/``-separated) and
    its lstat(). EXCLUDED: an ignore file the walk read but the rules leave
    out (walk(ignore_files=True) only)."""

    path: str
    stat: os.stat_result
    excluded: bool = False

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.stat.st_mode)


class _Frame:
    __slots__ = ("path", "stat", "emitted")

    def __init__(self, path: bytes, st: os.stat_result, emitted: bool) -> None:
        self.path, self.stat, self.emitted = path, st, emitted


_OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NOFOLLOW", 0)
               | getattr(os, "O_NONBLOCK", 0))


class _Walk:
    def __init__(self, root: bytes, apply_rules: bool, ignore_files: bool) -> None:
        self.root = root
        self.rules = Rules() if apply_rules else None
        self.ignore_files = ignore_files
        self.frames: List[_Frame] = []  # the directories entered, root excluded

    def _full(self, rel: bytes) -> bytes:
        return os.path.join(self.root, rel) if rel else self.root

    def _read(self, rel: bytes, name: bytes, kind: str) -> Optional[os.stat_result]:
        """Add REL/NAME's rules when it is a regular file (a symlink or a
        FIFO is not read, as git does not): its fstat(), None when not read."""
        what = _show(rel + b"/" + name if rel else name)
        assert self.rules is not None
        try:
            fd = os.open(os.path.join(self._full(rel), name), _OPEN_FLAGS)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ELOOP):
                return None
            raise OSError(e.errno, "open `%s`: %s" % (what, e.strerror)) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return None
            chunks, size = [], 0
            while size <= MAX_FILE:
                chunk = os.read(fd, MAX_FILE + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError as e:
            raise OSError(e.errno, "read `%s`: %s" % (what, e.strerror)) from None
        finally:
            os.close(fd)
        if size > MAX_FILE:
            raise OSError(errno.EFBIG, "`%s`: too large (the limit is %d bytes)" % (what, MAX_FILE))
        self.rules.add(rel, b"".join(chunks), kind)
        return st

    def dir(self, rel: bytes, depth: int) -> Iterator[Entry]:
        # listed first: a directory that cannot be read fails as "open
        # `DIR`" whatever its modes, as the C walk opens it before its rules
        try:
            names = sorted(os.listdir(self._full(rel)))
        except OSError as e:
            raise OSError(e.errno, "open `%s`: %s" % (_show(rel or b"."), e.strerror)) from None
        rules = self.rules
        read = []
        if rules is not None:
            read.append((b".gitignore", self._read(rel, b".gitignore", GITIGNORE)))
            if depth == 0:
                read.append((b".dockerignore", self._read(rel, b".dockerignore", DOCKERIGNORE)))
        pushed = bool(read) and read[0][1] is not None
        try:
            for name, st in read:
                path = rel + b"/" + name if rel else name
                if self.ignore_files and st is not None and (rules.git_excluded(path, False) or
                                                             rules.docker_excluded(path)):
                    yield Entry(os.fsdecode(path), st, True)
            for name in names:
                path = rel + b"/" + name if rel else name
                if len(path) >= PATH_MAX:
                    raise OSError(errno.ENAMETOOLONG, "`%s`: path longer than %d bytes" % (_show(path), PATH_MAX - 1))
                try:
                    st = os.lstat(self._full(path))
                except FileNotFoundError:
                    continue  # gone since the listing
                except OSError as e:
                    raise OSError(e.errno, "stat `%s`: %s" % (_show(path), e.strerror)) from None
                is_dir = stat.S_ISDIR(st.st_mode)
                if rules is not None and rules.git_excluded(path, is_dir):
                    continue
                if rules is None or not rules.docker_excluded(path):
                    # the directories above entered for an exception: kept now
                    for f in self.frames:
                        if not f.emitted:
                            f.emitted = True
                            yield Entry(os.fsdecode(f.path), f.stat)
                    yield Entry(os.fsdecode(path), st)
                    if not is_dir:
                        continue
                    emitted = True
                elif not is_dir or not rules.docker_may_reinclude_below(path):
                    continue
                else:
                    emitted = False
                if depth + 1 > MAX_DEPTH:
                    raise OSError(errno.ELOOP, "`%s`: deeper than %d directories" % (_show(path), MAX_DEPTH))
                self.frames.append(_Frame(path, st, emitted))
                yield from self.dir(path, depth + 1)
                self.frames.pop()
        finally:
            if pushed:
                assert rules is not None
                rules._pop(rel)


def walk(root: PathLike, apply_rules: bool = True, ignore_files: bool = False) -> Iterator[Entry]:
    """The entries of the directory tree ROOT (not ROOT itself) that its
    ignore rules keep, as libcvisor's cv_ignore_walk(): in name order (of
    the names' bytes), a directory before its contents, each directory's
    .gitignore (and the root's .dockerignore) read before its entries, an
    excluded directory not entered (nor read at all). Symlinks are reported,
    never followed; other special files are reported too. APPLY_RULES
    False: every entry, no ignore file read. IGNORE_FILES: also the ignore
    files read that the rules leave out (Entry.excluded), as soon as they
    are read: whoever applies the same rules again to what the walk keeps
    needs them to reach the same verdicts. OSError with a message naming
    the path, relative to ROOT, for what cannot be read, a bad
    .dockerignore pattern, or a tree beyond the bounds (MAX_DEPTH
    directories, paths of PATH_MAX bytes, ignore files of MAX_FILE)."""
    return _Walk(os.fsencode(root), apply_rules, ignore_files).dir(b"", 0)

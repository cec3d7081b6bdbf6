"""Tar streams of the remote sandbox's copy_into and copy_out: packing a
host tree (the entries its ignore rules keep, _ignore.walk) and unpacking
one refusing every entry that would leave its target. Standard library
only: the client uses it off Linux too."""
from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
from typing import Iterable, Optional

from . import _ignore

__all__ = ["pack_tree", "unpack_tree"]


def _refuse(name: str, why: str) -> OSError:
    return OSError(errno.EINVAL, "tar entry %r: %s" % (name, why))


def pack_tree(root: str, paths: Optional[Iterable[str]] = None) -> bytes:
    """An uncompressed tar of the directory ROOT's contents (names relative
    to it), symlinks stored as links, other special files left out. PATHS:
    the entries to store, relative to ROOT, ``/``-separated, a directory
    before its contents (what _ignore.walk keeps); default every entry of
    the tree. Nothing else of the tree is read."""
    if paths is None:
        paths = (e.path for e in _ignore.walk(root, apply_rules=False))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for rel in paths:
            full = os.path.join(root, rel)
            try:
                info = t.gettarinfo(full, rel)  # lstat: a symlink stays one
                if info is None or not (info.isreg() or info.isdir() or info.issym()):
                    continue
                if info.isreg():
                    with open(full, "rb") as f:
                        t.addfile(info, f)
                else:
                    t.addfile(info)
            except FileNotFoundError:
                continue  # gone since the walk
            except OSError as e:
                raise OSError(e.errno, "open `%s`: %s" % (rel, e.strerror)) from None
    return buf.getvalue()


def _parts(name: str) -> list:
    if name.startswith("/"):
        raise _refuse(name, "an absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise _refuse(name, "a path through ..")
    return parts


def unpack_tree(data: bytes, dest: str) -> None:
    """Unpack the uncompressed tar DATA into the existing directory DEST:
    directories, regular files and symlinks only, each at a path inside
    DEST reached through real directories (never through a symlink an
    earlier entry made); modes keep their permission bits only."""
    try:
        t = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    except tarfile.TarError as e:
        raise OSError(errno.EINVAL, "not an uncompressed tar stream: %s" % e) from None
    with t:
        try:
            members = t.getmembers()
        except tarfile.TarError as e:
            raise OSError(errno.EINVAL, "a damaged tar stream: %s" % e) from None
        for m in members:
            parts = _parts(m.name)
            if not parts:
                continue
            path = dest
            for p in parts[:-1]:
                path = os.path.join(path, p)
                try:
                    st = os.lstat(path)
                except FileNotFoundError:
                    os.mkdir(path, 0o755)
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    raise _refuse(m.name, "a path through a symlink or a file")
            path = os.path.join(path, parts[-1])
            mode = m.mode & 0o777
            try:
                old = os.lstat(path)
            except FileNotFoundError:
                old = None
            if m.isdir():
                if old is None:
                    os.mkdir(path, 0o700)
                elif not stat.S_ISDIR(old.st_mode):
                    raise _refuse(m.name, "a directory over a file or symlink")
                os.chmod(path, mode | 0o700)
                continue
            if old is not None and stat.S_ISDIR(old.st_mode):
                raise _refuse(m.name, "a file over a directory")
            if m.issym():
                if old is not None:
                    os.unlink(path)
                os.symlink(m.linkname, path)
            elif m.isreg():
                if old is not None and not stat.S_ISREG(old.st_mode):
                    os.unlink(path)
                src = t.extractfile(m)
                assert src is not None
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
                with os.fdopen(fd, "wb") as f:
                    while True:
                        chunk = src.read(1 << 20)
                        if not chunk:
                            break
                        f.write(chunk)
                os.chmod(path, mode)
            else:
                raise _refuse(m.name, "not a file, directory or symlink")

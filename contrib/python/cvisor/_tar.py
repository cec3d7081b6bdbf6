"""Tar streams of the remote sandbox's copy_into and copy_out: packing a
host tree (what the ignore rules keep) and unpacking one refusing every
entry that would leave its target. Standard library only: the client uses
it off Linux too."""
from __future__ import annotations

import errno
import io
import os
import stat
import tarfile
from typing import Callable, Optional

__all__ = ["pack_tree", "unpack_tree"]


def _refuse(name: str, why: str) -> OSError:
    return OSError(errno.EINVAL, "tar entry %r: %s" % (name, why))


def pack_tree(root: str, keep: Optional[Callable[[str, bool], bool]] = None) -> bytes:
    """An uncompressed tar of the directory ROOT's contents (names relative
    to it), symlinks stored as links, other special files left out. KEEP
    (relative path, is a directory) decides what goes in; a directory left
    out is not entered."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for d, dirs, files in os.walk(root):
            rel_d = os.path.relpath(d, root)
            kept_dirs = []
            for name in sorted(dirs):
                full = os.path.join(d, name)
                rel = name if rel_d == "." else rel_d + "/" + name
                if os.path.islink(full):  # os.walk lists a symlink to a directory here
                    if keep is None or keep(rel, False):
                        t.add(full, rel, recursive=False)
                    continue
                if keep is not None and not keep(rel, True):
                    continue
                t.add(full, rel, recursive=False)
                kept_dirs.append(name)
            dirs[:] = kept_dirs
            for name in sorted(files):
                full = os.path.join(d, name)
                rel = name if rel_d == "." else rel_d + "/" + name
                st = os.lstat(full)
                if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                    continue
                if keep is not None and not keep(rel, False):
                    continue
                t.add(full, rel, recursive=False)
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

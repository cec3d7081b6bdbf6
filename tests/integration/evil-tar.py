#!/usr/bin/python3
"""Writes to stdout a tar archive made to attack an extractor, for
archive.bats: evil-tar.py CASE [ARG]. Python's tarfile writes names and
link targets as given, which is what these archives need."""
import io
import sys
import tarfile


def member(tar, name, data=b"", mode=0o644, **kw):
    info = tarfile.TarInfo(name)
    info.mode = mode
    for k, v in kw.items():
        setattr(info, k, v)
    if info.type == tarfile.REGTYPE:
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    else:
        tar.addfile(info)


def link(tar, name, target, kind=tarfile.SYMTYPE):
    member(tar, name, type=kind, linkname=target)


def main():
    case, arg = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
    out = sys.stdout.buffer
    if case == "huge":
        # a header declaring 10 GiB, followed by one block: the extractor
        # must refuse on the header, before writing anything
        info = tarfile.TarInfo("huge")
        info.size = 10 << 30
        out.write(info.tobuf(format=tarfile.PAX_FORMAT) + b"x" * 512)
        return
    if case == "truncated":
        info = tarfile.TarInfo("partial")
        info.size = 100000
        out.write(info.tobuf(format=tarfile.GNU_FORMAT) + b"y" * 4096)
        return
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        member(tar, "ok", b"fine\n")
        if case == "absolute":
            member(tar, arg + "/pwned", b"x")
        elif case == "dotdot":
            member(tar, "a/../../pwned", b"x")
        elif case == "symlink-then-file":
            link(tar, "link", arg)
            member(tar, "link/pwned", b"x")
        elif case == "symlink-relative-then-file":
            member(tar, "d", type=tarfile.DIRTYPE, mode=0o755)
            link(tar, "d/up", "../..")
            member(tar, "d/up/pwned", b"x")
        elif case == "symlink-then-dir":
            link(tar, "link", arg)
            member(tar, "link/sub", type=tarfile.DIRTYPE, mode=0o755)
        elif case == "symlink-replaced":
            # a file of the same name replaces the symlink, never writes through it
            link(tar, "victim", arg)
            member(tar, "victim", b"replaced\n")
        elif case == "hardlink-out":
            link(tar, "h", arg, tarfile.LNKTYPE)
        elif case == "hardlink-dotdot":
            link(tar, "h", "../outside", tarfile.LNKTYPE)
        elif case == "hardlink-symlink":
            link(tar, "s", arg)
            link(tar, "h", "s", tarfile.LNKTYPE)
        elif case == "hardlink-later":
            link(tar, "h", "later", tarfile.LNKTYPE)
            member(tar, "later", b"x")
        elif case == "hardlink-ok":
            member(tar, "dir/orig", b"shared\n")
            link(tar, "copy", "dir/orig", tarfile.LNKTYPE)
        elif case == "device":
            member(tar, "null", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        elif case == "blockdev":
            member(tar, "sda", type=tarfile.BLKTYPE, devmajor=8, devminor=0)
        elif case == "fifo":
            member(tar, "pipe", type=tarfile.FIFOTYPE)
        elif case == "many":
            for i in range(int(arg)):
                member(tar, "f%d" % i, b"")
        elif case == "big":
            member(tar, "big", b"z" * int(arg))
        elif case == "setuid":
            member(tar, "suid", b"#!/bin/sh\n", mode=0o6755)
            member(tar, "sdir", type=tarfile.DIRTYPE, mode=0o3777)
        elif case == "longpath":
            member(tar, "p" * int(arg), b"x")
        else:
            sys.exit("evil-tar.py: unknown case " + case)
    out.write(buf.getvalue())


main()

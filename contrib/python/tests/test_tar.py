"""cvisor._tar: the tar streams of RemoteSandbox.copy_into/copy_out and the
server's upload. Unpacking refuses every entry that would leave its target."""
import errno
import io
import os
import tarfile

import pytest

from cvisor import _tar


def tar_of(*members):
    """An uncompressed tar of (TarInfo, data) pairs."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
            else:
                t.addfile(info)
    return buf.getvalue()


def entry(name, kind=tarfile.REGTYPE, linkname="", mode=0o644):
    i = tarfile.TarInfo(name)
    i.type = kind
    i.linkname = linkname
    i.mode = mode
    return i


def test_round_trip_keeps_files_dirs_symlinks_and_modes(tmp_path):
    src = tmp_path / "src"
    (src / "a" / "b").mkdir(parents=True)
    (src / "a" / "b" / "f").write_bytes(b"\x00data")
    (src / "x.sh").write_text("#!/bin/sh\n")
    os.chmod(src / "x.sh", 0o755)
    os.symlink("a/b/f", src / "link")
    os.mkfifo(src / "fifo")  # left out
    data = _tar.pack_tree(str(src))
    dst = tmp_path / "dst"
    dst.mkdir()
    _tar.unpack_tree(data, str(dst))
    assert (dst / "a" / "b" / "f").read_bytes() == b"\x00data"
    assert os.stat(dst / "x.sh").st_mode & 0o777 == 0o755
    assert os.readlink(dst / "link") == "a/b/f"
    assert not os.path.lexists(dst / "fifo")


def test_pack_stores_the_paths_given_and_nothing_else(tmp_path):
    src = tmp_path / "src"
    (src / "skip" / "deep").mkdir(parents=True)
    (src / "skip" / "deep" / "f").write_text("x")
    (src / "keep").mkdir()
    (src / "keep" / "f").write_text("y")
    (src / "top").write_text("z")
    t = tarfile.open(fileobj=io.BytesIO(_tar.pack_tree(str(src), ["keep", "keep/f", "gone", "top"])))
    assert t.getnames() == ["keep", "keep/f", "top"]  # a path gone since the walk is left out
    assert t.extractfile("keep/f").read() == b"y"
    # by default every entry, in the walk's order
    assert tarfile.open(fileobj=io.BytesIO(_tar.pack_tree(str(src)))).getnames() == [
        "keep", "keep/f", "skip", "skip/deep", "skip/deep/f", "top"]


@pytest.mark.parametrize("members,why", [
    ([(entry("/etc/evil"), b"x")], "absolute"),
    ([(entry("../evil"), b"x")], ".."),
    ([(entry("a/../../evil"), b"x")], ".."),
    ([(entry("l", tarfile.SYMTYPE, "/etc"), None), (entry("l/evil"), b"x")], "symlink"),
    ([(entry("dev", tarfile.CHRTYPE), None)], "not a file"),
    ([(entry("fifo", tarfile.FIFOTYPE), None)], "not a file"),
    ([(entry("f"), b"x"), (entry("h", tarfile.LNKTYPE, "f"), None)], "not a file"),
])
def test_unpack_refuses_what_leaves_the_target(tmp_path, members, why):
    dst = tmp_path / "dst"
    dst.mkdir()
    with pytest.raises(OSError) as e:
        _tar.unpack_tree(tar_of(*members), str(dst))
    assert e.value.errno == errno.EINVAL
    assert why in str(e.value)
    assert not os.path.exists(tmp_path / "evil")
    assert not os.path.exists("/etc/evil")


def test_unpack_replaces_a_symlink_rather_than_writing_through_it(tmp_path):
    outside = tmp_path / "outside"
    outside.write_text("keep")
    dst = tmp_path / "dst"
    dst.mkdir()
    os.symlink(str(outside), dst / "f")
    _tar.unpack_tree(tar_of((entry("f"), b"new")), str(dst))
    assert outside.read_text() == "keep"
    assert (dst / "f").read_bytes() == b"new"
    assert not os.path.islink(dst / "f")


def test_unpack_refuses_what_is_not_a_plain_tar(tmp_path):
    import gzip
    with pytest.raises(OSError) as e:
        _tar.unpack_tree(gzip.compress(tar_of((entry("f"), b"x"))), str(tmp_path))
    assert e.value.errno == errno.EINVAL
    with pytest.raises(OSError):
        _tar.unpack_tree(b"garbage" * 100, str(tmp_path))

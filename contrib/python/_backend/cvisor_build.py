"""A PEP 517 build backend for the cvisor package, standard library only.

It builds a pure-Python wheel of cvisor/ (and an sdist of this directory),
so that `pip install ./contrib/python` needs no index. Metadata comes from
pyproject.toml ([project]: name, version, description, requires-python)."""
import base64
import hashlib
import io
import os
import tarfile
import zipfile

try:
    import tomllib
except ImportError:  # python < 3.11: the few keys are read by hand
    tomllib = None

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "cvisor"


def _table(name):
    """The string keys of pyproject.toml's [NAME] table ("project",
    "project.scripts"); by hand before python 3.11, which suffices for the
    flat `key = "value"` lines those tables hold here."""
    path = os.path.join(HERE, "pyproject.toml")
    if tomllib is not None:
        with open(path, "rb") as f:
            t = tomllib.load(f)
        for part in name.split("."):
            t = t.get(part, {})
        return t
    out, section = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line
            elif section == "[%s]" % name and "=" in line and line.split("=", 1)[1].strip().startswith('"'):
                k, v = line.split("=", 1)
                out[k.strip()] = v.strip().strip('"')
    return out


def _project():
    return _table("project")


def _metadata():
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % p["name"], "Version: %s" % p["version"],
             "Summary: %s" % p.get("description", "")]
    if p.get("requires-python"):
        lines.append("Requires-Python: %s" % p["requires-python"])
    readme = os.path.join(HERE, "README.md")
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = f.read()
    return p, "\n".join(lines) + "\n\n" + body


def _files():
    for d, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            full = os.path.join(d, name)
            yield full, os.path.relpath(full, HERE)


def _scripts():
    """[project.scripts] of pyproject.toml: {name: "module:function"}."""
    return _table("project.scripts")


def _record_line(arcname, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (arcname, digest, len(data))


def _dist_info(p):
    return "%s-%s.dist-info" % (p["name"].replace("-", "_"), p["version"])


def _wheel(wheel_directory, editable):
    p, meta = _metadata()
    name = "%s-%s-py3-none-any.whl" % (p["name"].replace("-", "_"), p["version"])
    info = _dist_info(p)
    record = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        def add(arcname, data):
            z.writestr(zipfile.ZipInfo(arcname, (1980, 1, 1, 0, 0, 0)), data)
            record.append(_record_line(arcname, data))
        if editable:
            add("%s.pth" % PACKAGE, (HERE + "\n").encode())
        else:
            for full, arc in _files():
                with open(full, "rb") as f:
                    add(arc, f.read())
        add(info + "/METADATA", meta.encode())
        scripts = _scripts()
        if scripts:  # pip makes a command of each
            add(info + "/entry_points.txt", ("[console_scripts]\n" + "".join(
                "%s = %s\n" % kv for kv in sorted(scripts.items()))).encode())
        add(info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: cvisor_build\nRoot-Is-Purelib: true\n"
                             b"Tag: py3-none-any\n")
        record.append(info + "/RECORD,,")
        z.writestr(zipfile.ZipInfo(info + "/RECORD", (1980, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, True)


def build_sdist(sdist_directory, config_settings=None):
    p, meta = _metadata()
    base = "%s-%s" % (p["name"], p["version"])
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in ("pyproject.toml", "README.md"):
            if os.path.exists(os.path.join(HERE, rel)):
                t.add(os.path.join(HERE, rel), base + "/" + rel)
        t.add(os.path.join(HERE, "_backend", "cvisor_build.py"), base + "/_backend/cvisor_build.py")
        for full, arc in _files():
            t.add(full, base + "/" + arc)
        data = meta.encode()
        ti = tarfile.TarInfo(base + "/PKG-INFO")
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    return name

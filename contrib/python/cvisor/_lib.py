"""Loading libcvisor and declaring the prototypes of its sandbox calls."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import threading
from typing import Optional

__all__ = ["load_library", "library", "last_error", "last_errno", "raise_errno", "RunOptions"]

_c_u8_p = ctypes.POINTER(ctypes.c_uint8)
_c_size_p = ctypes.POINTER(ctypes.c_size_t)


class _Context(ctypes.Structure):
    """struct cvisor_context of cvisor.h (the state root and the helper)."""

    _fields_ = [("struct_size", ctypes.c_size_t), ("state_root", ctypes.c_char_p),
                ("systemd_cgroup", ctypes.c_bool), ("rootless", ctypes.c_int),
                ("helper_path", ctypes.c_char_p)]


class RunOptions(ctypes.Structure):
    """struct cvisor_run_options of cvisor.h (cvisor_run_with)."""

    _fields_ = [("struct_size", ctypes.c_size_t), ("argv", ctypes.POINTER(ctypes.c_char_p)),
                ("env", ctypes.POINTER(ctypes.c_char_p)), ("cwd", ctypes.c_char_p),
                ("input", _c_u8_p), ("input_len", ctypes.c_size_t), ("timeout_ms", ctypes.c_uint64),
                ("max_output_bytes", ctypes.c_uint64)]


# name: (restype, argtypes), as cvisor.h declares them
_PROTOTYPES = {
    "cvisor_last_error": (ctypes.c_char_p, []),
    "cvisor_last_errno": (ctypes.c_int, []),
    "cvisor_free": (None, [ctypes.c_void_p]),
    "cvisor_error_message": (ctypes.c_char_p, [ctypes.c_void_p]),
    "cvisor_error_free": (None, [ctypes.c_void_p]),
    "cvisor_do_check": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                       ctypes.POINTER(ctypes.c_void_p)]),
    "cvisor_sandbox_new": (ctypes.c_void_p, []),
    "cvisor_sandbox_free": (None, [ctypes.c_void_p]),
    "cvisor_sandbox_set_context": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(_Context)]),
    "cvisor_sandbox_set_log_level": (None, [ctypes.c_void_p, ctypes.c_int]),
    "cvisor_sandbox_set_allow_network": (None, [ctypes.c_void_p, ctypes.c_int]),
    "cvisor_sandbox_set_allow_listen": (None, [ctypes.c_void_p, ctypes.c_int]),
    "cvisor_sandbox_set_env": (None, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]),
    "cvisor_sandbox_set_limits": (None, [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32]),
    "cvisor_sandbox_set_option": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]),
    "cvisor_sandbox_set_policy_json": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
    "cvisor_sandbox_write_file": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, _c_u8_p, ctypes.c_size_t]),
    "cvisor_sandbox_read_file": (_c_u8_p, [ctypes.c_void_p, ctypes.c_char_p, _c_size_p]),
    "cvisor_sandbox_copy_into": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]),
    "cvisor_sandbox_copy_out": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]),
    "cvisor_cache_save": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                         ctypes.c_char_p]),
    "cvisor_cache_restore": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                            ctypes.c_char_p]),
    "cvisor_run": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p]),
    "cvisor_run_timeout": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_uint64]),
    "cvisor_run_argv": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_char_p,
                                          _c_u8_p, ctypes.c_size_t, ctypes.c_uint64]),
    "cvisor_run_with": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.POINTER(RunOptions)]),
    "cvisor_sandbox_cancel": (ctypes.c_int, [ctypes.c_void_p]),
    "cvisor_output_free": (None, [ctypes.c_void_p]),
    "cvisor_output_exit_code": (ctypes.c_int, [ctypes.c_void_p]),
    "cvisor_output_stdout": (_c_u8_p, [ctypes.c_void_p, _c_size_p]),
    "cvisor_output_stderr": (_c_u8_p, [ctypes.c_void_p, _c_size_p]),
    "cvisor_output_report_json": (ctypes.c_char_p, [ctypes.c_void_p]),
    "cvisor_bytes_free": (None, [_c_u8_p, ctypes.c_size_t]),
    "cvisor_session_start": (ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]),
    "cvisor_session_read_stdout": (_c_u8_p, [ctypes.c_void_p, _c_size_p]),
    "cvisor_session_read_stderr": (_c_u8_p, [ctypes.c_void_p, _c_size_p]),
    "cvisor_session_write_stdin": (ctypes.c_long, [ctypes.c_void_p, _c_u8_p, ctypes.c_size_t]),
    "cvisor_session_resize": (None, [ctypes.c_void_p, ctypes.c_uint16, ctypes.c_uint16]),
    "cvisor_session_try_wait": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]),
    "cvisor_session_wait": (ctypes.c_int, [ctypes.c_void_p]),
    "cvisor_session_kill": (None, [ctypes.c_void_p]),
    "cvisor_session_free": (None, [ctypes.c_void_p]),
}


def _bundled() -> list:
    native = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")
    return [os.path.join(native, "libcvisor-%s.so" % platform.machine()), os.path.join(native, "libcvisor.so")]


def load_library(path: Optional[str] = None) -> ctypes.CDLL:
    """Load libcvisor and declare restype/argtypes for every function used.

    Looked for in order: PATH, then ``$CVISOR_LIB``, then a copy bundled in
    the package (``cvisor/_native/libcvisor-<arch>.so`` or
    ``cvisor/_native/libcvisor.so``), then the installed system library
    (``libcvisor.so.0``). Raises ``OSError`` naming every place tried when
    none loads.
    """
    candidates = []
    if path:
        candidates.append(path)
    elif os.environ.get("CVISOR_LIB"):
        candidates.append(os.environ["CVISOR_LIB"])
    else:
        candidates += [p for p in _bundled() if os.path.exists(p)]
        candidates.append("libcvisor.so.0")
        found = ctypes.util.find_library("cvisor")
        if found:
            candidates.append(found)
    errors = []
    for c in candidates:
        try:
            lib = ctypes.CDLL(c, use_errno=True)
        except OSError as e:
            errors.append("%s: %s" % (c, e))
            continue
        try:
            for name, (res, args) in _PROTOTYPES.items():
                fn = getattr(lib, name)
                fn.restype = res
                fn.argtypes = args
        except AttributeError as e:
            errors.append("%s: not a libcvisor with sandboxes (%s)" % (c, e))
            continue
        return lib
    raise OSError("libcvisor: cannot load it (set CVISOR_LIB to its path): " + "; ".join(errors))


_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None


def library() -> ctypes.CDLL:
    """The process's libcvisor, loaded once by ``load_library()``."""
    global _lib
    with _lock:
        if _lib is None:
            _lib = load_library()
        return _lib


def last_error(lib: ctypes.CDLL) -> str:
    """This thread's last libcvisor sandbox error message."""
    msg = lib.cvisor_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


def last_errno(lib: ctypes.CDLL) -> int:
    """This thread's last libcvisor sandbox errno (0 when none)."""
    return int(lib.cvisor_last_errno())


def raise_errno(lib: ctypes.CDLL, r: int, path: Optional[str] = None) -> None:
    """Raise ``OSError(errno, message, path)`` for a negative result R."""
    if r >= 0:
        return
    msg = last_error(lib) or os.strerror(-r)
    if path is None:
        raise OSError(-r, msg)
    raise OSError(-r, msg, path)


def take_bytes(lib: ctypes.CDLL, ptr, n: int) -> bytes:
    """Copy N bytes at PTR and release them with cvisor_bytes_free."""
    if not ptr:
        return b""
    try:
        return ctypes.string_at(ptr, n)
    finally:
        lib.cvisor_bytes_free(ptr, n)


def as_bytes(data) -> bytes:
    """bytes from bytes, bytearray, memoryview or str (UTF-8)."""
    if isinstance(data, str):
        return data.encode("utf-8")
    return bytes(data)


def u8_buffer(data: bytes):
    """A ctypes uint8 pointer onto DATA (kept alive by the caller)."""
    if not data:
        return None
    return ctypes.cast(ctypes.c_char_p(data), _c_u8_p)

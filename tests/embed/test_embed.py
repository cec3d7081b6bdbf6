#!/usr/bin/python3
"""libcvisor loaded by python3 through ctypes, as an SDK would load it.

python3's own binary is writable: create, run and exec must go through the
cvisor helper, and the interpreter must come out unchanged (dumpable and
subreaper flags, signal mask and handlers, a child process of its own, its
fds). Eight threads at once create, start, exec, kill and delete a
container each; then errors, the log sink, --config and a cancelled run.

Run by tests/integration/embed.bats with CVISOR_LIB (the libcvisor.so to
load), EMBED_BUNDLE (config.json runs `sleep`; config-exit3.json and
config-warn.json next to it, as for tests/embed/embed-test.c), EMBED_ROOT
(the state root) and EMBED_HELPER (the cvisor binary)."""
import ctypes
import errno
import os
import signal
import subprocess
import sys
import threading
import time
import unittest

LIB = ctypes.CDLL(os.environ["CVISOR_LIB"], use_errno=True)
LIBC = ctypes.CDLL(None, use_errno=True)
BUNDLE = os.environ["EMBED_BUNDLE"].encode()
ROOT = os.environ["EMBED_ROOT"].encode()
HELPER = os.environ["EMBED_HELPER"].encode()


class Context(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("state_root", ctypes.c_char_p),
                ("systemd_cgroup", ctypes.c_bool), ("rootless", ctypes.c_int),
                ("helper_path", ctypes.c_char_p)]


class CreateOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("bundle", ctypes.c_char_p),
                ("config_path", ctypes.c_char_p), ("pid_file", ctypes.c_char_p),
                ("console_socket", ctypes.c_char_p), ("pidfd_socket", ctypes.c_char_p),
                ("preserve_fds", ctypes.c_int), ("no_pivot", ctypes.c_bool),
                ("no_new_keyring", ctypes.c_bool), ("keep", ctypes.c_bool),
                ("cancel_fd", ctypes.c_int)]


class ExecOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("process_path", ctypes.c_char_p),
                ("args", ctypes.POINTER(ctypes.c_char_p)), ("env", ctypes.POINTER(ctypes.c_char_p)),
                ("cwd", ctypes.c_char_p), ("user", ctypes.c_char_p),
                ("additional_gids", ctypes.POINTER(ctypes.c_uint)),
                ("additional_gids_len", ctypes.c_size_t), ("caps", ctypes.POINTER(ctypes.c_char_p)),
                ("tty", ctypes.c_bool), ("no_new_privs", ctypes.c_bool), ("detach", ctypes.c_bool),
                ("console_socket", ctypes.c_char_p), ("pidfd_socket", ctypes.c_char_p),
                ("pid_file", ctypes.c_char_p), ("preserve_fds", ctypes.c_int),
                ("apparmor", ctypes.c_char_p), ("process_label", ctypes.c_char_p),
                ("cancel_fd", ctypes.c_int)]


ERR = ctypes.POINTER(ctypes.c_void_p)
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
P = ctypes.POINTER
for name, args in {
    "cvisor_create": [P(Context), ctypes.c_char_p, P(CreateOptions), ERR],
    "cvisor_start": [P(Context), ctypes.c_char_p, ERR],
    "cvisor_container_run": [P(Context), ctypes.c_char_p, P(CreateOptions), ctypes.c_bool,
                             P(ctypes.c_int), ERR],
    "cvisor_exec": [P(Context), ctypes.c_char_p, P(ExecOptions), P(ctypes.c_int), ERR],
    "cvisor_kill": [P(Context), ctypes.c_char_p, ctypes.c_int, ctypes.c_bool, ERR],
    "cvisor_delete": [P(Context), ctypes.c_char_p, ctypes.c_bool, ERR],
    "cvisor_state_json": [P(Context), ctypes.c_char_p, P(ctypes.c_void_p), ERR],
}.items():
    getattr(LIB, name).argtypes = args
    getattr(LIB, name).restype = ctypes.c_int
LIB.cvisor_error_message.argtypes = [ctypes.c_void_p]
LIB.cvisor_error_message.restype = ctypes.c_char_p
LIB.cvisor_error_free.argtypes = [ctypes.c_void_p]
LIB.cvisor_free.argtypes = [ctypes.c_void_p]
LIB.cvisor_set_log_sink.argtypes = [LOG_FN, ctypes.c_void_p, ctypes.c_int]
LIB.cvisor_set_log_sink.restype = None


def context():
    return Context(ctypes.sizeof(Context), ROOT, False, -1, HELPER)


def call(fn, *args):
    """fn(*args, &err): raises OSError(errno, message) on failure."""
    err = ctypes.c_void_p()
    r = fn(*args, ctypes.byref(err))
    if r < 0:
        msg = LIB.cvisor_error_message(err).decode()
        LIB.cvisor_error_free(err)
        raise OSError(-r, msg)


def strv(items):
    v = (ctypes.c_char_p * (len(items) + 1))(*[i.encode() for i in items], None)
    return ctypes.cast(v, P(ctypes.c_char_p))


def status_of(cid):
    out = ctypes.c_void_p()
    try:
        call(LIB.cvisor_state_json, context(), cid, ctypes.byref(out))
    except OSError as e:
        if e.errno == errno.ENOENT:
            return "gone"
        raise
    text = ctypes.string_at(out.value).decode()
    LIB.cvisor_free(out)
    import json
    return json.loads(text)["status"]


def wait_status(cid, want):
    for _ in range(200):
        if status_of(cid) == want:
            return True
        time.sleep(0.05)
    return False


def run_exec(cid, args, **kw):
    opts = ExecOptions(struct_size=ctypes.sizeof(ExecOptions), args=strv(args), **kw)
    status = ctypes.c_int(-1)
    call(LIB.cvisor_exec, context(), cid, ctypes.byref(opts), ctypes.byref(status))
    return status.value


PR_GET_DUMPABLE, PR_GET_CHILD_SUBREAPER = 3, 37


def self_state():
    sub = ctypes.c_int(-1)
    LIBC.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(sub), 0, 0, 0)
    handlers = {s: signal.getsignal(s) for s in signal.valid_signals()
                if s not in (signal.SIGKILL, signal.SIGSTOP) and s < signal.SIGRTMIN}
    return {"dumpable": LIBC.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), "subreaper": sub.value,
            "mask": signal.pthread_sigmask(signal.SIG_BLOCK, []), "handlers": handlers,
            "fds": sorted(os.listdir("/proc/self/fd"))}


class Embed(unittest.TestCase):
    def setUp(self):
        self.logged = []
        self.sink = LOG_FN(lambda level, msg, _: self.logged.append((level, msg.decode())))
        LIB.cvisor_set_log_sink(self.sink, None, 1)

    def tearDown(self):
        LIB.cvisor_set_log_sink(LOG_FN(), None, 0)

    def test_writable_interpreter(self):
        exe = os.path.realpath("/proc/self/exe")
        self.assertTrue(os.access(exe, os.W_OK), exe)
        self.assertFalse(os.statvfs(exe).f_flag & os.ST_RDONLY)

    def test_threads_and_the_caller_unchanged(self):
        signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])
        own = subprocess.Popen(["sleep", "1000"])
        sigchld = []
        previous = signal.signal(signal.SIGCHLD, lambda *_: sigchld.append(1))
        before = self_state()
        failures = []

        def life(n):
            cid = ("py-%d-%d" % (os.getpid(), n)).encode()
            try:
                opts = CreateOptions(struct_size=ctypes.sizeof(CreateOptions), bundle=BUNDLE)
                call(LIB.cvisor_create, context(), cid, ctypes.byref(opts))
                assert status_of(cid) == "created", status_of(cid)
                call(LIB.cvisor_start, context(), cid)
                assert status_of(cid) == "running", status_of(cid)
                assert run_exec(cid, ["sh", "-c", "exit 7"]) == 7
                assert run_exec(cid, ["sh", "-c", 'test "$X" = y'], env=strv(["X=y"])) == 0
                # python ignores SIGPIPE: the container does not (grep
                # itself: busybox sh running one command ignores SIGQUIT)
                assert run_exec(cid, ["grep", "-q", "^SigIgn:[[:space:]]*0*$", "/proc/self/status"]) == 0
                call(LIB.cvisor_kill, context(), cid, signal.SIGKILL, False)
                assert wait_status(cid, "stopped")
                call(LIB.cvisor_delete, context(), cid, False)
                assert status_of(cid) == "gone"
            except Exception as e:  # reported below, with the thread's number
                failures.append("thread %d: %r" % (n, e))

        threads = [threading.Thread(target=life, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])
        after = self_state()
        for key in before:
            self.assertEqual(before[key], after[key], key)
        self.assertEqual(before["dumpable"], 1)
        self.assertIn(signal.SIGUSR1, after["mask"])
        self.assertEqual(sigchld, [], "no SIGCHLD from the helpers")
        self.assertIsNone(own.poll(), "our own child is still there, unreaped")
        signal.signal(signal.SIGCHLD, previous)
        own.kill()
        self.assertEqual(own.wait(), -signal.SIGKILL)
        with self.assertRaises(ChildProcessError, msg="no other child left behind"):
            os.waitpid(-1, os.WNOHANG)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR1])

    def test_errors_config_and_log_sink(self):
        cid = ("py-%d-run" % os.getpid()).encode()
        with self.assertRaises(OSError) as cm:
            run_exec(b"py-missing", ["true"])
        self.assertEqual(cm.exception.errno, errno.ENOENT)
        self.assertEqual(cm.exception.strerror, 'container "py-missing" does not exist')
        opts = CreateOptions(struct_size=ctypes.sizeof(CreateOptions), bundle=BUNDLE,
                             config_path=BUNDLE + b"/config-exit3.json")
        status = ctypes.c_int(-1)
        call(LIB.cvisor_container_run, context(), cid, ctypes.byref(opts), False, ctypes.byref(status))
        self.assertEqual(status.value, 3)
        self.assertEqual(status_of(cid), "gone")
        opts.config_path = BUNDLE + b"/config-warn.json"
        call(LIB.cvisor_container_run, context(), cid, ctypes.byref(opts), False, ctypes.byref(status))
        self.assertTrue(any(level == 1 and "poststop hook" in msg for level, msg in self.logged), self.logged)
        bad = CreateOptions(struct_size=8, bundle=BUNDLE)
        with self.assertRaises(OSError) as cm:
            call(LIB.cvisor_create, context(), cid, ctypes.byref(bad))
        self.assertEqual(cm.exception.errno, errno.EINVAL)
        self.assertIn("struct_size 8", cm.exception.strerror)

    def test_cancel(self):
        cid = ("py-%d-cancel" % os.getpid()).encode()
        fd = os.eventfd(0, os.EFD_CLOEXEC)
        try:
            opts = CreateOptions(struct_size=ctypes.sizeof(CreateOptions), bundle=BUNDLE, cancel_fd=fd)
            threading.Timer(0.3, os.eventfd_write, (fd, 1)).start()
            with self.assertRaises(OSError) as cm:
                call(LIB.cvisor_container_run, context(), cid, ctypes.byref(opts), False,
                     ctypes.byref(ctypes.c_int()))
            self.assertEqual(cm.exception.errno, errno.ECANCELED)
            self.assertEqual(status_of(cid), "gone")
        finally:
            os.close(fd)


if __name__ == "__main__":
    unittest.main(verbosity=2)

"""The GraphQL schema of cvisor-server (graphql-core 2). Bytes travel as
base64 text; each resolver maps the SDK's exceptions to ServiceError, so
that a client sees a clear message and a code, never a traceback."""
from __future__ import annotations

import base64
import binascii
import errno
import functools
import json
import os
import re
import shutil
import tempfile
from typing import Any, Callable, Dict

from graphql import (GraphQLArgument, GraphQLBoolean, GraphQLEnumType, GraphQLEnumValue, GraphQLField,
                     GraphQLInputObjectField, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull,
                     GraphQLObjectType, GraphQLSchema, GraphQLString, GraphQLFloat)

from .. import _tar
from .state import ServiceError, os_error

__all__ = ["build_schema", "VERSION"]

VERSION = "1"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: str, what: str) -> bytes:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise ServiceError("%s: not base64 text" % what, "BAD_INPUT") from None


def _resolver(fn: Callable[..., Any]) -> Callable[..., Any]:
    """FN as a resolver: an unexpected exception becomes "internal error"
    with the request's id (and a log line), never its text or traceback."""

    @functools.wraps(fn)
    async def wrapped(root: Any, info: Any, **args: Any) -> Any:
        ctx = info.context
        try:
            return await fn(ctx, **args)
        except ServiceError:
            raise
        except OSError as e:
            raise os_error(e) from None
        except Exception as e:  # a bug: the client gets the request id, the log the details
            ctx.log("error", operation=info.field_name, error="%s: %s" % (type(e).__name__, e))
            raise ServiceError("internal error (request %s)" % ctx.request_id, "INTERNAL") from None

    return wrapped


def _nn(t: Any) -> Any:
    return GraphQLNonNull(t)


def _path(p: str, what: str = "path") -> str:
    if not p or "\0" in p:
        raise ServiceError("%s: an empty path or one with a NUL byte" % what, "BAD_INPUT")
    return p


_CACHE_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def build_schema() -> GraphQLSchema:
    """The server's schema. Resolvers find the registry, the caller's token
    and the server's settings in ``info.context`` (a RequestContext)."""

    Limits = GraphQLInputObjectType("LimitsInput", {
        "memoryMax": GraphQLInputObjectField(GraphQLFloat, description="bytes; 0: unset"),
        "pidsMax": GraphQLInputObjectField(GraphQLInt, description="processes; 0: unset"),
        "cpuPercent": GraphQLInputObjectField(GraphQLInt, description="percent of one core; 0: unset"),
    })
    EnvVar = GraphQLInputObjectType("EnvVarInput", {
        "key": GraphQLInputObjectField(_nn(GraphQLString)),
        "value": GraphQLInputObjectField(_nn(GraphQLString)),
    })
    Settings = GraphQLInputObjectType("SandboxSettings", {
        "network": GraphQLInputObjectField(GraphQLBoolean, description="outbound network (Sandbox.set_allow_network)"),
        "listen": GraphQLInputObjectField(GraphQLBoolean, description="may listen (Sandbox.set_allow_listen)"),
        "env": GraphQLInputObjectField(GraphQLList(_nn(EnvVar)), description="added to the runs' environment"),
        "limits": GraphQLInputObjectField(Limits, description="each run's limits (Sandbox.set_limits)"),
        "logLevel": GraphQLInputObjectField(GraphQLString, description="DEBUG or another (the server's stderr)"),
    })

    SandboxInfo = GraphQLObjectType("Sandbox", lambda: {
        "id": GraphQLField(_nn(GraphQLString), description="<random>.<node>: the node names the host holding it",
                           resolver=lambda e, i: e.id),
        "node": GraphQLField(_nn(GraphQLString), resolver=lambda e, i: e.id.split(".", 1)[1]),
        "createdAt": GraphQLField(_nn(GraphQLFloat), description="Unix time", resolver=lambda e, i: e.created),
        "runs": GraphQLField(_nn(GraphQLInt), description="runs in flight", resolver=lambda e, i: len(e.runs)),
        "sessions": GraphQLField(_nn(GraphQLInt), resolver=lambda e, i: len(e.sessions)),
        "memoryMax": GraphQLField(_nn(GraphQLFloat), description="bytes counted against the memory quota",
                                  resolver=lambda e, i: float(e.memory)),
        "network": GraphQLField(_nn(GraphQLBoolean), resolver=lambda e, i: e.settings["network"]),
        "listen": GraphQLField(_nn(GraphQLBoolean), resolver=lambda e, i: e.settings["listen"]),
    })
    RunResult = GraphQLObjectType("RunResult", {
        "exitCode": GraphQLField(_nn(GraphQLInt), resolver=lambda o, i: o.exit_code),
        "stdout": GraphQLField(_nn(GraphQLString), description="base64", resolver=lambda o, i: _b64(o.stdout_bytes)),
        "stderr": GraphQLField(_nn(GraphQLString), description="base64", resolver=lambda o, i: _b64(o.stderr_bytes)),
        "report": GraphQLField(_nn(GraphQLString), description="the run report, JSON text",
                               resolver=lambda o, i: json.dumps(o.report)),
    })
    Kind = GraphQLEnumType("TransferKind", {"FILE": GraphQLEnumValue("FILE"),
                                            "DIRECTORY": GraphQLEnumValue("DIRECTORY")})
    Transfer = GraphQLObjectType("Transfer", {
        "kind": GraphQLField(_nn(Kind), resolver=lambda t, i: t[0]),
        "data": GraphQLField(_nn(GraphQLString), description="base64: the file, or an uncompressed tar of the "
                             "directory's contents", resolver=lambda t, i: _b64(t[1])),
    })
    SessionInfo = GraphQLObjectType("Session", {
        "id": GraphQLField(_nn(GraphQLString), resolver=lambda s, i: s.id),
        "exitCode": GraphQLField(GraphQLInt, resolver=lambda s, i: s.exit_code),
    })
    Stream = GraphQLEnumType("SessionStream", {k: GraphQLEnumValue(k) for k in ("STDOUT", "STDERR", "EXIT")})
    SessionEvent = GraphQLObjectType("SessionEvent", {
        "stream": GraphQLField(_nn(Stream), resolver=lambda ev, i: ev[0]),
        "data": GraphQLField(_nn(GraphQLString), description="base64", resolver=lambda ev, i: _b64(ev[1])),
        "exitCode": GraphQLField(GraphQLInt, description="with EXIT", resolver=lambda ev, i: ev[2]),
    })
    Quotas = GraphQLObjectType("Quotas", {
        "sandboxes": GraphQLField(_nn(GraphQLInt), resolver=lambda q, i: q["sandboxes"]),
        "runs": GraphQLField(_nn(GraphQLInt), resolver=lambda q, i: q["runs"]),
        "memory": GraphQLField(_nn(GraphQLFloat), description="bytes; 0: none", resolver=lambda q, i: q["memory"]),
    })
    Capabilities = GraphQLObjectType("Capabilities", {
        "version": GraphQLField(_nn(GraphQLString), resolver=lambda c, i: VERSION),
        "node": GraphQLField(_nn(GraphQLString), resolver=lambda c, i: c.registry.node),
        "tokenId": GraphQLField(_nn(GraphQLString), resolver=lambda c, i: c.token.id),
        "quotas": GraphQLField(_nn(Quotas), resolver=lambda c, i: c.quotas()),
        "maxBodyBytes": GraphQLField(_nn(GraphQLFloat), resolver=lambda c, i: c.config.max_body),
        "maxQueryDepth": GraphQLField(_nn(GraphQLInt), resolver=lambda c, i: c.config.max_depth),
        "idleTimeoutSeconds": GraphQLField(_nn(GraphQLFloat), resolver=lambda c, i: c.config.idle_timeout),
        "cacheBackends": GraphQLField(_nn(GraphQLList(_nn(GraphQLString))),
                                      resolver=lambda c, i: sorted(c.config.cache_backends)),
        "limits": GraphQLField(_nn(GraphQLString), description="how this host enforces each limit (JSON text, "
                               "libcvisor's check)", resolver=lambda c, i: c.config.enforcement()),
    })

    # ---- queries ----

    @_resolver
    async def r_capabilities(ctx: Any) -> Any:
        return ctx

    @_resolver
    async def r_sandboxes(ctx: Any) -> Any:
        return sorted(ctx.registry.own(ctx.token), key=lambda e: e.created)

    @_resolver
    async def r_sandbox(ctx: Any, id: str) -> Any:
        return ctx.registry.get(ctx.token, id)

    @_resolver
    async def r_read_file(ctx: Any, sandbox: str, path: str) -> Any:
        e = ctx.registry.get(ctx.token, sandbox)
        return _b64(await ctx.registry.call(e.sandbox.read_file, _path(path)))

    @_resolver
    async def r_download(ctx: Any, sandbox: str, path: str) -> Any:
        e = ctx.registry.get(ctx.token, sandbox)
        try:
            return ("FILE", await ctx.registry.call(e.sandbox.read_file, _path(path)))
        except IsADirectoryError:
            pass

        def tree() -> bytes:
            d = tempfile.mkdtemp(dir=ctx.config.work_dir)
            try:
                e.sandbox.copy_out(path, os.path.join(d, "t"))
                return _tar.pack_tree(os.path.join(d, "t"))
            finally:
                shutil.rmtree(d, ignore_errors=True)

        return ("DIRECTORY", await ctx.registry.call(tree))

    @_resolver
    async def r_session(ctx: Any, id: str) -> Any:
        return ctx.registry.get_session(ctx.token, id)

    Query = GraphQLObjectType("Query", {
        "capabilities": GraphQLField(_nn(Capabilities), resolver=r_capabilities),
        "sandboxes": GraphQLField(_nn(GraphQLList(_nn(SandboxInfo))), description="the caller's sandboxes",
                                  resolver=r_sandboxes),
        "sandbox": GraphQLField(_nn(SandboxInfo), args={"id": GraphQLArgument(_nn(GraphQLString))},
                                resolver=r_sandbox),
        "readFile": GraphQLField(_nn(GraphQLString), description="base64",
                                 args={"sandbox": GraphQLArgument(_nn(GraphQLString)),
                                       "path": GraphQLArgument(_nn(GraphQLString))}, resolver=r_read_file),
        "download": GraphQLField(_nn(Transfer), args={"sandbox": GraphQLArgument(_nn(GraphQLString)),
                                                      "path": GraphQLArgument(_nn(GraphQLString))},
                                 resolver=r_download),
        "session": GraphQLField(_nn(SessionInfo), args={"id": GraphQLArgument(_nn(GraphQLString))},
                                resolver=r_session),
    })

    # ---- mutations ----

    @_resolver
    async def r_create(ctx: Any, settings: Dict[str, Any] = None) -> Any:
        return await ctx.registry.create(ctx.token, settings or {})

    @_resolver
    async def r_delete(ctx: Any, id: str) -> Any:
        await ctx.registry.remove(ctx.registry.get(ctx.token, id))
        return True

    @_resolver
    async def r_cancel(ctx: Any, id: str) -> Any:
        e = ctx.registry.get(ctx.token, id)
        await ctx.registry.call(e.sandbox.cancel)
        return True

    @_resolver
    async def r_configure(ctx: Any, id: str, settings: Dict[str, Any]) -> Any:
        e = ctx.registry.get(ctx.token, id)
        await ctx.registry.configure(e, settings)
        return e

    @_resolver
    async def r_run(ctx: Any, sandbox: str, command: str, timeoutMs: int = None) -> Any:
        e = ctx.registry.get(ctx.token, sandbox)
        if "\0" in command:
            raise ServiceError("command: a NUL byte", "BAD_INPUT")
        if timeoutMs is not None and timeoutMs < 0:
            raise ServiceError("timeoutMs: 0 (none) or a positive number of milliseconds", "BAD_INPUT")
        return await ctx.registry.run(e, command, timeoutMs or 0, ctx.markers)

    @_resolver
    async def r_write_file(ctx: Any, sandbox: str, path: str, data: str) -> Any:
        e = ctx.registry.get(ctx.token, sandbox)
        await ctx.registry.call(e.sandbox.write_file, _path(path), _unb64(data, "data"))
        return True

    @_resolver
    async def r_delete_file(ctx: Any, sandbox: str, path: str) -> Any:
        e = ctx.registry.get(ctx.token, sandbox)
        _path(path)
        # rm(1) in the sandbox, as the program: the same view and rights as its runs
        out = await ctx.registry.run(e, 'if [ -d "$1" ] && [ ! -L "$1" ]; then echo EISDIR; exit 1; fi; '
                                        'if [ ! -e "$1" ] && [ ! -L "$1" ]; then echo ENOENT; exit 1; fi; '
                                        'rm -f -- "$1" 2>&1 || { echo EACCES; exit 1; }', 0, ctx.markers,
                                     argv_tail=[path])
        if out.exit_code != 0:
            lines = out.stdout.strip().splitlines() or ["EIO"]
            code = getattr(errno, lines[-1], errno.EIO)
            msg = " ".join(lines[:-1]) or os.strerror(code)
            raise ServiceError("delete %s: %s" % (path, msg), "OS_ERROR", errno=code, filename=path)
        return True

    @_resolver
    async def r_upload(ctx: Any, sandbox: str, path: str, kind: str, data: str, mode: int = None) -> Any:
        e = ctx.registry.get(ctx.token, sandbox)
        _path(path)
        raw = _unb64(data, "data")

        def put() -> None:
            d = tempfile.mkdtemp(dir=ctx.config.work_dir)
            try:
                src = os.path.join(d, "t")
                if kind == "FILE":
                    fd = os.open(src, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
                    with os.fdopen(fd, "wb") as f:
                        f.write(raw)
                    os.chmod(src, (mode if mode is not None else 0o644) & 0o777)
                else:
                    os.mkdir(src, 0o755)
                    _tar.unpack_tree(raw, src)
                # the library's copy: its ignore rules and its unpacking inside the sandbox
                e.sandbox.copy_into(src, path)
            except OSError as err:
                if err.filename and str(err.filename).startswith(d):
                    raise OSError(err.errno, err.strerror, path) from None
                raise
            finally:
                shutil.rmtree(d, ignore_errors=True)

        await ctx.registry.call(put)
        return True

    def _backend(ctx: Any, backend: str) -> str:
        b = ctx.config.cache_backends.get(backend or "disk")
        if b is None:
            raise ServiceError("backend %r: this server's cache backends are %s" % (
                backend, ", ".join(repr(k) for k in sorted(ctx.config.cache_backends))), "BAD_INPUT")
        return b(ctx.token.id)

    def _cache(save: bool) -> Callable[..., Any]:
        @_resolver
        async def r(ctx: Any, sandbox: str, path: str, key: str, backend: str = "", format: str = "gzip") -> Any:
            e = ctx.registry.get(ctx.token, sandbox)
            if not _CACHE_KEY.match(key):
                raise ServiceError("key %r: 1 to 128 of A-Z a-z 0-9 . _ -, not starting with . _ -" % key,
                                   "BAD_INPUT")
            fn = e.sandbox.cache_save if save else e.sandbox.cache_restore
            await ctx.registry.call(fn, _path(path), key, _backend(ctx, backend), format)
            return True
        return r

    @_resolver
    async def r_start_session(ctx: Any, sandbox: str, command: str = None, pty: bool = False) -> Any:
        e = ctx.registry.get(ctx.token, sandbox)
        if command is not None and "\0" in command:
            raise ServiceError("command: a NUL byte", "BAD_INPUT")
        if command is None and not pty:
            raise ServiceError("startSession: a command, or pty: true for an interactive shell", "BAD_INPUT")
        return await ctx.registry.start_session(e, command, bool(pty))

    @_resolver
    async def r_write_stdin(ctx: Any, session: str, data: str) -> Any:
        st = ctx.registry.get_session(ctx.token, session)
        return await ctx.registry.call(st.session.write_stdin, _unb64(data, "data"))

    @_resolver
    async def r_resize(ctx: Any, session: str, rows: int, cols: int) -> Any:
        st = ctx.registry.get_session(ctx.token, session)
        if not (0 < rows < 65536 and 0 < cols < 65536):
            raise ServiceError("resize: rows and cols are 1 to 65535", "BAD_INPUT")
        await ctx.registry.call(st.session.resize, rows, cols)
        return True

    @_resolver
    async def r_kill(ctx: Any, session: str) -> Any:
        st = ctx.registry.get_session(ctx.token, session)
        await ctx.registry.call(st.session.kill)
        return True

    @_resolver
    async def r_wait(ctx: Any, session: str) -> Any:
        st = ctx.registry.get_session(ctx.token, session)
        await st.done.wait()
        return st.exit_code

    @_resolver
    async def r_close_session(ctx: Any, session: str) -> Any:
        await ctx.registry.close_session(ctx.registry.get_session(ctx.token, session))
        return True

    S = _nn(GraphQLString)
    cache_args = {"sandbox": GraphQLArgument(S), "path": GraphQLArgument(S), "key": GraphQLArgument(S),
                  "backend": GraphQLArgument(GraphQLString, default_value=""),
                  "format": GraphQLArgument(GraphQLString, default_value="gzip")}
    Mutation = GraphQLObjectType("Mutation", {
        "createSandbox": GraphQLField(_nn(SandboxInfo), args={"settings": GraphQLArgument(Settings)},
                                      resolver=r_create),
        "deleteSandbox": GraphQLField(_nn(GraphQLBoolean), args={"id": GraphQLArgument(S)}, resolver=r_delete),
        "cancelSandbox": GraphQLField(_nn(GraphQLBoolean), description="end every run and session of the sandbox "
                                      "in flight now (exit code 137, the report says cancelled); it stays usable",
                                      args={"id": GraphQLArgument(S)}, resolver=r_cancel),
        "configureSandbox": GraphQLField(_nn(SandboxInfo), args={"id": GraphQLArgument(S),
                                                                 "settings": GraphQLArgument(_nn(Settings))},
                                         resolver=r_configure),
        "run": GraphQLField(_nn(RunResult), description="/bin/sh -c COMMAND, stdin empty; killed when the request "
                            "ends (the client went away)",
                            args={"sandbox": GraphQLArgument(S), "command": GraphQLArgument(S),
                                  "timeoutMs": GraphQLArgument(GraphQLInt)}, resolver=r_run),
        "writeFile": GraphQLField(_nn(GraphQLBoolean), args={"sandbox": GraphQLArgument(S), "path": GraphQLArgument(S),
                                                             "data": GraphQLArgument(S)}, resolver=r_write_file),
        "deleteFile": GraphQLField(_nn(GraphQLBoolean), args={"sandbox": GraphQLArgument(S),
                                                              "path": GraphQLArgument(S)}, resolver=r_delete_file),
        "upload": GraphQLField(_nn(GraphQLBoolean), description="copy a file or a tar of a directory's contents to "
                               "PATH (the library's copy_into: its ignore rules apply)",
                               args={"sandbox": GraphQLArgument(S), "path": GraphQLArgument(S),
                                     "kind": GraphQLArgument(_nn(Kind)), "data": GraphQLArgument(S),
                                     "mode": GraphQLArgument(GraphQLInt)}, resolver=r_upload),
        "cacheSave": GraphQLField(_nn(GraphQLBoolean), args=cache_args, resolver=_cache(True)),
        "cacheRestore": GraphQLField(_nn(GraphQLBoolean), args=cache_args, resolver=_cache(False)),
        "startSession": GraphQLField(_nn(SessionInfo), description="COMMAND under /bin/sh -c, or with pty and no "
                                     "command an interactive /bin/sh -i", args={
                                         "sandbox": GraphQLArgument(S), "command": GraphQLArgument(GraphQLString),
                                         "pty": GraphQLArgument(GraphQLBoolean, default_value=False)},
                                     resolver=r_start_session),
        "writeStdin": GraphQLField(_nn(GraphQLInt), args={"session": GraphQLArgument(S), "data": GraphQLArgument(S)},
                                   resolver=r_write_stdin),
        "resizeSession": GraphQLField(_nn(GraphQLBoolean), args={"session": GraphQLArgument(S),
                                                                 "rows": GraphQLArgument(_nn(GraphQLInt)),
                                                                 "cols": GraphQLArgument(_nn(GraphQLInt))},
                                      resolver=r_resize),
        "killSession": GraphQLField(_nn(GraphQLBoolean), args={"session": GraphQLArgument(S)}, resolver=r_kill),
        "waitSession": GraphQLField(_nn(GraphQLInt), args={"session": GraphQLArgument(S)}, resolver=r_wait),
        "closeSession": GraphQLField(_nn(GraphQLBoolean), args={"session": GraphQLArgument(S)},
                                     resolver=r_close_session),
    })

    # the subscription's resolver is never called by graphql-core: the
    # WebSocket handler feeds each event as the root of the selection
    Subscription = GraphQLObjectType("Subscription", {
        "sessionOutput": GraphQLField(_nn(SessionEvent), description="the session's output from its start, then "
                                      "as it comes; ends after EXIT", args={"session": GraphQLArgument(S)},
                                      resolver=lambda root, info, **a: root),
    })
    return GraphQLSchema(query=Query, mutation=Mutation, subscription=Subscription)


def event_schema(schema: GraphQLSchema) -> GraphQLSchema:
    """A schema whose query type is SCHEMA's Subscription type: a
    subscription's selection is executed on each event as a query of it."""
    return GraphQLSchema(query=schema.get_subscription_type())

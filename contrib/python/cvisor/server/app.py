"""cvisor-server's HTTP side: GraphQL over POST /graphql, subscriptions over
a WebSocket on GET /graphql (the graphql-transport-ws protocol), bearer
tokens, size and depth limits, JSON-lines logs, and the shutdown that
removes every sandbox."""
from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import json
import logging
import os
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from aiohttp import WSMsgType, web
from graphql import GraphQLError as _GQLError
from graphql.error import GraphQLSyntaxError, format_error
from graphql.execution import execute
from graphql.execution.executors.asyncio import AsyncioExecutor
from graphql.execution.values import get_argument_values, get_variable_values
from graphql.language import ast
from graphql.language.parser import parse
from graphql.validation import validate

from ..sandbox import Sandbox
from .schema import build_schema, event_schema
from .state import Limits, Registry, ServiceError
from .tokens import Token, TokenTable

__all__ = ["Config", "Server"]

WS_PROTOCOL = "graphql-transport-ws"
#: how often a request in flight checks that its client is still there (seconds)
DISCONNECT_POLL = 0.2


class Config:
    """What `cvisor-server`'s options set."""

    def __init__(self, tokens: TokenTable, host: str = "127.0.0.1", port: int = 8470,
                 tls_cert: Optional[str] = None, tls_key: Optional[str] = None, state_root: Optional[str] = None,
                 helper: Optional[str] = None, work_dir: Optional[str] = None, idle_timeout: float = 1800.0,
                 limits: Optional[Limits] = None, max_body: int = 64 << 20, max_depth: int = 10,
                 node: str = "local", cache_dir: Optional[str] = None,
                 cache_backends: Optional[Dict[str, str]] = None, threads: int = 64) -> None:
        self.tokens = tokens
        self.host = host
        self.port = port
        self.tls_cert = tls_cert
        self.tls_key = tls_key
        self.state_root = state_root
        self.helper = helper or os.environ.get("CVISOR_HELPER") or shutil.which("cvisor")
        if work_dir is None:
            work_dir = (state_root + "-server") if state_root else os.path.join(
                os.environ.get("XDG_RUNTIME_DIR") if os.geteuid() else "/run", "cvisor-server")
        self.work_dir = work_dir
        self.idle_timeout = idle_timeout
        self.limits = limits or Limits(sandboxes=16, runs=16, memory=16 << 30, default_memory=1 << 30)
        self.max_body = max_body
        self.max_depth = max_depth
        self.node = node
        self.cache_dir = cache_dir or os.path.join(work_dir, "cache")
        self.threads = threads
        cache_dir_ = self.cache_dir
        # name -> the backend of a token id: each token has its own namespace
        self.cache_backends: Dict[str, Callable[[str], str]] = {"disk": lambda tid: "disk:%s/%s" % (cache_dir_, tid)}
        for name, url in (cache_backends or {}).items():
            self.cache_backends[name] = _per_token(url)
        self._enforcement: Optional[str] = None

    def enforcement(self) -> str:
        if self._enforcement is None:
            try:
                from ..session import SandboxSession
                self._enforcement = json.dumps(SandboxSession().capabilities())
            except Exception as e:  # the check is informative only
                self._enforcement = json.dumps({"error": str(e)})
        return self._enforcement


def _per_token(url: str) -> Callable[[str], str]:
    """URL with the token id appended to its path (before a query)."""
    base, sep, query = url.partition("?")
    return lambda tid: base.rstrip("/") + "/" + tid + sep + query


class _Log:
    """JSON lines on stderr (or a stream): one object per event."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stderr

    def __call__(self, level: str, **fields: Any) -> None:
        rec = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + "Z", "level": level}
        rec.update({k: v for k, v in fields.items() if v is not None})
        try:
            self.stream.write(json.dumps(rec, default=str) + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass


class RequestContext:
    """What a resolver gets as ``info.context``: one request's state. Nothing
    in it outlives the request."""

    def __init__(self, server: "Server", token: Token, request_id: str) -> None:
        self.registry = server.registry
        self.config = server.config
        self.token = token
        self.request_id = request_id
        self.markers: set = set()  # the runs of this request: killed if it ends first
        self._log = server.log

    def log(self, level: str, **fields: Any) -> None:
        self._log(level, request_id=self.request_id, token_id=self.token.id, **fields)

    def quotas(self) -> Dict[str, int]:
        lim = self.config.limits
        t = self.token
        return {"sandboxes": t.sandboxes or lim.sandboxes, "runs": t.runs or lim.runs,
                "memory": t.memory or lim.memory}


class RequestError(Exception):
    """A request refused before execution: HTTP STATUS and MESSAGE."""

    def __init__(self, status: int, message: str, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def _depth(doc: ast.Document, limit: int) -> int:
    """The deepest selection of DOC (fragments followed); stops counting
    past LIMIT+1, so a deep or cyclic document costs little."""
    frags = {d.name.value: d for d in doc.definitions if isinstance(d, ast.FragmentDefinition)}

    def walk(sel: Optional[ast.SelectionSet], depth: int, seen: Tuple[str, ...]) -> int:
        if sel is None or depth > limit:
            return depth
        best = depth
        for s in sel.selections:
            if isinstance(s, ast.Field):
                best = max(best, walk(s.selection_set, depth + 1, seen) if s.selection_set else depth + 1)
            elif isinstance(s, ast.InlineFragment):
                best = max(best, walk(s.selection_set, depth, seen))
            elif isinstance(s, ast.FragmentSpread):
                name = s.name.value
                if name in seen:
                    raise RequestError(400, "fragment %r spreads itself (a cycle)" % name, "GRAPHQL_VALIDATION_FAILED")
                if name not in frags:
                    continue  # validation refuses it
                best = max(best, walk(frags[name].selection_set, depth, seen + (name,)))
            if best > limit:
                return best
        return best

    return max([walk(d.selection_set, 0, ()) for d in doc.definitions if isinstance(d, ast.OperationDefinition)]
               or [0])


def _operation(doc: ast.Document, name: Optional[str]) -> ast.OperationDefinition:
    ops = [d for d in doc.definitions if isinstance(d, ast.OperationDefinition)]
    if name is not None:
        ops = [o for o in ops if o.name is not None and o.name.value == name]
        if not ops:
            raise RequestError(400, "operationName %r: no such operation in the document" % name, "BAD_REQUEST")
    if len(ops) != 1:
        raise RequestError(400, "the document must have exactly one operation, or operationName must name one",
                           "BAD_REQUEST")
    return ops[0]


def _operation_label(op: ast.OperationDefinition) -> str:
    fields = [s.name.value for s in op.selection_set.selections if isinstance(s, ast.Field)]
    return "%s %s{%s}" % (op.operation, (op.name.value + " ") if op.name else "", ",".join(fields))


class Server:
    """The service: a registry of sandboxes behind an aiohttp application."""

    def __init__(self, config: Config, log_stream: Any = None) -> None:
        self.config = config
        self.log = _Log(log_stream)
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=config.threads,
                                                          thread_name_prefix="cvisor-server")
        self.registry = Registry(config.limits, config.node, self.pool, self._make_sandbox, self.log)
        self.schema = build_schema()
        self.events = event_schema(self.schema)
        self.runner: Optional[web.AppRunner] = None
        self.sockets: set = set()
        self._reaper: Optional[asyncio.Task] = None
        self.stopped = asyncio.Event()
        # graphql-core logs each resolver's exception with its traceback: ours are logged as JSON
        logging.getLogger("graphql").setLevel(logging.CRITICAL + 1)

    def _make_sandbox(self) -> Sandbox:
        sb = Sandbox()
        if self.config.state_root or self.config.helper:
            sb.set_context(state_root=self.config.state_root, helper_path=self.config.helper)
        return sb

    # ---- lifecycle ----

    def recover(self) -> None:
        """Remove what a dead server left: its transfer directories, and
        (`cvisor gc`) the cgroups of its killed runs and the mount points
        of its keepers; the keepers themselves die with the server."""
        os.makedirs(self.config.work_dir, mode=0o700, exist_ok=True)
        for name in os.listdir(self.config.work_dir):
            if name.startswith("xfer-"):
                shutil.rmtree(os.path.join(self.config.work_dir, name), ignore_errors=True)
        if not self.config.helper:
            self.log("warning", operation="recover", error="no cvisor binary (--helper): `cvisor gc` not run")
            return
        cmd = [self.config.helper] + (["--root=" + self.config.state_root] if self.config.state_root else []) + ["gc"]
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=120)
        self.log("info" if p.returncode == 0 else "error", operation="recover", command=" ".join(cmd),
                 status=p.returncode, output=p.stdout.decode("utf-8", "replace").strip() or None)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=self.config.max_body)
        app.router.add_post("/graphql", self.handle_post)
        app.router.add_get("/graphql", self.handle_ws)
        app.router.add_get("/healthz", self.handle_health)
        return app

    def ssl_context(self) -> Optional[ssl.SSLContext]:
        if not self.config.tls_cert:
            return None
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(self.config.tls_cert, self.config.tls_key)
        return ctx

    async def start(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self.pool, self.recover)
        self.runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.config.host, self.config.port, ssl_context=self.ssl_context(),
                           reuse_address=True, shutdown_timeout=5.0)
        await site.start()
        self._reaper = asyncio.ensure_future(self._expire_loop())
        self.log("info", operation="start", listen="%s:%d" % (self.config.host, self.config.port),
                 tls=bool(self.config.tls_cert), node=self.config.node, state_root=self.config.state_root,
                 tokens=len(self.config.tokens), pid=os.getpid())

    async def _expire_loop(self) -> None:
        period = max(0.2, min(30.0, self.config.idle_timeout / 4))
        while True:
            await asyncio.sleep(period)
            try:
                await self.registry.expire_idle(self.config.idle_timeout)
            except Exception as e:
                self.log("error", operation="expire", error="%s: %s" % (type(e).__name__, e))

    async def shutdown(self) -> None:
        """Stop taking work, kill the runs and sessions, remove every sandbox."""
        if self.registry.draining:
            return
        t0 = time.monotonic()
        self.registry.draining = True
        n = len(self.registry.entries)
        if self._reaper is not None:
            self._reaper.cancel()
        await self.registry.remove_all()
        for ws in list(self.sockets):
            await ws.close(code=1001, message=b"server shutting down")
        if self.runner is not None:
            await self.runner.cleanup()
        self.pool.shutdown(wait=True)
        self.log("info", operation="stop", sandboxes_removed=n, duration_ms=round((time.monotonic() - t0) * 1000, 1))
        self.stopped.set()

    # ---- requests ----

    def _authenticate(self, request: web.Request) -> Optional[Token]:
        h = request.headers.get("Authorization", "")
        scheme, _, tok = h.partition(" ")
        if scheme.lower() != "bearer" or not tok.strip():
            return None
        return self.config.tokens.lookup(tok.strip())

    @staticmethod
    def _error_response(status: int, message: str, code: str, request_id: str) -> web.Response:
        headers = {"X-Request-Id": request_id}
        if status == 401:
            headers["WWW-Authenticate"] = 'Bearer realm="cvisor"'
        return web.json_response({"errors": [{"message": message, "extensions": {"code": code}}]}, status=status,
                                 headers=headers)

    async def handle_health(self, request: web.Request) -> web.Response:
        return web.Response(text="draining\n" if self.registry.draining else "ok\n",
                            status=503 if self.registry.draining else 200)

    def _parse(self, body: Any) -> Tuple[ast.Document, ast.OperationDefinition, Dict[str, Any], Optional[str]]:
        """The document, operation and variables of a request BODY (a decoded
        JSON value); RequestError for anything else."""
        if not isinstance(body, dict):
            raise RequestError(400, "the body must be a JSON object with \"query\"", "BAD_REQUEST")
        query, variables, name = body.get("query"), body.get("variables"), body.get("operationName")
        if not isinstance(query, str) or not query.strip():
            raise RequestError(400, "\"query\" must be a non-empty string", "BAD_REQUEST")
        if variables is None:
            variables = {}
        if not isinstance(variables, dict):
            raise RequestError(400, "\"variables\" must be an object", "BAD_REQUEST")
        if name is not None and not isinstance(name, str):
            raise RequestError(400, "\"operationName\" must be a string", "BAD_REQUEST")
        try:
            doc = parse(query)
        except GraphQLSyntaxError as e:
            raise RequestError(400, "syntax: %s" % str(e).split("\n", 1)[0], "GRAPHQL_PARSE_FAILED") from None
        except RecursionError:
            raise RequestError(400, "the query nests too deep to parse", "QUERY_TOO_DEEP") from None
        d = _depth(doc, self.config.max_depth)
        if d > self.config.max_depth:
            raise RequestError(400, "the query is deeper than %d levels" % self.config.max_depth, "QUERY_TOO_DEEP")
        try:
            errors = validate(self.schema, doc)
        except RecursionError:
            raise RequestError(400, "the query nests too deep to validate", "QUERY_TOO_DEEP") from None
        if errors:
            raise RequestError(400, "; ".join(str(e) for e in errors[:5]), "GRAPHQL_VALIDATION_FAILED")
        return doc, _operation(doc, name), variables, name

    async def handle_post(self, request: web.Request) -> web.Response:
        t0 = time.monotonic()
        rid = secrets.token_hex(8)
        token = self._authenticate(request)
        fields: Dict[str, Any] = {"request_id": rid, "token_id": token.id if token else None,
                                  "remote": request.remote}
        label = None
        try:
            if token is None:
                raise RequestError(401, "a bearer token of this server is needed (Authorization: Bearer TOKEN)",
                                   "UNAUTHENTICATED")
            if self.registry.draining:
                raise RequestError(503, "the server is shutting down", "UNAVAILABLE")
            try:
                raw = await request.read()
            except web.HTTPRequestEntityTooLarge:
                raise RequestError(413, "the body is larger than %d bytes" % self.config.max_body,
                                   "BODY_TOO_LARGE") from None
            try:
                body = json.loads(raw)
            except (ValueError, RecursionError):
                raise RequestError(400, "the body is not JSON", "BAD_REQUEST") from None
            doc, op, variables, name = self._parse(body)
            label = _operation_label(op)
            if op.operation == "subscription":
                raise RequestError(400, "subscriptions are served over a WebSocket at GET /graphql "
                                        "(protocol graphql-transport-ws)", "BAD_REQUEST")
            ctx = RequestContext(self, token, rid)

            async def run() -> Any:
                return await execute(self.schema, doc, context_value=ctx, variable_values=variables,
                                     operation_name=name, executor=AsyncioExecutor(asyncio.get_running_loop()),
                                     return_promise=True)

            task = asyncio.ensure_future(run())
            try:
                # aiohttp 3.8 does not cancel a handler whose client went
                # away: look at the connection while the request works
                while not task.done():
                    await asyncio.wait({task}, timeout=DISCONNECT_POLL)
                    t = request.transport
                    if not task.done() and (t is None or t.is_closing()):
                        task.cancel()
                        status = 499
                        fields["errors"] = ["the client went away"]
                        return web.Response(status=499)
                result = task.result()
            finally:
                if not task.done():
                    task.cancel()
                if ctx.markers:  # the request ended first (the client went away): its runs go too
                    asyncio.ensure_future(self.registry.kill_runs(set(ctx.markers)))
                    fields["killed_runs"] = len(ctx.markers)
            out: Dict[str, Any] = {"data": result.data}
            if result.errors:
                out["errors"] = [self._format(e) for e in result.errors]
                fields["errors"] = [e["message"] for e in out["errors"]][:3]
            status = 200
            return web.json_response(out, headers={"X-Request-Id": rid})
        except RequestError as e:
            status = e.status
            fields["errors"] = [str(e)]
            return self._error_response(e.status, str(e), e.code, rid)
        except asyncio.CancelledError:
            status = 499
            raise
        except Exception as e:  # a bug: the client gets the request id, the log the details
            status = 500
            fields["errors"] = ["%s: %s" % (type(e).__name__, e)]
            return self._error_response(500, "internal error (request %s)" % rid, "INTERNAL", rid)
        finally:
            self.log("info" if locals().get("status", 500) < 500 else "error", operation=label, status=locals().get("status", 500),
                     duration_ms=round((time.monotonic() - t0) * 1000, 2), **fields)

    def _format(self, e: Exception) -> Dict[str, Any]:
        if isinstance(e, _GQLError):
            f = format_error(e)
            orig = getattr(e, "original_error", None)
            if orig is not None and not isinstance(orig, (ServiceError, _GQLError)):
                # graphql-core's own coercion and type errors carry clear text; anything else is a bug
                f["message"] = str(orig) if isinstance(orig, (ValueError, TypeError)) else "internal error"
            return f
        return {"message": "internal error"}

    # ---- subscriptions ----

    async def handle_ws(self, request: web.Request) -> web.StreamResponse:
        rid = secrets.token_hex(8)
        token = self._authenticate(request)
        if token is None:
            self.log("info", request_id=rid, operation="websocket", status=401, remote=request.remote)
            return self._error_response(401, "a bearer token of this server is needed (Authorization: Bearer TOKEN)",
                                        "UNAUTHENTICATED", rid)
        if self.registry.draining:
            return self._error_response(503, "the server is shutting down", "UNAVAILABLE", rid)
        ws = web.WebSocketResponse(protocols=(WS_PROTOCOL,), max_msg_size=self.config.max_body, heartbeat=30)
        await ws.prepare(request)
        self.sockets.add(ws)
        subs: Dict[str, asyncio.Task] = {}
        started: List[Any] = []  # the sessions this socket streamed: killed if it goes first
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    await ws.close(code=4400, message=b"text frames only")
                    break
                try:
                    m = json.loads(msg.data)
                except ValueError:
                    await ws.close(code=4400, message=b"not JSON")
                    break
                if not isinstance(m, dict) or not isinstance(m.get("type"), str):
                    await ws.close(code=4400, message=b"a message is an object with a type")
                    break
                t = m["type"]
                if t == "connection_init":
                    await ws.send_json({"type": "connection_ack"})
                elif t == "ping":
                    await ws.send_json({"type": "pong"})
                elif t == "pong":
                    pass
                elif t == "subscribe":
                    sid = m.get("id")
                    if not isinstance(sid, str) or sid in subs:
                        await ws.close(code=4409, message=b"subscribe needs a new string id")
                        break
                    subs[sid] = asyncio.ensure_future(self._subscribe(ws, token, rid, sid, m.get("payload"),
                                                                       started))
                elif t == "complete":
                    task = subs.pop(m.get("id"), None) if isinstance(m.get("id"), str) else None
                    if task is not None:
                        task.cancel()
                else:
                    await ws.close(code=4400, message=b"unknown message type")
                    break
        finally:
            self.sockets.discard(ws)
            for task in subs.values():
                task.cancel()
            for st in started:
                if st.exit_code is None and st.id in self.registry.sessions:
                    self.log("info", request_id=rid, token_id=token.id, operation="session-abandoned",
                             session=st.id)
                    asyncio.ensure_future(self.registry.close_session(st))
        return ws

    async def _subscribe(self, ws: web.WebSocketResponse, token: Token, rid: str, sid: str, payload: Any,
                         started: List[Any]) -> None:
        t0 = time.monotonic()
        label = None
        sent = 0
        try:
            try:
                doc, op, variables, _ = self._parse(payload)
                label = _operation_label(op)
                if op.operation != "subscription":
                    raise RequestError(400, "only subscriptions are served over the WebSocket", "BAD_REQUEST")
                field = op.selection_set.selections[0]
                if not isinstance(field, ast.Field) or len(op.selection_set.selections) != 1:
                    raise RequestError(400, "a subscription selects one field, sessionOutput", "BAD_REQUEST")
                vals = get_variable_values(self.schema, op.variable_definitions or [], variables)
                args = get_argument_values(self.schema.get_subscription_type().fields[field.name.value].args,
                                           field.arguments, vals)
                st = self.registry.get_session(token, args.get("session"))
            except (RequestError, ServiceError, _GQLError) as e:
                code = getattr(e, "code", None) or (getattr(e, "extensions", None) or {}).get("code", "BAD_REQUEST")
                await ws.send_json({"id": sid, "type": "error", "payload": [{"message": str(e),
                                                                             "extensions": {"code": code}}]})
                return
            except Exception as e:  # a bug: the client gets the request id, the log the details
                self.log("error", request_id=rid, token_id=token.id, operation="subscribe",
                         error="%s: %s" % (type(e).__name__, e))
                await ws.send_json({"id": sid, "type": "error", "payload": [{
                    "message": "internal error (request %s)" % rid, "extensions": {"code": "INTERNAL"}}]})
                return
            started.append(st)
            as_query = copy.deepcopy(doc)
            for d in as_query.definitions:
                if isinstance(d, ast.OperationDefinition):
                    d.operation = "query"
            waiter = asyncio.Event()
            st.waiters.add(waiter)
            pos = 0
            try:
                while True:
                    waiter.clear()
                    pos = max(pos, st.dropped)
                    batch = st.events[pos - st.dropped:]
                    if not batch:
                        await waiter.wait()
                        continue
                    for ev in batch:
                        r = execute(self.events, as_query, root_value=ev, variable_values=variables)
                        out: Dict[str, Any] = {"data": r.data}
                        if r.errors:
                            out["errors"] = [self._format(e) for e in r.errors]
                        await ws.send_json({"id": sid, "type": "next", "payload": out})
                        sent += 1
                        pos += 1
                        if ev[0] == "EXIT":
                            await ws.send_json({"id": sid, "type": "complete"})
                            return
            finally:
                st.waiters.discard(waiter)
        except (ConnectionError, RuntimeError):
            pass  # the socket went away
        finally:
            self.log("info", request_id=rid, token_id=token.id, operation=label, subscription=sid, events=sent,
                     duration_ms=round((time.monotonic() - t0) * 1000, 2))


async def serve(config: Config, log_stream: Any = None) -> int:
    """Run the server until SIGTERM or SIGINT; then shut it down."""
    server = Server(config, log_stream)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    await stop.wait()
    server.log("info", operation="signal", error="shutting down")
    await server.shutdown()
    return 0

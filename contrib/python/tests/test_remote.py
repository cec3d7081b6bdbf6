"""cvisor-server and the SDK's client: tokens, ownership, quotas, request
limits, concurrency, runs killed with their client, shutdown and crash
recovery, TLS, logs. Real servers on loopback (conftest: server_a, server_b,
fresh_server), through the real libcvisor."""
import base64
import errno
import http.client
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import threading
import time
import uuid

import pytest

import cvisor
from conftest import PKG_DIR, needs_server, skip_unless_enforced, tagged_processes, TAG

pytestmark = needs_server


def post(srv, body, token=None, raw=False):
    """POST BODY (an object, or bytes when RAW) to SRV: (status, decoded JSON)."""
    c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=60)
    try:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        c.request("POST", "/graphql", body if raw else json.dumps(body).encode(), headers)
        r = c.getresponse()
        return r.status, json.loads(r.read())
    finally:
        c.close()


def wait_for(pred, timeout=30.0, what="the condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise AssertionError("%s did not happen within %gs" % (what, timeout))


# ---- tokens ----

def test_no_token_or_a_wrong_one_is_401(server_a, server_b):
    status, doc = post(server_a, {"query": "{ capabilities { version } }"})
    assert status == 401
    assert "bearer token" in doc["errors"][0]["message"]
    assert doc["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    status, _ = post(server_a, {"query": "{ capabilities { version } }"}, token="cvs_not-a-token")
    assert status == 401
    # a token of server B is nobody on server A
    status, _ = post(server_a, {"query": "{ capabilities { version } }"}, token=server_b.tokens["bob"])
    assert status == 401
    with pytest.raises(cvisor.GraphQLError) as e:
        cvisor.RemoteSandbox(server_a.url, server_b.tokens["bob"])
    assert e.value.status == 401
    assert "bearer token" in str(e.value)
    # and the WebSocket too
    with pytest.raises(cvisor.GraphQLError) as e:
        cvisor.GraphQLClient(server_a.url, "wrong").subscribe("subscription { sessionOutput(session: \"x\") { data } }")
    assert e.value.status == 401


def test_capabilities_and_listing(server_a):
    c = server_a.client("carol")
    caps = c.execute("{ capabilities { version node tokenId quotas { sandboxes runs memory } maxBodyBytes "
                     "maxQueryDepth cacheBackends limits } }")["capabilities"]
    assert caps["node"] == "nodea"
    assert caps["tokenId"] == "carol"
    assert caps["maxQueryDepth"] == 8
    assert caps["maxBodyBytes"] == 4 << 20
    assert caps["quotas"] == {"sandboxes": 16, "runs": 24, "memory": float(32 << 30)}
    assert "disk" in caps["cacheBackends"]
    assert "memory" in json.loads(caps["limits"])
    with server_a.sandbox("carol") as one, server_a.sandbox("carol") as two, server_a.sandbox("alice") as other:
        ids = [s["id"] for s in c.execute("{ sandboxes { id node } }")["sandboxes"]]
        assert sorted(ids) == sorted([one.id, two.id])
        assert other.id not in ids
        assert one.id.endswith(".nodea")  # the id names the host
    assert c.execute("{ sandboxes { id } }")["sandboxes"] == []


def test_another_tokens_sandbox_is_not_found_like_a_missing_one(server_a):
    with server_a.sandbox("alice") as mine:
        mine.write_file("/workspace/secret", "alice's")
        carol = server_a.client("carol")
        missing = "0123456789abcdef01234567.nodea"
        answers = []
        for ident in (mine.id, missing):
            for q in ("query($s: String!) { readFile(sandbox: $s, path: \"/workspace/secret\") }",
                      "mutation($s: String!) { run(sandbox: $s, command: \"true\") { exitCode } }",
                      "mutation($s: String!) { deleteSandbox(id: $s) }",
                      "query($s: String!) { sandbox(id: $s) { id } }"):
                with pytest.raises(cvisor.GraphQLError) as e:
                    carol.execute(q, {"s": ident})
                answers.append((e.value.code, str(e.value).replace(ident, "ID"), e.value.path))
        assert answers[:4] == answers[4:]
        assert answers[0][0] == "NOT_FOUND"
        assert "not found" in answers[0][1]
        # still there, untouched, for its owner
        assert mine.read_file("/workspace/secret") == b"alice's"
        # a session id of another token: the same
        s = mine._session("sleep 30", False)
        try:
            with pytest.raises(cvisor.GraphQLError) as e:
                carol.execute("mutation($s: String!) { killSession(session: $s) }", {"s": s.id})
            assert e.value.code == "NOT_FOUND"
            with pytest.raises(cvisor.GraphQLError) as e:
                carol.subscribe("subscription($s: String!) { sessionOutput(session: $s) { data } }",
                                {"s": s.id}).__iter__().__next__()
            assert e.value.code == "NOT_FOUND"
            assert s.exit_code() is None
        finally:
            s.close()


# ---- quotas ----

def test_quota_sandboxes(server_a):
    with server_a.sandbox("quota") as a, server_a.sandbox("quota") as b:
        with pytest.raises(cvisor.GraphQLError) as e:
            server_a.sandbox("quota")
        assert e.value.code == "QUOTA_EXCEEDED"
        assert "may hold 2 sandboxes" in str(e.value)
        assert a.id != b.id
    # room again once closed
    server_a.sandbox("quota").close()


def test_quota_concurrent_runs(server_a):
    with server_a.sandbox("quota") as sb:
        s = sb._session("sleep 60", False)  # a session counts as a run
        try:
            with pytest.raises(cvisor.GraphQLError) as e:
                sb.run("true")
            assert e.value.code == "QUOTA_EXCEEDED"
            assert "runs" in str(e.value)
        finally:
            s.close()
        assert sb.run("echo ok").stdout == "ok\n"


def test_quota_memory(server_a):
    # 768M in all; a sandbox without a limit counts (and is limited to) the server's default, 256M
    with server_a.sandbox("quota") as a:
        info = server_a.client("quota").execute("{ sandboxes { memoryMax } }")["sandboxes"]
        assert info == [{"memoryMax": float(256 << 20)}]
        a.set_limits(memory_max=600 << 20)
        with pytest.raises(cvisor.GraphQLError) as e:
            server_a.sandbox("quota")  # 600M + 256M > 768M
        assert e.value.code == "QUOTA_EXCEEDED"
        assert "memory" in str(e.value)
        with pytest.raises(cvisor.GraphQLError) as e:
            a.set_limits(memory_max=1 << 30)
        assert e.value.code == "QUOTA_EXCEEDED"
        a.set_limits(memory_max=256 << 20)
        with server_a.sandbox("quota"):  # 256M + 256M: fits
            pass
    # the default is the runs' limit, not only a number
    with server_a.sandbox("quota") as a:
        out = a.run("python3 -c 'b = bytearray(400 << 20); print(len(b))'")
        skip_unless_enforced(out.report, "memory")
        assert out.exit_code != 0
        assert out.report["limits_hit"]["memory"] is True


# ---- request limits and errors ----

def test_oversized_body_is_refused(server_a):
    big = b'{"query": "{ capabilities { version } }", "variables": {"x": "' + b"a" * (5 << 20) + b'"}}'
    status, doc = post(server_a, big, token=server_a.tokens["alice"], raw=True)
    assert status == 413
    assert "larger than 4194304 bytes" in doc["errors"][0]["message"]
    with server_a.sandbox("alice") as sb:
        with pytest.raises(cvisor.GraphQLError) as e:
            sb.write_file("/workspace/big", b"x" * (4 << 20))
        assert e.value.status == 413
        sb.write_file("/workspace/small", b"x" * (1 << 20))  # and the server goes on
        assert len(sb.read_file("/workspace/small")) == 1 << 20


def test_deep_query_is_refused(server_a):
    c = server_a.client("alice")
    deep = "{ " + "a { " * 20 + "b" + " }" * 20 + " }"
    with pytest.raises(cvisor.GraphQLError) as e:
        c.execute(deep)
    assert e.value.status == 400
    assert "deeper than 8 levels" in str(e.value)
    # through fragments too
    frag = "query { ...F0 } " + " ".join("fragment F%d on Query { capabilities { ...F%d } }" % (i, i + 1)
                                         for i in range(12)) + " fragment F12 on Query { sandboxes { id } }"
    with pytest.raises(cvisor.GraphQLError) as e:
        c.execute(frag)
    assert "deeper than" in str(e.value)
    # a cycle of fragments costs nothing and is refused
    with pytest.raises(cvisor.GraphQLError) as e:
        c.execute("query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }")
    assert e.value.status == 400
    assert c.execute("{ capabilities { quotas { runs } } }")["capabilities"]["quotas"]["runs"] == 24


def test_errors_are_clear_graphql_errors(server_a):
    c = server_a.client("alice")
    with pytest.raises(cvisor.GraphQLError) as e:
        c.execute("{ nosuchfield }")
    assert "nosuchfield" in str(e.value)
    assert e.value.code == "GRAPHQL_VALIDATION_FAILED"
    with pytest.raises(cvisor.GraphQLError) as e:
        c.execute("mutation($s: String!) { run(sandbox: $s, command: 42) { exitCode } }", {"s": "x"})
    assert "Traceback" not in str(e.value)
    with server_a.sandbox("alice") as sb:
        with pytest.raises(cvisor.GraphQLError) as e:
            c.execute("mutation($s: String!) { writeFile(sandbox: $s, path: \"/workspace/x\", data: \"%%%\") }",
                      {"s": sb.id})
        assert e.value.code == "BAD_INPUT"
        assert e.value.path == ["writeFile"]
        assert "base64" in str(e.value)
        with pytest.raises(cvisor.GraphQLError) as e:
            c.execute("mutation($s: String!) { cacheSave(sandbox: $s, path: \"/workspace\", key: \"k\", "
                      "backend: \"disk:/etc\") }", {"s": sb.id})
        assert "cache backends are 'disk'" in str(e.value)
        with pytest.raises(cvisor.GraphQLError) as e:
            c.execute("mutation($s: String!) { cacheSave(sandbox: $s, path: \"/workspace\", key: \"../x\") }",
                      {"s": sb.id})
        assert "key" in str(e.value)


def test_transport_failure_is_a_graphql_error():
    port = __import__("conftest").free_port()
    c = cvisor.GraphQLClient("http://127.0.0.1:%d/graphql" % port, "t", timeout=5)
    with pytest.raises(cvisor.GraphQLError) as e:
        c.execute("{ capabilities { version } }")
    assert "127.0.0.1:%d" % port in str(e.value)
    assert e.value.status is None
    with pytest.raises(ValueError):
        cvisor.GraphQLClient("ftp://x/graphql", "t")


def test_client_reuses_its_connection(server_a):
    c = server_a.client("alice")
    c.execute("{ capabilities { version } }")
    conn = c._local.conn
    sock = conn.sock
    for _ in range(5):
        c.execute("{ capabilities { version } }")
    assert c._local.conn is conn
    assert conn.sock is sock


# ---- files and sessions of the remote API ----

def test_delete_file(server_a):
    with server_a.sandbox("alice") as sb:
        sb.write_file("/workspace/f", "x")
        sb.delete_file("/workspace/f")
        with pytest.raises(FileNotFoundError):
            sb.read_file("/workspace/f")
        with pytest.raises(FileNotFoundError) as e:
            sb.delete_file("/workspace/f")
        assert e.value.filename == "/workspace/f"
        sb.run("mkdir /workspace/d")
        with pytest.raises(IsADirectoryError):
            sb.delete_file("/workspace/d")


class RecordingClient(cvisor.GraphQLClient):
    """A GraphQLClient keeping what it sends: (query, variables) of each request."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.sent = []

    def execute(self, query, variables=None, operation_name=None):
        self.sent.append((query, dict(variables or {})))
        return super().execute(query, variables, operation_name)


def test_copy_into_sends_nothing_the_ignore_rules_leave_out(server_a, tmp_path):
    secret = "SECRET-" + uuid.uuid4().hex
    d = tmp_path / "proj"
    for path, text in {".env": "API_KEY=" + secret, ".env.example": "API_KEY=\n",
                       ".gitignore": ".env\nnode_modules/\n*.log\n!keep.log\nsub/.gitignore\n",
                       ".dockerignore": "docs\n!docs/README.md\n", "node_modules/pkg/i.js": secret, "a.log": secret,
                       "keep.log": "kept", "src/main.c": "int main;", "sub/.gitignore": "!x.log\n", "sub/x.log": "x",
                       "docs/api.html": secret, "docs/README.md": "readme"}.items():
        (d / path).parent.mkdir(parents=True, exist_ok=True)
        (d / path).write_text(text)
    client = RecordingClient(server_a.url, server_a.tokens["alice"])
    with cvisor.RemoteSandbox(server_a.url, server_a.tokens["alice"], client=client) as sb, \
            cvisor.Sandbox() as local:
        sb.copy_into(str(d), "/workspace/proj")
        uploads = [v for q, v in client.sent if "upload(" in q]
        assert len(uploads) == 1 and uploads[0]["k"] == "DIRECTORY"
        raw = base64.b64decode(uploads[0]["d"])
        assert secret.encode() not in raw
        # what the rules keep, and the ignore file the server needs to apply them again the same way
        assert tarfile.open(fileobj=io.BytesIO(raw)).getnames() == [
            ".dockerignore", ".env.example", ".gitignore", "docs", "docs/README.md", "keep.log", "src", "src/main.c",
            "sub", "sub/.gitignore", "sub/x.log"]
        find = "cd /workspace/proj && find . -mindepth 1 | sort"
        got = sb.run(find).stdout.split()
        assert got == ["./.dockerignore", "./.env.example", "./.gitignore", "./docs", "./docs/README.md", "./keep.log",
                       "./src", "./src/main.c", "./sub", "./sub/x.log"]
        local.copy_into(str(d), "/workspace/proj")
        assert local.run(find).stdout.split() == got  # as a local Sandbox
        # an unreadable tree fails on the client, naming it, and sends nothing
        (d / ".dockerignore").write_text("ok\nbad[\n")
        before = len(client.sent)
        with pytest.raises(OSError) as e:
            sb.copy_into(str(d), "/workspace/other")
        assert e.value.errno == errno.EINVAL
        assert e.value.filename == str(d)
        assert e.value.strerror == "copy_into `%s`: `.dockerignore`, line 2: bad pattern `bad[`" % d
        assert len(client.sent) == before


def test_session_output_streams_without_polling(server_a):
    # the first bytes come while the command still runs: it waits for a file the test writes after
    with server_a.sandbox("alice") as sb:
        s = sb._session("echo first; while [ ! -e /workspace/go ]; do sleep 0.02; done; echo second", False)
        try:
            got = b""
            deadline = time.monotonic() + 30
            while b"first" not in got and time.monotonic() < deadline:
                got += s.read_stdout()
                time.sleep(0.01)
            assert got == b"first\n"
            assert s.exit_code() is None
            sb.write_file("/workspace/go", "")
            assert s.wait() == 0
            assert s.read_stdout() == b"second\n"
        finally:
            s.close()


def test_idle_sandboxes_expire(server_b):
    sb = server_b.sandbox("bob")
    sb.run("true")
    c = server_b.client("bob")
    wait_for(lambda: c.execute("{ sandboxes { id } }")["sandboxes"] == [], 30, "expiry")
    with pytest.raises(ValueError) as e:
        sb.run("true")
    assert "not found" in str(e.value)
    sb.close()  # harmless
    recs = [r for r in server_b.log_records() if r.get("operation") == "expire"]
    assert recs and recs[0]["sandbox"] == sb.id


# ---- concurrency ----

def test_50_concurrent_clients_nothing_mixed(server_a):
    sandboxes = [server_a.sandbox("many") for _ in range(5)]
    try:
        results, errors = {}, []

        def client(i):
            try:
                c = cvisor.GraphQLClient(server_a.url, server_a.tokens["many"])
                sb = cvisor.RemoteSandbox(server_a.url, server_a.tokens["many"], client=c)
                sb.close()  # a sandbox of its own, made and removed, then the shared ones
                shared = sandboxes[i % 5]
                data = ("client %d %s\n" % (i, uuid.uuid4())).encode() * (i + 1)
                shared.write_file("/workspace/c%d" % i, data)
                out = shared.run("cat /workspace/c%d; echo end-%d >&2" % (i, i))
                back = shared.read_file("/workspace/c%d" % i)
                results[i] = (data, out.stdout_bytes, out.stderr, back)
            except Exception as e:  # reported below
                errors.append((i, repr(e)))

        ts = [threading.Thread(target=client, args=(i,)) for i in range(50)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(300)
        assert errors == []
        assert len(results) == 50
        for i, (data, out, err, back) in results.items():
            assert out == data, i
            assert back == data, i
            assert err == "end-%d\n" % i
    finally:
        for sb in sandboxes:
            sb.close()


# ---- a client that goes away ----

def test_client_disconnect_mid_run_kills_the_run(server_a):
    tag = uuid.uuid4().hex
    with server_a.sandbox("alice") as sb:
        sb.set_env(TAG, tag)
        body = json.dumps({"query": "mutation($s: String!) { run(sandbox: $s, command: \"touch /workspace/started; "
                                    "sleep 120; touch /workspace/finished\") { exitCode } }",
                           "variables": {"s": sb.id}}).encode()
        c = http.client.HTTPConnection("127.0.0.1", server_a.port, timeout=60)
        c.request("POST", "/graphql", body, {"Content-Type": "application/json",
                                             "Authorization": "Bearer " + server_a.tokens["alice"]})

        def started():
            try:
                sb.read_file("/workspace/started")
                return True
            except FileNotFoundError:
                return False

        wait_for(started, 60, "the run's start")
        assert tagged_processes(tag)
        info = server_a.client("alice")
        assert info.execute("query($s: String!) { sandbox(id: $s) { runs } }", {"s": sb.id})["sandbox"]["runs"] == 1
        c.sock.close()  # the client goes away
        wait_for(lambda: not tagged_processes(tag), 30, "the run's end")
        wait_for(lambda: info.execute("query($s: String!) { sandbox(id: $s) { runs } }",
                                      {"s": sb.id})["sandbox"]["runs"] == 0, 30, "the server's count")
        with pytest.raises(FileNotFoundError):
            sb.read_file("/workspace/finished")
        rec = [r for r in server_a.log_records() if r.get("killed_runs")]
        assert rec and rec[-1]["token_id"] == "alice"


def test_websocket_going_away_kills_its_session(server_a):
    tag = uuid.uuid4().hex
    with server_a.sandbox("alice") as sb:
        sb.set_env(TAG, tag)
        s = sb._session("echo up; sleep 120", False)
        wait_for(lambda: s.read_stdout() == b"up\n", 30, "the session's output")
        assert tagged_processes(tag)
        s._sub.close()  # the stream's connection drops (the client died)
        wait_for(lambda: not tagged_processes(tag), 30, "the session's end")


# ---- shutdown and crash recovery ----

def _busy(srv):
    """Sandboxes of SRV with a run in flight and a session: (sandboxes, pids, tags)."""
    sbs = [srv.sandbox("alice") for _ in range(2)]
    tag = uuid.uuid4().hex
    for sb in sbs:
        sb.set_env(TAG, tag)
        sb.run("echo x > /workspace/x")
    outcome = []

    def in_flight():
        try:
            outcome.append(sbs[0].run("sleep 300").exit_code)
        except Exception as e:  # the server died under it
            outcome.append(e)

    th = threading.Thread(target=in_flight, daemon=True)
    th.outcome = outcome
    th.start()
    sess = sbs[1]._session("sleep 300", False)
    wait_for(lambda: len(tagged_processes(tag)) >= 2, 30, "the run and the session")
    return sbs, sess, tag, th


def _assert_nothing_left(srv, pids, tag):
    wait_for(lambda: not tagged_processes(tag), 30, "the runs' end")
    wait_for(lambda: not srv.leftovers(pids), 30, "the cleanup: %s" % srv.leftovers(pids))
    assert srv.processes() == []


def test_sigterm_removes_every_sandbox(fresh_server):
    srv = fresh_server().start()
    sbs, sess, tag, th = _busy(srv)
    pids = srv.processes()
    assert pids
    assert srv.stop(signal.SIGTERM) == 0
    _assert_nothing_left(srv, pids, tag)
    stop = [r for r in srv.log_records() if r.get("operation") == "stop"]
    assert stop and stop[0]["sandboxes_removed"] == 2
    th.join(30)
    assert th.outcome and (th.outcome[0] == 137 or isinstance(th.outcome[0], Exception)), th.outcome
    sess._closed = True  # its server is gone
    for sb in sbs:
        sb._closed = True


def test_sigkill_then_restart_leaves_nothing(fresh_server):
    srv = fresh_server().start()
    sbs, sess, tag, th = _busy(srv)
    pids = srv.processes()
    srv.stop(signal.SIGKILL)
    srv.start()  # the next start removes what the dead one left
    _assert_nothing_left(srv, pids, tag)
    assert any(r.get("operation") == "recover" and r.get("status") == 0 for r in srv.log_records())
    # its sandboxes are gone; the new server serves
    with pytest.raises(ValueError):
        sbs[0].run("true")
    with srv.sandbox("alice") as sb:
        assert sb.run("echo again").stdout == "again\n"
    th.join(30)
    assert th.outcome and isinstance(th.outcome[0], cvisor.GraphQLError), th.outcome
    sess._closed = True
    for sb in sbs:
        sb._closed = True


# ---- TLS ----

def test_tls_with_a_self_signed_certificate(fresh_server, tmp_path):
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                        "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
                       capture_output=True, text=True)
    if p.returncode != 0 and "No such file" in p.stderr:
        pytest.skip("no openssl")
    assert p.returncode == 0, p.stderr
    srv = fresh_server(tls=(cert, key)).start()
    assert srv.url.startswith("https://")
    with cvisor.RemoteSandbox(srv.url, srv.tokens["alice"], cafile=cert) as sb:
        assert sb.run("echo over-tls").stdout == "over-tls\n"
        got = []
        assert sb.run_streaming("echo streamed", on_stdout=got.append) == 0  # wss
        assert "".join(got) == "streamed\n"
    # a client that does not trust the certificate
    with pytest.raises(cvisor.GraphQLError) as e:
        cvisor.RemoteSandbox(srv.url, srv.tokens["alice"])
    assert "CERTIFICATE_VERIFY_FAILED" in str(e.value)
    # nor does plain HTTP reach it
    with pytest.raises(cvisor.GraphQLError):
        cvisor.GraphQLClient(srv.url.replace("https", "http"), srv.tokens["alice"], timeout=5).execute("{ capabilities { version } }")


# ---- logs and tokens ----

def test_logs_are_json_lines_without_tokens(server_a):
    with server_a.sandbox("alice") as sb:
        sb.run("true")
    text = server_a.log_text()
    for tok in server_a.tokens.values():
        assert tok not in text
    recs = server_a.log_records()
    assert len(recs) == len([l for l in text.splitlines() if l.strip()])
    runs = [r for r in recs if r.get("operation") == "mutation {run}" and r.get("token_id") == "alice"]
    assert runs
    assert {"request_id", "token_id", "operation", "duration_ms", "status", "time"} <= set(runs[-1])
    assert "Traceback" not in text


def test_tokens_file_and_commands(tmp_path):
    from cvisor.server.tokens import TokenError, hash_token, load_tokens
    f = str(tmp_path / "tokens")
    env = dict(os.environ, PYTHONPATH=PKG_DIR)

    def cli(*args, input=None):
        return subprocess.run([sys.executable, "-m", "cvisor.server"] + list(args), env=env, capture_output=True,
                              text=True, input=input, timeout=60)

    p = cli("add-token", "--tokens", f, "--id", "ci", "--sandboxes", "3", "--memory", "2G")
    assert p.returncode == 0, p.stderr
    tok = p.stdout.strip()
    assert oct(os.stat(f).st_mode & 0o777) == "0o600"
    with open(f) as fh:
        line = fh.read()
    assert tok not in line
    assert line.split() == ["ci", hash_token(tok), "sandboxes=3", "memory=2G"]
    t = load_tokens(f).lookup(tok)
    assert (t.id, t.sandboxes, t.runs, t.memory) == ("ci", 3, None, 2 << 30)
    assert load_tokens(f).lookup(tok + "x") is None
    p = cli("add-token", "--tokens", f, "--id", "ci")
    assert p.returncode == 1
    assert "exists already" in p.stderr
    p = cli("hash-token", input=tok + "\n")
    assert p.stdout.strip() == hash_token(tok)
    for bad, why in (("x sha256:zz\n", "sha256:<64"), ("x\n", "expected"), ("a b c\n", "sha256"),
                     ("x %s runs=0\n" % hash_token("a"), "positive"), ("x %s cpu=3\n" % hash_token("a"), "quotas are"),
                     ("x %s\nx %s\n" % (hash_token("a"), hash_token("b")), "used twice"), ("# none\n", "no token")):
        with open(f, "w") as fh:
            fh.write(bad)
        with pytest.raises(TokenError) as e:
            load_tokens(f)
        assert why in str(e.value)
        assert ":1" in str(e.value) or ":2" in str(e.value) or "no token" in str(e.value)
    p = cli("--tokens", f)
    assert p.returncode == 1
    assert "no token" in p.stderr
    assert "Traceback" not in p.stderr
    p = cli("--tokens", f, "--listen", "nowhere")
    assert p.returncode == 2
    assert "HOST:PORT" in p.stderr


def test_route_follows_the_node_in_the_sandbox_id(server_a, server_b):
    # created through one address, then every call goes where ROUTE sends the node
    seen = []

    def route(node):
        seen.append(node)
        return server_a.url.replace("127.0.0.1", "localhost")

    with cvisor.RemoteSandbox(server_a.url, server_a.tokens["alice"], route=route) as sb:
        assert seen == ["nodea"]
        assert sb.node == "nodea"
        assert sb._client.url.startswith("http://localhost:")
        assert sb.run("echo routed").stdout == "routed\n"
    # a template; a node the route sends to the wrong server answers "not found" there
    with cvisor.RemoteSandbox(server_a.url, server_a.tokens["alice"],
                              route=server_b.url.replace("graphql", "graphql?node={node}")) as sb:
        with pytest.raises(cvisor.GraphQLError) as e:
            sb.run("true")
        assert e.value.status == 401  # alice is nobody on server B
        sb._client = server_a.client("alice")  # so that close() reaches its server
        sb._calls = cvisor.remote._Calls(sb._client)

"""Property test of cvisor-server's request handling: malformed JSON,
GraphQL and variables (stdlib random, seeded) each get a clean error (a
status the server means, a JSON body of GraphQL errors with messages, no
traceback), and the server keeps serving."""
import http.client
import json
import random
import socket

import pytest

from conftest import needs_server

pytestmark = needs_server

SEED = 1616
CASES = 400

VALID = [
    "{ capabilities { version node quotas { sandboxes runs memory } } }",
    "query Q($id: String!) { sandbox(id: $id) { id runs } }",
    "mutation($s: String!, $c: String!) { run(sandbox: $s, command: $c, timeoutMs: 1000) { exitCode stdout } }",
    "mutation($s: String!, $p: String!, $d: String!) { writeFile(sandbox: $s, path: $p, data: $d) }",
    "{ sandboxes { id node createdAt } }",
    "query { readFile(sandbox: \"x\", path: \"/etc/passwd\") }",
    "mutation { createSandbox(settings: {network: false, limits: {memoryMax: 1e99, pidsMax: -5}}) { id } }",
    "subscription { sessionOutput(session: \"s\") { stream data } }",
    "query { ...F } fragment F on Query { capabilities { version } }",
]
TOKENS = list("{}()[]:$!@#,.=\"\\ \n\t") + ["query", "mutation", "subscription", "fragment", "on", "...", "__schema",
                                           "__typename", "\u00e9", "\x00", "1e400", "null", "true", "run", "{{{{"]


def rand_json(r, depth=0):
    k = r.randrange(9 if depth < 4 else 5)
    if k == 0:
        return None
    if k == 1:
        return r.choice([True, False])
    if k == 2:
        return r.choice([0, -1, 2 ** 70, 1.5, float("1e308")])
    if k == 3:
        return "".join(r.choice(TOKENS) for _ in range(r.randrange(12)))
    if k == 4:
        return r.choice(["", "x" * 1000, "\ud800".encode("utf-8", "surrogatepass").decode("utf-8", "replace")])
    if k in (5, 6):
        return [rand_json(r, depth + 1) for _ in range(r.randrange(4))]
    return {r.choice(["query", "variables", "operationName", "s", "id", "extensions", "x"]): rand_json(r, depth + 1)
            for _ in range(r.randrange(4))}


def mutate(r, text):
    chars = list(text)
    for _ in range(r.randrange(1, 6)):
        op = r.randrange(3)
        i = r.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, r.choice(TOKENS))
        elif chars:
            chars[min(i, len(chars) - 1)] = r.choice(TOKENS)
    return "".join(chars)


def case(r):
    """One request body (bytes)."""
    k = r.randrange(6)
    if k == 0:  # not JSON, or not UTF-8
        return bytes(r.randrange(256) for _ in range(r.randrange(64)))
    if k == 1:  # JSON, but not a request
        return json.dumps(rand_json(r)).encode()
    if k == 2:  # broken JSON text
        return mutate(r, json.dumps({"query": r.choice(VALID)})).encode("utf-8", "surrogatepass")
    if k == 3:  # a request with a broken query
        return json.dumps({"query": mutate(r, r.choice(VALID)), "variables": {"s": "x"}}).encode()
    if k == 4:  # a valid query with wrong variables
        return json.dumps({"query": r.choice(VALID), "variables": rand_json(r),
                           "operationName": r.choice([None, "Q", 5, ""])}).encode()
    # nesting that stresses parsers
    n = r.randrange(50, 3000)
    return r.choice([b"[" * n + b"]" * n, json.dumps({"query": "{" * n + "}" * n}).encode(),
                     json.dumps({"query": "query(" + "$a: [" * n + "String" + "]" * n + ") { x }"}).encode()])


def send(port, token, body):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        c.request("POST", "/graphql", body, {"Content-Type": "application/json", "Authorization": "Bearer " + token})
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def test_malformed_requests_get_clean_errors(server_a):
    r = random.Random(SEED)
    token = server_a.tokens["carol"]
    statuses = {}
    for i in range(CASES):
        body = case(r)
        status, raw = send(server_a.port, token, body)
        statuses[status] = statuses.get(status, 0) + 1
        assert status in (200, 400, 413), (i, body[:200], status, raw[:300])
        doc = json.loads(raw)
        assert isinstance(doc, dict), (i, body[:200])
        if status != 200 or doc.get("errors"):
            assert doc["errors"], (i, body[:200], doc)
            for e in doc["errors"]:
                assert isinstance(e["message"], str) and e["message"], (i, e)
                assert "Traceback" not in e["message"] and "File \"" not in e["message"], (i, e)
                assert "internal error" not in e["message"], (i, body[:200], e)
    assert statuses.get(400, 0) > CASES // 4  # most are refused before execution
    # still serving, and its log has no traceback
    status, raw = send(server_a.port, token, json.dumps({"query": VALID[0]}).encode())
    assert status == 200
    assert json.loads(raw)["data"]["capabilities"]["version"] == "1"
    assert "Traceback" not in server_a.log_text()


def test_malformed_websocket_messages(server_a):
    from cvisor._ws import WebSocket, WebSocketError
    r = random.Random(SEED + 1)
    url = server_a.url.replace("http", "ws")
    hdr = {"Authorization": "Bearer " + server_a.tokens["carol"]}
    for i in range(40):
        ws = WebSocket(url, hdr, "graphql-transport-ws", timeout=30)
        try:
            k = r.randrange(4)
            if k == 0:
                ws.send(bytes(r.randrange(256) for _ in range(20)).decode("latin-1"))
            elif k == 1:
                ws.send(json.dumps(rand_json(r)))
            elif k == 2:
                ws.send(json.dumps({"type": "subscribe", "id": str(i),
                                    "payload": {"query": mutate(r, VALID[7]), "variables": rand_json(r)}}))
            else:
                ws.send(json.dumps({"type": "subscribe", "id": str(i), "payload": rand_json(r)}))
            try:
                msg = ws.recv()
            except WebSocketError as e:
                assert e.close_code and 4000 <= e.close_code < 5000, (i, e)
                continue
            if msg is not None:
                m = json.loads(msg)
                assert m["type"] == "error", (i, m)
                assert m["payload"][0]["message"], (i, m)
                assert "Traceback" not in msg
        finally:
            ws.close()
    # subscriptions of odd shapes: a clean error each
    for q in ("subscription { ... on Subscription { sessionOutput(session: \"x\") { data } } }",
              "subscription { ...F } fragment F on Subscription { sessionOutput(session: \"x\") { data } }",
              "subscription($s: String!) { sessionOutput(session: $s) { data } }",
              "subscription { sessionOutput(session: \"x\") { data } sessionOutput(session: \"y\") { data } }"):
        ws = WebSocket(url, hdr, "graphql-transport-ws", timeout=30)
        try:
            ws.send(json.dumps({"type": "subscribe", "id": "s", "payload": {"query": q}}))
            m = json.loads(ws.recv())
            assert m["type"] == "error", (q, m)
            assert m["payload"][0]["message"], (q, m)
            assert "internal error" not in m["payload"][0]["message"], (q, m)
        finally:
            ws.close()
    status, raw = send(server_a.port, server_a.tokens["carol"], json.dumps({"query": VALID[0]}).encode())
    assert status == 200
    assert "Traceback" not in server_a.log_text()


def test_a_slow_or_silent_client_does_not_stop_others(server_a):
    # a connection that sends half a request and waits
    s = socket.create_connection(("127.0.0.1", server_a.port))
    try:
        s.sendall(b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"query\":")
        status, raw = send(server_a.port, server_a.tokens["carol"], json.dumps({"query": VALID[0]}).encode())
        assert status == 200
    finally:
        s.close()

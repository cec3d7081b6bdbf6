#!/usr/bin/python3
"""A minimal S3 object store that checks AWS Signature Version 4, for
archive.bats (s3rver, the S3 server of the other test, does not check v4
signatures). sigv4-server.py PORTFILE ACCESS_KEY SECRET REGION: listens
on 127.0.0.1 (a free port, written to PORTFILE), keeps objects in memory,
answers GET and PUT on /bucket/key; a request whose signature is not the
one computed here from the spec gets 403 SignatureDoesNotMatch, an
unknown key id 403 InvalidAccessKeyId. Checked: the signed headers must
include host, x-amz-date, x-amz-content-sha256 (and x-amz-security-token
when sent); the payload hash is the x-amz-content-sha256 header, as S3
takes it; UNSIGNED-PAYLOAD or the body's real SHA-256."""
import hashlib
import hmac
import http.server
import os
import re
import sys

PORTFILE, ACCESS, SECRET, REGION = sys.argv[1:5]
OBJECTS = {}


def hmac256(key, msg):
    return hmac.new(key, msg.encode(), hashlib.sha256).digest()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        sys.stderr.write("sigv4-server: " + fmt % args + "\n")

    def reply(self, status, body=b""):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, code):
        self.reply(status, ("<Error><Code>%s</Code></Error>" % code).encode())

    def check(self, body):
        m = re.fullmatch(
            r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, "
            r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})",
            self.headers.get("Authorization", ""))
        if not m:
            return "AuthorizationHeaderMalformed"
        key_id, day, region, signed, signature = m.groups()
        if key_id != ACCESS:
            return "InvalidAccessKeyId"
        names = signed.split(";")
        need = {"host", "x-amz-date", "x-amz-content-sha256"}
        if "x-amz-security-token" in self.headers:
            need.add("x-amz-security-token")
        if not need <= set(names) or region != REGION:
            return "AuthorizationHeaderMalformed"
        payload = self.headers["x-amz-content-sha256"]
        if payload != "UNSIGNED-PAYLOAD" and payload != hashlib.sha256(body).hexdigest():
            return "XAmzContentSHA256Mismatch"
        date = self.headers["x-amz-date"]
        canonical = "\n".join([
            self.command, self.path.split("?")[0], "",
            "".join("%s:%s\n" % (n, " ".join(self.headers[n].split())) for n in names),
            signed, payload])
        scope = "%s/%s/s3/aws4_request" % (day, region)
        to_sign = "\n".join(["AWS4-HMAC-SHA256", date, scope,
                             hashlib.sha256(canonical.encode()).hexdigest()])
        k = hmac256(("AWS4" + SECRET).encode(), day)
        for part in (region, "s3", "aws4_request"):
            k = hmac256(k, part)
        if not hmac.compare_digest(hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest(), signature):
            return "SignatureDoesNotMatch"
        return None

    def do_PUT(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        bad = self.check(body)
        if bad:
            return self.error(403, bad)
        OBJECTS[self.path] = body
        self.reply(200)

    def do_GET(self):
        bad = self.check(b"")
        if bad:
            return self.error(403, bad)
        if self.path not in OBJECTS:
            return self.error(404, "NoSuchKey")
        self.reply(200, OBJECTS[self.path])


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_port))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()

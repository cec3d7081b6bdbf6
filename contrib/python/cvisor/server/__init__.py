"""cvisor-server: the remote sandbox service (GraphQL over HTTP(S)).

It owns sandboxes of libcvisor (``cvisor.Sandbox``) on one Linux host and
serves them to ``cvisor.RemoteSandbox`` clients; see contrib/python/README.md
("The remote service") for the schema, the tokens file and the deployment.
It needs aiohttp and graphql-core 2 (Debian: python3-aiohttp,
python3-graphql-core); the rest of the package does not."""
from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
from typing import List, Optional

__all__ = ["main"]

USAGE_EXAMPLE = """\
examples:
  cvisor-server add-token --tokens /etc/cvisor/tokens --id alice --sandboxes 4
  cvisor-server --listen 127.0.0.1:8470 --tokens /etc/cvisor/tokens
  cvisor-server --listen 0.0.0.0:8470 --tokens F --tls-cert cert.pem --tls-key key.pem
"""


def _listen(value: str) -> tuple:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise argparse.ArgumentTypeError("--listen %r: HOST:PORT, e.g. 127.0.0.1:8470" % value)
    return host.strip("[]") or "0.0.0.0", int(port)


def _size(value: str) -> int:
    from ..session import SandboxPolicyError, parse_size
    try:
        return parse_size(value)
    except SandboxPolicyError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _positive(value: str) -> int:
    if not value.isdigit() or int(value) <= 0:
        raise argparse.ArgumentTypeError("%r is not a positive whole number" % value)
    return int(value)


def _seconds(value: str) -> float:
    try:
        v = float(value)
    except ValueError:
        v = -1
    if not v > 0:
        raise argparse.ArgumentTypeError("%r is not a positive number of seconds" % value)
    return v


def _backend(value: str) -> tuple:
    name, sep, url = value.partition("=")
    if not sep or not name or not url or not (url.startswith("s3://") or url.startswith("disk:")):
        raise argparse.ArgumentTypeError("--cache-backend %r: NAME=s3://bucket/prefix?... or NAME=disk:/path" % value)
    return name, url


def _serve_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cvisor-server", description="Serve libcvisor sandboxes over GraphQL "
                                "(POST /graphql; subscriptions: WebSocket on GET /graphql). Subcommands: "
                                "add-token, hash-token (`cvisor-server add-token --help`).",
                                epilog=USAGE_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--listen", type=_listen, default=("127.0.0.1", 8470), metavar="HOST:PORT",
                   help="address to listen on (default 127.0.0.1:8470)")
    p.add_argument("--tokens", required=True, metavar="FILE", help="the tokens file (hashed tokens and quotas)")
    p.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate (PEM)")
    p.add_argument("--tls-key", metavar="FILE", help="the certificate's private key (PEM)")
    p.add_argument("--state-root", metavar="DIR", help="libcvisor's state root for the sandboxes "
                   "(default: the library's, /run/cvisor for root)")
    p.add_argument("--helper", metavar="PATH", help="the cvisor binary the keepers run (default $CVISOR_HELPER, "
                   "else cvisor on PATH)")
    p.add_argument("--work-dir", metavar="DIR", help="transfer files and the disk cache (default STATE_ROOT-server, "
                   "else /run/cvisor-server)")
    p.add_argument("--node", default=None, help="this host's name in sandbox ids (default: the host name)")
    p.add_argument("--idle-timeout", type=_seconds, default=1800.0, metavar="SECONDS",
                   help="remove a sandbox nothing used for this long (default 1800)")
    p.add_argument("--max-sandboxes", type=_positive, default=16, metavar="N", help="per token (default 16)")
    p.add_argument("--max-runs", type=_positive, default=16, metavar="N",
                   help="runs and sessions in flight per token (default 16)")
    p.add_argument("--max-memory", type=_size, default=16 << 30, metavar="SIZE",
                   help="memory of a token's sandboxes in all (default 16G; 0: no quota)")
    p.add_argument("--default-memory", type=_size, default=1 << 30, metavar="SIZE",
                   help="the memory limit of a sandbox that sets none, under a memory quota (default 1G)")
    p.add_argument("--max-body", type=_size, default=64 << 20, metavar="SIZE",
                   help="largest request body or WebSocket message (default 64M)")
    p.add_argument("--max-depth", type=_positive, default=10, metavar="N", help="deepest query (default 10)")
    p.add_argument("--cache-dir", metavar="DIR", help="the \"disk\" cache backend (default WORK_DIR/cache)")
    p.add_argument("--cache-backend", type=_backend, action="append", default=[], metavar="NAME=URL",
                   help="another cache backend clients name (repeatable); each token gets its own prefix")
    p.add_argument("--threads", type=_positive, default=64, metavar="N",
                   help="threads for libcvisor's blocking calls (default 64)")
    return p


def _token_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="cvisor-server add-token", description="Make a random token, append its hash "
                                "to the tokens file (made 0600) and print the token: it is kept nowhere else.")
    p.add_argument("--tokens", required=True, metavar="FILE")
    p.add_argument("--id", required=True, help="the token's id (logs, quotas): 1-64 of A-Z a-z 0-9 _ . -")
    p.add_argument("--sandboxes", metavar="N")
    p.add_argument("--runs", metavar="N")
    p.add_argument("--memory", metavar="SIZE")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    """The `cvisor-server` command."""
    from .tokens import TokenError, add_token, hash_token, load_tokens
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["add-token"]:
        a = _token_parser().parse_args(argv[1:])
        quotas = {k: v for k, v in (("sandboxes", a.sandboxes), ("runs", a.runs), ("memory", a.memory)) if v}
        try:
            print(add_token(a.tokens, a.id, quotas))
        except (TokenError, OSError) as e:
            print("cvisor-server add-token: %s" % e, file=sys.stderr)
            return 1
        return 0
    if argv[:1] == ["hash-token"]:
        if len(argv) != 1 or sys.stdin.isatty():
            print("usage: cvisor-server hash-token < FILE_WITH_THE_TOKEN  (prints sha256:HEX for the tokens file)",
                  file=sys.stderr)
            return 2
        tok = sys.stdin.readline().strip()
        if not tok:
            print("cvisor-server hash-token: no token on stdin", file=sys.stderr)
            return 1
        print(hash_token(tok))
        return 0
    a = _serve_parser().parse_args(argv)
    if bool(a.tls_cert) != bool(a.tls_key):
        print("cvisor-server: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    try:
        tokens = load_tokens(a.tokens)
    except TokenError as e:
        print("cvisor-server: %s" % e, file=sys.stderr)
        return 1
    try:
        from .app import Config, serve
        from .state import Limits
    except ImportError as e:
        print("cvisor-server: %s (Debian: apt-get install python3-aiohttp python3-graphql-core)" % e,
              file=sys.stderr)
        return 1
    for f in (a.tls_cert, a.tls_key):
        if f and not os.access(f, os.R_OK):
            print("cvisor-server: %s: cannot read it" % f, file=sys.stderr)
            return 1
    node = a.node or socket.gethostname().split(".")[0]
    if not node or "." in node or "/" in node:
        print("cvisor-server: --node %r: a name without dots" % node, file=sys.stderr)
        return 2
    config = Config(tokens, host=a.listen[0], port=a.listen[1], tls_cert=a.tls_cert, tls_key=a.tls_key,
                    state_root=a.state_root, helper=a.helper, work_dir=a.work_dir, idle_timeout=a.idle_timeout,
                    limits=Limits(a.max_sandboxes, a.max_runs, a.max_memory, a.default_memory),
                    max_body=a.max_body, max_depth=a.max_depth, node=node, cache_dir=a.cache_dir,
                    cache_backends=dict(a.cache_backend), threads=a.threads)
    try:
        return asyncio.run(serve(config))
    except OSError as e:  # the address is taken, the certificate is unreadable...
        print("cvisor-server: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

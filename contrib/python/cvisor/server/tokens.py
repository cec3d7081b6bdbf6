"""The tokens file of cvisor-server: who may call it, and each caller's quotas.

One token a line, its fields separated by blanks::

    # id      hash                                                               quotas (optional)
    alice     sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 sandboxes=4 runs=8 memory=4G

The id names the token in logs and quotas (never the token itself). The
hash is the SHA-256 of the token's text: tokens are random (32 bytes from
``secrets``, see ``cvisor-server add-token``), so a fast hash is enough and
the file reveals nothing that lets one call the server. A quota left out is
the server's default (``--max-sandboxes``, ``--max-runs``, ``--max-memory``).
"""
from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from typing import Dict, Optional

from ..session import SandboxPolicyError, parse_size

__all__ = ["Token", "TokenError", "load_tokens", "hash_token", "new_token", "add_token"]

_ID = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_HASH = re.compile(r"^sha256:([0-9a-f]{64})$")
_QUOTAS = ("sandboxes", "runs", "memory")


class TokenError(ValueError):
    """A tokens file or a token id that cannot be used (the message names the line)."""


class Token:
    """One caller: its id, the digest of its token and its quotas (None: the server's default)."""

    def __init__(self, ident: str, digest: bytes, sandboxes: Optional[int] = None, runs: Optional[int] = None,
                 memory: Optional[int] = None) -> None:
        self.id = ident
        self.digest = digest
        self.sandboxes = sandboxes
        self.runs = runs
        self.memory = memory


def hash_token(token: str) -> str:
    """The tokens file's form of TOKEN: ``sha256:<hex>``."""
    return "sha256:" + hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token."""
    return "cvs_" + secrets.token_urlsafe(32)


def _quota(key: str, value: str, where: str) -> int:
    if key == "memory":
        try:
            n = parse_size(value, "memory")
        except SandboxPolicyError as e:
            raise TokenError("%s: %s" % (where, e)) from None
    else:
        if not value.isdigit():
            raise TokenError("%s: %s=%r is not a whole number" % (where, key, value))
        n = int(value)
    if n <= 0:
        raise TokenError("%s: %s must be positive" % (where, key))
    return n


def parse_line(line: str, where: str) -> Optional[Token]:
    """The Token of one line of a tokens file; None for a blank line or a comment."""
    fields = line.split()
    if not fields or fields[0].startswith("#"):
        return None
    if len(fields) < 2:
        raise TokenError("%s: expected `ID sha256:HEX [sandboxes=N] [runs=N] [memory=SIZE]`" % where)
    ident, h = fields[0], fields[1]
    if not _ID.match(ident):
        raise TokenError("%s: token id %r: use 1 to 64 of A-Z a-z 0-9 _ . -" % (where, ident))
    m = _HASH.match(h)
    if not m:
        raise TokenError("%s: %r is not sha256:<64 lowercase hex digits> (cvisor-server hash-token makes one)"
                         % (where, h))
    quotas: Dict[str, int] = {}
    for f in fields[2:]:
        key, sep, value = f.partition("=")
        if not sep or key not in _QUOTAS:
            raise TokenError("%s: %r: quotas are sandboxes=N, runs=N, memory=SIZE" % (where, f))
        quotas[key] = _quota(key, value, where)
    return Token(ident, bytes.fromhex(m.group(1)), **quotas)


class TokenTable:
    """The tokens of a file, looked up by the token's text."""

    def __init__(self, tokens: Dict[bytes, Token]) -> None:
        self._by_digest = tokens

    def __len__(self) -> int:
        return len(self._by_digest)

    def lookup(self, token: str) -> Optional[Token]:
        """The Token whose digest is TOKEN's, or None."""
        digest = hashlib.sha256(token.encode("utf-8", "replace")).digest()
        found = None
        for d, t in self._by_digest.items():  # compare_digest with each: no early exit on a match
            if hmac.compare_digest(d, digest):
                found = t
        return found


def load_tokens(path: str) -> TokenTable:
    """Read the tokens file PATH. Raises TokenError naming the line of a
    mistake, a repeated id or hash, or a file without tokens."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TokenError("tokens file %s: %s" % (path, e.strerror or e)) from None
    except UnicodeDecodeError:
        raise TokenError("tokens file %s: not UTF-8 text" % path) from None
    tokens: Dict[bytes, Token] = {}
    ids = set()
    for n, line in enumerate(lines, 1):
        t = parse_line(line, "%s:%d" % (path, n))
        if t is None:
            continue
        if t.id in ids:
            raise TokenError("%s:%d: token id %r is used twice" % (path, n, t.id))
        if t.digest in tokens:
            raise TokenError("%s:%d: this hash is already the token %r's" % (path, n, tokens[t.digest].id))
        ids.add(t.id)
        tokens[t.digest] = t
    if not tokens:
        raise TokenError("tokens file %s has no token (cvisor-server add-token makes one)" % path)
    return TokenTable(tokens)


def add_token(path: str, ident: str, quotas: Dict[str, str]) -> str:
    """Append a new token with id IDENT and QUOTAS to PATH (made 0600 when
    new); returns the token, which is stored nowhere else."""
    if not _ID.match(ident):
        raise TokenError("token id %r: use 1 to 64 of A-Z a-z 0-9 _ . -" % ident)
    extra = []
    for k, v in quotas.items():
        _quota(k, v, "--" + k)
        extra.append("%s=%s" % (k, v))
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f.read().splitlines(), 1):
                t = parse_line(line, "%s:%d" % (path, n))
                if t is not None and t.id == ident:
                    raise TokenError("%s:%d: token id %r exists already" % (path, n, ident))
    token = new_token()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(" ".join([ident, hash_token(token)] + extra) + "\n")
    return token

"""A minimal WebSocket client (RFC 6455), standard library only: what the
remote sandbox's subscriptions need (text messages, ping/pong, close) over
TCP or TLS. The server side is aiohttp's."""
from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
import threading
from typing import Dict, Optional, Tuple
from urllib.parse import urlsplit

__all__ = ["WebSocket", "WebSocketError"]

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _BINARY, _CLOSE, _PING, _PONG, _CONT = 1, 2, 8, 9, 10, 0


class WebSocketError(ConnectionError):
    """The handshake failed or the connection broke; ``status`` is the HTTP
    status of a refused handshake, ``close_code`` the server's close code."""

    def __init__(self, message: str, status: Optional[int] = None, close_code: Optional[int] = None,
                 body: bytes = b"") -> None:
        super().__init__(message)
        self.status = status
        self.close_code = close_code
        self.body = body


class WebSocket:
    """One client connection. recv() from one thread; send() from any."""

    def __init__(self, url: str, headers: Optional[Dict[str, str]] = None, protocol: Optional[str] = None,
                 timeout: Optional[float] = 30.0, ssl_context: Optional[ssl.SSLContext] = None,
                 max_message: int = 64 << 20) -> None:
        u = urlsplit(url)
        if u.scheme not in ("ws", "wss", "http", "https"):
            raise WebSocketError("%s: not a ws://, wss://, http:// or https:// URL" % url)
        secure = u.scheme in ("wss", "https")
        host = u.hostname or ""
        port = u.port or (443 if secure else 80)
        self.max_message = max_message
        self._send_lock = threading.Lock()
        self._buf = b""
        self.closed = False
        sock = socket.create_connection((host, port), timeout=timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if secure:
                ctx = ssl_context or ssl.create_default_context()
                sock = ctx.wrap_socket(sock, server_hostname=host)
            self._sock = sock
            self._handshake(u, host, port, secure, headers or {}, protocol)
        except BaseException:
            sock.close()
            raise
        sock.settimeout(None)

    def _handshake(self, u, host: str, port: int, secure: bool, headers: Dict[str, str],
                   protocol: Optional[str]) -> None:
        key = base64.b64encode(os.urandom(16)).decode()
        default_port = 443 if secure else 80
        lines = ["GET %s HTTP/1.1" % ((u.path or "/") + ("?" + u.query if u.query else "")),
                 "Host: %s" % (host if port == default_port else "%s:%d" % (host, port)),
                 "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: " + key,
                 "Sec-WebSocket-Version: 13"]
        if protocol:
            lines.append("Sec-WebSocket-Protocol: " + protocol)
        lines += ["%s: %s" % kv for kv in headers.items()]
        self._sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        while b"\r\n\r\n" not in self._buf:
            chunk = self._sock.recv(65536)
            if not chunk:
                raise WebSocketError("the server closed the connection during the WebSocket handshake")
            self._buf += chunk
            if len(self._buf) > 1 << 20:
                raise WebSocketError("the handshake's response is too long")
        head, self._buf = self._buf.split(b"\r\n\r\n", 1)
        status_line, *hdr_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        hdrs = {}
        for line in hdr_lines:
            k, _, v = line.partition(":")
            hdrs[k.strip().lower()] = v.strip()
        if status != 101:
            body = self._buf
            n = int(hdrs.get("content-length", "0") or 0)
            while len(body) < n:
                chunk = self._sock.recv(65536)
                if not chunk:
                    break
                body += chunk
            raise WebSocketError("WebSocket handshake refused: %s" % status_line, status=status, body=body)
        want = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
        if hdrs.get("sec-websocket-accept") != want:
            raise WebSocketError("WebSocket handshake: a wrong Sec-WebSocket-Accept")

    def _read(self, n: int) -> bytes:
        while len(self._buf) < n:
            chunk = self._sock.recv(max(65536, n - len(self._buf)))
            if not chunk:
                raise WebSocketError("the connection was closed")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def _frame(self) -> Tuple[bool, int, bytes]:
        b0, b1 = self._read(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read(8))[0]
        if n > self.max_message:
            raise WebSocketError("a frame of %d bytes is larger than the limit" % n)
        mask = self._read(4) if b1 & 0x80 else None
        data = self._read(n)
        if mask:
            data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
        return bool(b0 & 0x80), b0 & 0x0F, data

    def send(self, text: str, opcode: int = _TEXT) -> None:
        """Send one message (a text message unless OPCODE says otherwise)."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        n = len(data)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        # XOR through an int: fast enough for the small messages sent here
        masked = (int.from_bytes(data, "big") ^ int.from_bytes((mask * (n // 4 + 1))[:n], "big")).to_bytes(n, "big") \
            if n else b""
        with self._send_lock:
            self._sock.sendall(head + mask + masked)

    def recv(self) -> Optional[str]:
        """The next text message; None once the server closed the connection."""
        parts = []
        while True:
            fin, op, data = self._frame()
            if op == _PING:
                self.send(data, _PONG)
                continue
            if op == _PONG:
                continue
            if op == _CLOSE:
                code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else None
                try:
                    self.send(data[:2], _CLOSE)
                except OSError:
                    pass
                self.close()
                if code not in (None, 1000, 1001):
                    raise WebSocketError("the server closed the WebSocket: %d %s" % (
                        code, data[2:].decode("utf-8", "replace")), close_code=code)
                return None
            parts.append(data)
            if sum(len(p) for p in parts) > self.max_message:
                raise WebSocketError("a message larger than the limit")
            if fin:
                return b"".join(parts).decode("utf-8", "replace")

    def close(self) -> None:
        """Close the connection (without waiting for the server)."""
        if not self.closed:
            self.closed = True
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()

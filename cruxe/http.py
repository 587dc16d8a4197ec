"""MCP over HTTP: one POST carries one JSON-RPC message (or batch), the reply is JSON.

This is the Streamable-HTTP transport without server-sent events: every request gets an
``application/json`` answer (the MCP spec lets a server choose that), notifications get
``202``. It only frames; ``cruxe.jsonrpc.Dispatcher`` does the rest, so stdio and HTTP give
the same bytes for the same message.

Guards, in the order they are checked: loopback bind by default; a browser page on another
origin is refused (``Origin`` must be loopback: DNS-rebinding and CSRF defence); an optional
bearer token; ``Content-Type: application/json`` (a cross-site "simple" request cannot send
it without a CORS preflight, which this server never grants); a body cap; socket timeouts
and a connection cap so slow or half-open clients cannot starve the others.
"""
from __future__ import annotations

import hmac
import ipaddress
import logging
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

from cruxe.jsonrpc import INVALID_REQUEST, Dispatcher, clip, encode, error_reply

logger = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9100
MCP_PATH = "/mcp"
HEALTH_PATH = "/health"
# Requests are tool calls with small arguments; 4 MiB is generous and bounds memory per request.
MAX_BODY_BYTES = 4 * 1024 * 1024
# Idle or half-open connections give their thread back after this long without a byte.
SOCKET_TIMEOUT_S = 10.0
# A client dripping its body one byte at a time stays under the socket timeout forever;
# the whole body must arrive within this.
BODY_DEADLINE_S = 30.0
# Each connection holds a thread; past this many, new ones get 503 at once.
MAX_CONNECTIONS = 64
_BODY_CHUNK = 64 * 1024


def is_loopback_host(host: str) -> bool:
    """``localhost`` or a loopback IP (127.0.0.0/8, ::1), brackets allowed."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback_origin(origin: str) -> bool:
    """True for ``http(s)://`` + a loopback host + any port; ``null`` and the rest are not."""
    try:
        parts = urlsplit(origin.strip())
        parts.port  # raises ValueError on a malformed port
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or parts.username or parts.password:
        return False
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return False
    return bool(parts.hostname) and is_loopback_host(parts.hostname)


class _Rejected(Exception):
    """An HTTP-level refusal; the body is a JSON-RPC error with no id (no new error codes)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: SDK clients reuse the connection
    # Headers and body leave in two writes; with Nagle on, the second waits for the client's
    # delayed ACK (~40 ms per keep-alive request).
    disable_nagle_algorithm = True
    server: "McpHttpServer"

    def version_string(self) -> str:
        return "cruxe"  # no Python version in the Server header

    def setup(self) -> None:
        self.timeout = self.server.socket_timeout  # applied to the socket by StreamRequestHandler
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        # The stdlib writes access logs straight to stderr; route them through logging.
        logger.debug("%s %s", self.address_string(), format % args)

    # -- routing

    def _any_method(self) -> None:
        self._route(self.command)

    # OPTIONS too: no CORS here, so a browser's preflight is refused.
    do_GET = do_POST = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _any_method

    def _route(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        endpoints: dict[str, tuple[str, Callable[[], None]]] = {
            MCP_PATH: ("POST", self._mcp),
            HEALTH_PATH: ("GET", self._health),
        }
        try:
            if path not in endpoints:
                raise _Rejected(404, f"Not found: {clip(path)}; the MCP endpoint is {MCP_PATH}")
            allowed, handler = endpoints[path]
            if method != allowed:
                raise _Rejected(405, f"Method {method} not allowed on {path}; use {allowed}", {"Allow": allowed})
            self._check_origin()
            handler()
        except _Rejected as exc:
            # The body may be unread: this connection cannot carry another request.
            self.close_connection = True
            body = encode(error_reply(None, INVALID_REQUEST, exc.message))
            self._send(exc.status, body, exc.headers, head_only=method == "HEAD")

    # -- endpoints

    def _health(self) -> None:
        body = encode({"status": "ok", "server": self.server.dispatcher.server_info})
        self._send(200, body)

    def _mcp(self) -> None:
        self._check_token()
        self._check_content_type()
        body = self._read_body(self._content_length())
        reply = self.server.dispatcher.handle_bytes(body)
        if reply is None:
            self._send(202, b"", content_type=None)
        else:
            self._send(200, reply)

    # -- guards

    def _check_origin(self) -> None:
        origin = self.headers.get("Origin")
        if origin is not None and not is_loopback_origin(origin):
            raise _Rejected(403, "Forbidden: requests from a non-loopback Origin are refused")

    def _check_token(self) -> None:
        expected = self.server.token
        if expected is None:
            return
        scheme, _, given = (self.headers.get("Authorization") or "").partition(" ")
        ok = scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected.encode())
        if not ok:
            raise _Rejected(401, "Unauthorized: send 'Authorization: Bearer <token>'",
                            {"WWW-Authenticate": 'Bearer realm="cruxe"'})

    def _check_content_type(self) -> None:
        media = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
        if media != "application/json":
            raise _Rejected(415, "Unsupported Media Type: send Content-Type: application/json")

    def _content_length(self) -> int:
        if self.headers.get("Transfer-Encoding") is not None:
            raise _Rejected(411, "Length Required: chunked bodies are not accepted; send Content-Length")
        values = self.headers.get_all("Content-Length") or []
        if not values:
            raise _Rejected(411, "Length Required: send Content-Length")
        if len(values) > 1 or not (values[0].isascii() and values[0].strip().isdigit()):
            raise _Rejected(400, "Bad Request: invalid Content-Length")
        length = int(values[0])
        if length > self.server.max_body:
            raise _Rejected(413, f"Payload Too Large: the limit is {self.server.max_body} bytes")
        return length

    def _read_body(self, length: int) -> bytes:
        deadline = time.monotonic() + self.server.body_deadline
        chunks: list[bytes] = []
        remaining = length
        while remaining:
            if time.monotonic() > deadline:
                raise _Rejected(408, "Request Timeout: the body arrived too slowly")
            chunk = self.rfile.read1(min(remaining, _BODY_CHUNK))
            if not chunk:
                raise _Rejected(400, "Bad Request: the body ended before Content-Length bytes")
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    # -- output

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None, *,
              content_type: str | None = "application/json", head_only: bool = False) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body and not head_only:
            self.wfile.write(body)


class McpHttpServer(ThreadingHTTPServer):
    """A threaded HTTP server for one Dispatcher. ``port=0`` picks a free port (see ``.port``).

    Use ``start()`` to serve from a background thread and ``close()`` to stop, or
    ``serve_forever()`` in the calling thread. Also a context manager (closes on exit).
    """

    daemon_threads = True
    block_on_close = False  # an idle keep-alive connection must not hold up close()
    # The stdlib default backlog of 5 makes a burst of agent calls see refused or reset
    # connections before the accept loop catches up.
    request_queue_size = 128

    def __init__(self, dispatcher: Dispatcher, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, *,
                 token: str | None = None, max_body: int = MAX_BODY_BYTES,
                 socket_timeout: float = SOCKET_TIMEOUT_S, body_deadline: float = BODY_DEADLINE_S,
                 max_connections: int = MAX_CONNECTIONS):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.dispatcher = dispatcher
        self.token = token or None
        self.max_body = max_body
        self.socket_timeout = socket_timeout
        self.body_deadline = body_deadline
        self._slots = threading.BoundedSemaphore(max_connections)
        self._thread: threading.Thread | None = None
        super().__init__((host, port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the FQDN of the bind address, which can stall on a
        # machine without working DNS; the name is never used here.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), int(self.server_address[1])

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        host = str(self.server_address[0])
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}{MCP_PATH}"

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            logger.warning("connection limit reached; refusing %s", client_address)
            _refuse_busy(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # The stdlib prints a traceback to stderr; keep it in the log instead.
        logger.exception("error while serving %s", client_address)

    def start(self) -> threading.Thread:
        """Serve from a daemon thread; returns it."""
        self._thread = threading.Thread(target=self.serve_forever, name="cruxe-http", daemon=True)
        self._thread.start()
        return self._thread

    def close(self) -> None:
        """Stop accepting, wait for the serve loop (if started here) and close the socket."""
        if self._thread is not None:
            self.shutdown()
            self._thread.join()
            self._thread = None
        self.server_close()

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _refuse_busy(request: socket.socket) -> None:
    body = encode(error_reply(None, INVALID_REQUEST, "Service Unavailable: too many connections"))
    head = (f"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n").encode()
    try:
        request.settimeout(1.0)
        request.sendall(head + body)
    except OSError:
        pass


def serve_http(dispatcher: Dispatcher, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
               token: str | None = None, max_body: int = MAX_BODY_BYTES, *,
               ready: Callable[[McpHttpServer], None] | None = None, **options: Any) -> None:
    """Serve MCP over HTTP in this thread until interrupted or ``server.shutdown()``.

    ``ready`` receives the bound server (e.g. to learn the port when ``port=0``, or to keep
    a handle for shutting it down from another thread).
    """
    if not is_loopback_host(host) and not token:
        logger.warning("serving on %s without a token: anyone who can reach it can query the index", host)
    server = McpHttpServer(dispatcher, host, port, token=token, max_body=max_body, **options)
    logger.info("MCP over HTTP at %s", server.url)
    try:
        if ready is not None:
            ready(server)
        server.serve_forever()
    except KeyboardInterrupt:
        logger.info("interrupted; HTTP server stopping")
    finally:
        server.server_close()

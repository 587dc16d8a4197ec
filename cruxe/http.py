"""MCP over HTTP: one POST carries one JSON-RPC message (or batch), the reply is JSON.

This is the Streamable-HTTP transport without server-sent events: every request gets an
``application/json`` answer (the MCP spec lets a server choose that), notifications get
``202``. It only frames; ``cruxe.jsonrpc.Dispatcher`` does the rest, so stdio and HTTP give
the same bytes for the same message.

Guards, in the order they are checked: loopback bind by default; a browser page on another
origin is refused (``Origin`` must be loopback: DNS-rebinding and CSRF defence); an optional
bearer token; ``Content-Type: application/json`` (a cross-site "simple" request cannot send
it without a CORS preflight, which this server never grants); a body cap; a header with a
single meaning (Host, Origin, Authorization, Content-Length) sent twice is refused, since
two parsers could each pick a different one.

Slow, idle and vanishing clients: every read has a socket timeout; the request line and
headers must arrive within a deadline, the body within another, so dripping one byte at a
time cannot hold a connection; an idle keep-alive connection is closed after a short wait.
Each connection holds a thread and a slot; when the slots run out, the connections that are
only waiting for a client (idle keep-alive, or a request head that has been arriving for
longer than a real client needs) are closed to make room before anyone gets 503. A client
that disconnects early is a DEBUG event, never a traceback; refusals at the connection cap
are logged at most once per interval with a count, so a flood cannot fill (or, through a
pipe nobody reads, block on) the log.
"""
from __future__ import annotations

import errno
import hmac
import io
import ipaddress
import logging
import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import urlsplit

from cruxe.errors import CruxeError
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
# A client dripping bytes stays under the socket timeout forever; the request line and
# headers must arrive within this (counted from the accept, or from the previous answer on
# a keep-alive connection) ...
HEADER_DEADLINE_S = 10.0
# ... and the whole body within this.
BODY_DEADLINE_S = 30.0
# A keep-alive connection waits this long for the first byte of its next request.
KEEPALIVE_IDLE_S = 5.0
# A local client writes its request head at once; when slots run out, a head still arriving
# after this long is a client not worth a slot others are waiting for.
HEAD_GRACE_S = 1.0
# After closing waiting connections to free a slot, how long a new connection may wait for one;
# with none closed, how long it looks again before its 503.
SLOT_WAIT_S = 1.0
_RECHECK_S = 0.1
# Each connection holds a thread; past this many, new ones get 503.
MAX_CONNECTIONS = 64
# The connection-limit warning is logged at most once per this interval.
BUSY_WARNING_INTERVAL_S = 10.0
# Headers with one meaning: a second copy is refused rather than resolved.
_SINGLE_HEADERS = ("Host", "Authorization", "Content-Length")
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


class _SocketReader(io.RawIOBase):
    """The connection as a raw stream whose every ``recv`` obeys the handler's deadline."""

    def __init__(self, handler: "_Handler"):
        super().__init__()
        self._handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        handler = self._handler
        handler.connection.settimeout(handler.recv_timeout())
        count = handler.connection.recv_into(buffer)
        if count == 0 and handler.reaped:
            raise ConnectionAbortedError("closed to free a connection slot")
        if count:
            handler.first_byte = True
        return count


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: SDK clients reuse the connection
    # Headers and body leave in two writes; with Nagle on, the second waits for the client's
    # delayed ACK, a timer's pause on every keep-alive request.
    disable_nagle_algorithm = True
    server: "McpHttpServer"
    # Where this connection is: "head" (waiting for, or reading, a request line and headers),
    # "body", or "busy" (answering). Changed under the server's connection lock, which the
    # slot reaper reads it under.
    phase = "head"
    since = 0.0
    deadline: float | None = None
    first_byte = False  # a byte of the current request has arrived
    served = 0  # requests answered on this connection
    reaped = False  # closed by the server to free a slot

    def version_string(self) -> str:
        return "cruxe"  # no Python version in the Server header

    def setup(self) -> None:
        self.timeout = self.server.socket_timeout  # applied to the socket by StreamRequestHandler
        super().setup()
        self.rfile.close()  # the stdlib's reader; closing it leaves the socket open
        self.rfile = io.BufferedReader(_SocketReader(self))
        self.server.track(self)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.untrack(self)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        # The stdlib writes access logs straight to stderr; route them through logging.
        logger.debug("%s %s", self.address_string(), format % args)

    # -- deadlines

    def enter(self, phase: str, limit: float | None) -> None:
        """Start a phase; its reads must be done within ``limit`` seconds (None: no deadline)."""
        with self.server.conn_lock:
            self.phase, self.since = phase, time.monotonic()
            self.deadline = None if limit is None else self.since + limit
            if phase == "head":
                self.first_byte = False

    def recv_timeout(self) -> float:
        """The socket timeout for the next read; TimeoutError when the phase's deadline passed."""
        timeout = self.server.socket_timeout
        if self.phase == "head" and self.served and not self.first_byte:
            timeout = min(timeout, self.server.keepalive_timeout)
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the request {self.phase} arrived too slowly")
            timeout = min(timeout, left)
        return timeout

    def handle_one_request(self) -> None:
        self.enter("head", self.server.header_deadline)
        super().handle_one_request()
        self.served += 1

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if self.request_version == "HTTP/0.9":  # its answer would be a bare body: no status line
            self.send_error(400, "HTTP/0.9 requests are not served")
            return False
        refusal = self._duplicate_header()
        if refusal is not None:
            self.send_error(*refusal)
            return False
        return True

    def _duplicate_header(self) -> tuple[int, str] | None:
        if len(self.headers.get_all("Origin") or []) > 1:
            return 403, "more than one Origin header"
        for name in _SINGLE_HEADERS:
            if len(self.headers.get_all(name) or []) > 1:
                return 400, f"more than one {name} header"
        return None

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # The stdlib's error page is HTML; this server answers JSON, whatever went wrong.
        if self.request_version == "HTTP/0.9":  # a line it could not parse: still a status line
            self.request_version = self.protocol_version
        phrase = self.responses.get(code, ("Error",))[0]
        self._refuse(code, f"{phrase}: {clip(message)}" if message else phrase)

    # -- routing

    def _any_method(self) -> None:
        self.enter("busy", None)
        if self.reaped:  # closed by the reaper just as its head completed: no one to answer
            self.close_connection = True
            return
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
            self._refuse(exc.status, exc.message, exc.headers)

    def _refuse(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        # The body may be unread: this connection cannot carry another request.
        self.close_connection = True
        body = encode(error_reply(None, INVALID_REQUEST, message))
        self._send(status, body, headers, head_only=self.command == "HEAD")

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
        if not (values[0].isascii() and values[0].strip().isdigit()):  # (two copies: refused earlier)
            raise _Rejected(400, "Bad Request: invalid Content-Length")
        length = int(values[0])
        if length > self.server.max_body:
            raise _Rejected(413, f"Payload Too Large: the limit is {self.server.max_body} bytes")
        return length

    def _read_body(self, length: int) -> bytes:
        self.enter("body", self.server.body_deadline)
        chunks: list[bytes] = []
        remaining = length
        try:
            while remaining:
                chunk = self.rfile.read1(min(remaining, _BODY_CHUNK))
                if not chunk:
                    raise _Rejected(400, "Bad Request: the body ended before Content-Length bytes")
                chunks.append(chunk)
                remaining -= len(chunk)
        except TimeoutError:
            raise _Rejected(408, "Request Timeout: the body arrived too slowly") from None
        finally:
            self.enter("busy", None)
        return b"".join(chunks)

    # -- output

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None, *,
              content_type: str | None = "application/json", head_only: bool = False) -> None:
        self.connection.settimeout(self.server.socket_timeout)  # not a read deadline's remainder
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
                 header_deadline: float = HEADER_DEADLINE_S, keepalive_timeout: float = KEEPALIVE_IDLE_S,
                 head_grace: float = HEAD_GRACE_S, max_connections: int = MAX_CONNECTIONS,
                 busy_warning_interval: float = BUSY_WARNING_INTERVAL_S):
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.dispatcher = dispatcher
        self.token = token or None
        self.max_body = max_body
        self.socket_timeout = socket_timeout
        self.body_deadline = body_deadline
        self.header_deadline = header_deadline
        self.keepalive_timeout = keepalive_timeout
        self.head_grace = head_grace
        self.max_connections = max_connections
        self.busy_warning_interval = busy_warning_interval
        self.conn_lock = threading.Lock()  # guards the fields below and every handler's phase
        self._slot_free = threading.Condition(self.conn_lock)
        self._in_use = 0
        self._conns: set[_Handler] = set()
        self._next_busy_warning = 0.0
        self._busy_suppressed = 0
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

    # -- connection slots

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._take_slot(0):
            if not self._make_room():
                self._warn_busy(client_address)
                _refuse_busy(request)
                self.shutdown_request(request)
                return
        elif self.max_connections - self._in_use < max(1, self.max_connections // 8):
            self._reap_waiting(keepalive_only=True)  # running low: idle keep-alives go first
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._give_slot()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._give_slot()

    def _make_room(self) -> bool:
        """Every slot is taken: close the connections that only wait for their client and take
        the first slot their threads give back. A connection that just sent an answer becomes
        idle a moment later, so look again for a short while even when none waits yet."""
        started = time.monotonic()
        while True:
            returning = self._reap_waiting()
            if self._take_slot(0.02):
                return True
            waited = time.monotonic() - started
            if waited >= SLOT_WAIT_S or (not returning and waited >= _RECHECK_S):
                return False

    def _take_slot(self, wait: float) -> bool:
        with self._slot_free:
            if wait:
                self._slot_free.wait_for(lambda: self._in_use < self.max_connections, wait)
            if self._in_use >= self.max_connections:
                return False
            self._in_use += 1
            return True

    def _give_slot(self) -> None:
        with self._slot_free:
            self._in_use -= 1
            self._slot_free.notify()

    def track(self, handler: _Handler) -> None:
        with self.conn_lock:
            self._conns.add(handler)

    def untrack(self, handler: _Handler) -> None:
        with self.conn_lock:
            self._conns.discard(handler)

    def _reap_waiting(self, keepalive_only: bool = False) -> int:
        """Close connections that hold a slot only to wait for their client: idle keep-alive
        ones and (unless ``keepalive_only``) request heads arriving for over ``head_grace``.
        Returns how many slots are on their way back (closed now or earlier, threads ending)."""
        now = time.monotonic()
        with self.conn_lock:
            victims = [h for h in self._conns if h.phase == "head" and not h.reaped and (
                (h.served and not h.first_byte) or (not keepalive_only and now - h.since >= self.head_grace))]
            for handler in victims:
                handler.reaped = True
            returning = sum(1 for h in self._conns if h.reaped)
        for handler in victims:
            try:
                handler.connection.shutdown(socket.SHUT_RDWR)  # wakes its thread's recv
            except OSError:
                pass
        if victims:
            logger.debug("closed %d waiting connection(s) to free slots", len(victims))
        return returning

    def _warn_busy(self, client_address: Any) -> None:
        now = time.monotonic()
        with self.conn_lock:
            if now < self._next_busy_warning:
                self._busy_suppressed += 1
                return
            suppressed, self._busy_suppressed = self._busy_suppressed, 0
            self._next_busy_warning = now + self.busy_warning_interval
        more = f" ({suppressed} more refused since the last warning)" if suppressed else ""
        logger.warning("connection limit (%d) reached; refusing %s%s", self.max_connections,
                       client_address[0] if isinstance(client_address, tuple) else client_address, more)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away (reset, broken pipe, timed out) is routine, not a bug: no
        # traceback, and nothing above DEBUG (a flood of them must not fill or block the log).
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            logger.debug("connection from %s ended: %s: %s", client_address, type(exc).__name__, exc)
            return
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
    try:
        server = McpHttpServer(dispatcher, host, port, token=token, max_body=max_body, **options)
    except (OSError, OverflowError) as exc:
        raise bind_error(host, port, exc) from None
    logger.info("MCP over HTTP at %s", server.url)
    try:
        if ready is not None:
            ready(server)
        server.serve_forever()
    except KeyboardInterrupt:
        logger.info("interrupted; HTTP server stopping")
    finally:
        server.server_close()


def bind_error(host: str, port: int, exc: BaseException) -> CruxeError:
    """Why the server could not listen on host:port, with what to do about it."""
    where = f"cannot listen on {host}:{port}"
    code = getattr(exc, "errno", None)
    if isinstance(exc, socket.gaierror) or code == errno.EADDRNOTAVAIL:
        message, remedy = (f"{where}: {host} is not an address of this machine",
                           "Pass --bind an address of this machine (the default, 127.0.0.1, is loopback only).")
    elif code == errno.EADDRINUSE:
        message, remedy = (f"{where}: the port is already in use",
                           "Stop the program using that port, or pick another with --port (0 picks a free one).")
    elif code == errno.EACCES:
        message, remedy = (f"{where}: permission denied (ports below 1024 need privileges)",
                           "Pick a port from 1024 to 65535 with --port.")
    elif isinstance(exc, OverflowError):
        message, remedy = f"{where}: the port must be 0-65535", "Pass --port a number from 0 to 65535."
    else:
        message, remedy = f"{where}: {getattr(exc, 'strerror', None) or exc}", "Check --bind and --port."
    return CruxeError("invalid_input", message, {"remedy": remedy, "bind": host, "port": port})

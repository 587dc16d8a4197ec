"""JSON-RPC 2.0 and the MCP lifecycle as a transport-free dispatcher, plus the stdio loop.

Three layers kept apart: framing (``serve_stdio`` here, ``cruxe.http``) turns bytes into
decoded JSON values; ``Dispatcher.handle`` turns one value into one reply value; the tools
behind ``ToolHost`` hold all domain logic. Both transports therefore give the same reply,
byte for byte, to the same message.

Protocol errors (the JSON-RPC codes below) are only for malformed traffic and unknown
methods or tools; a tool that fails answers a normal result with ``isError: true``.
"""
from __future__ import annotations

import io
import json
import logging
import math
import os
import sys
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any, BinaryIO, Callable, Iterator, Protocol

from cruxe.errors import CruxeError
from cruxe.jsonenc import to_json, to_json_bytes

logger = logging.getLogger(__name__)

SERVER_NAME = "cruxe"
# Oldest first; the newest is what a client asking for anything else gets.
SUPPORTED_PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[-1]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603  # a bug outside tools/call (e.g. tools/list raised); never expected

# An agent's largest request is a few KB of tool arguments; 8 MiB is far above anything
# legitimate and still bounds what one line can make the server hold in memory.
MAX_LINE_BYTES = 8 * 1024 * 1024
# Tool calls run beside the reader so ping/initialize/tools/list are answered at once even
# while a slow tool runs; the machine has few cores and tools mostly wait on I/O.
TOOL_WORKERS = 4
# Back-pressure: past this many unanswered tool calls the reader stops taking new lines.
MAX_IN_FLIGHT = 32
# `initialize` waits this long for the host's instructions (they read the index state, and a
# repository's metadata can stall a read); past it the handshake answers without them.
INSTRUCTIONS_WAIT_S = 1.0
# Methods answered without the host's state (no file I/O): the stdio reader handles them
# inline; everything else that reaches the host runs off the reader thread, so that `ping`
# is always answered.
INLINE_METHODS = frozenset({"ping", "tools/list", "notifications/cancelled"})

Progress = Callable[[float, float | None, str | None], None]
Notify = Callable[[dict], None]


class ToolHost(Protocol):
    """What the dispatcher needs from the domain (implemented by ``cruxe.tools``).

    A host may also define ``error_payload(err: CruxeError) -> dict`` to build the payload
    (error + Protocol v1 metadata) used when a tool raised unexpectedly; without it the
    dispatcher sends the error with minimal metadata.
    """

    server_version: str

    def list_tools(self) -> list[dict]: ...

    def call_tool(self, name: str, arguments: dict, progress: Progress | None) -> tuple[dict, bool]: ...

    def instructions(self) -> str | None: ...

    def on_initialized(self) -> None: ...


class ProtocolError(Exception):
    """A JSON-RPC error to answer with (code from the table above)."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


# ---------------------------------------------------------------------------- encoding

def encode(value: Any) -> bytes:
    """Compact UTF-8 JSON in the order produced (`jsonenc.to_json_bytes`)."""
    return to_json_bytes(value)


def encode_reply(reply: dict | list) -> bytes:
    """Encode a reply or a batch of replies; one bad element never loses the others."""
    if isinstance(reply, list):
        return b"[" + b",".join(_encode_one(item) for item in reply) + b"]"
    return _encode_one(reply)


def _encode_one(reply: dict) -> bytes:
    try:
        return encode(reply)
    except (TypeError, ValueError, RecursionError):
        logger.exception("a reply could not be serialised as JSON")
        return encode(error_reply(reply.get("id"), INTERNAL_ERROR, "Internal error: reply is not JSON"))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode(data: bytes) -> Any:
    """Bytes of one message (or batch) to a JSON value; ProtocolError(-32700) if impossible."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(PARSE_ERROR, f"Parse error: invalid UTF-8 at byte {exc.start}") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ProtocolError(PARSE_ERROR, "Parse error: JSON nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError, NaN/Infinity, integers past the digit limit
        raise ProtocolError(PARSE_ERROR, f"Parse error: {exc}") from None


def result_reply(msg_id: Any, result: Any) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def error_reply(msg_id: Any, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}


def clip(text: str, limit: int = 120) -> str:
    # Client-chosen names are echoed in error messages; a megabyte-long one must not be.
    return text if len(text) <= limit else text[:limit] + "..."


def _valid_id(value: Any) -> bool:
    # MCP narrows JSON-RPC ids to strings and integers (no null, no fractions).
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def needs_worker(message: Any) -> bool:
    """True when handling ``message`` may run a tool (so a transport should not block on it)."""
    items = message if isinstance(message, list) else [message]
    return any(isinstance(item, dict) and item.get("method") == "tools/call" for item in items)


def is_inline(message: Any, known: Callable[[str], bool]) -> bool:
    """True when handling ``message`` touches no host state beyond the tool table: only
    INLINE_METHODS, methods ``known`` says are unknown (answered -32601 or ignored), responses
    and malformed items."""
    items = message if isinstance(message, list) else [message]
    for item in items:
        method = item.get("method") if isinstance(item, dict) else None
        if isinstance(method, str) and method not in INLINE_METHODS and known(method):
            return False
    return True


# ---------------------------------------------------------------------------- progress

def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class _ProgressReporter:
    """The ``progress`` callback handed to a tool when the client sent a progressToken.

    Drops values that do not increase (MCP requires strictly increasing progress) and goes
    silent once the call has returned, so no progress can follow the reply.
    """

    def __init__(self, token: str | int, notify: Notify, cancelled: threading.Event | None = None):
        self._token = token
        self._notify = notify
        self._lock = threading.Lock()
        self._last: float | None = None
        self._open = True
        # Set when the client cancelled the call or the server is stopping: a tool that waits
        # (index_repo following its job) stops waiting; no more progress is sent.
        self.cancelled = cancelled or threading.Event()

    def __call__(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        with self._lock:
            if not self._open or not _finite(progress) or self.cancelled.is_set():
                return
            if self._last is not None and progress <= self._last:
                return
            self._last = progress
            params: dict[str, Any] = {"progressToken": self._token, "progress": progress}
            if _finite(total):
                params["total"] = total
            if message is not None:
                params["message"] = str(message)
            try:
                self._notify({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
            except Exception:  # a dead client must not break the tool that reports to it
                logger.warning("could not send a progress notification", exc_info=True)

    def close(self) -> None:
        with self._lock:
            self._open = False


# ---------------------------------------------------------------------------- dispatcher

@dataclass(frozen=True, slots=True)
class _Context:
    """What one message's handling may use besides its params."""

    notify: Notify | None = None  # server-to-client notifications (progress)
    cancelled: threading.Event | None = None  # set: the client cancelled, or the server stops


class Dispatcher:
    """JSON-RPC 2.0 + MCP over a ToolHost. Thread-safe; knows no streams."""

    def __init__(self, host: ToolHost):
        self._host = host
        self._initialized = False
        self._initialized_lock = threading.Lock()
        self._instructions_call: Future | None = None
        self._instructions_late: Future | None = None  # the stalled call already warned about
        self._requests: dict[str, Callable[[dict, _Context], Any]] = {
            "initialize": self._initialize,
            "ping": lambda params, ctx: {},
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
        }
        self._notifications: dict[str, Callable[[dict], None]] = {
            "notifications/initialized": self._on_initialized,
            # The stdio loop, which knows its calls in flight, acts on it (see serve_stdio);
            # HTTP has no session to tie a request id to, so there it changes nothing.
            "notifications/cancelled": lambda params: None,
        }

    @property
    def server_info(self) -> dict:
        return {"name": SERVER_NAME, "version": str(self._host.server_version)}

    def knows(self, method: str) -> bool:
        return method in self._requests or method in self._notifications

    def handle(self, message: Any, notify: Notify | None = None,
               cancelled: threading.Event | None = None) -> dict | list | None:
        """Reply to one decoded message or batch; None when nothing is to be sent.

        ``notify`` carries server-to-client notifications (progress) for this message;
        without it, progress is not reported. ``cancelled``, once set, tells a waiting tool
        to stop waiting (the transport decides whether its reply is still sent).
        """
        ctx = _Context(notify, cancelled)
        if isinstance(message, list):
            if not message:
                return error_reply(None, INVALID_REQUEST, "Invalid Request: empty batch")
            replies = [reply for item in message if (reply := self._handle_one(item, ctx)) is not None]
            return replies or None
        return self._handle_one(message, ctx)

    def handle_bytes(self, data: bytes, notify: Notify | None = None) -> bytes | None:
        """``handle`` for raw bytes: adds -32700 for invalid UTF-8 or JSON, and encodes."""
        try:
            message = decode(data)
        except ProtocolError as exc:
            return encode_reply(error_reply(None, exc.code, exc.message))
        reply = self.handle(message, notify)
        return None if reply is None else encode_reply(reply)

    def _handle_one(self, message: Any, ctx: _Context) -> dict | None:
        if not isinstance(message, dict):
            return error_reply(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        is_request = "id" in message
        if "method" not in message and ("result" in message or "error" in message):
            # A response from the client; the server sends no requests, so nothing waits for it.
            logger.debug("ignoring a client response with id %r", message.get("id"))
            return None
        reply_id = message.get("id") if _valid_id(message.get("id")) else None
        try:
            method, params = _check_envelope(message)
        except ProtocolError as exc:
            # Not a valid request nor a valid notification: JSON-RPC answers it (id null if absent).
            return error_reply(reply_id, exc.code, exc.message)
        try:
            if is_request:
                return result_reply(reply_id, self._request(method, params, ctx))
            self._notification(method, params)
            return None
        except ProtocolError as exc:
            return error_reply(reply_id, exc.code, exc.message) if is_request else None
        except Exception:
            logger.exception("unexpected failure handling %r", message.get("method"))
            return error_reply(reply_id, INTERNAL_ERROR, "Internal error") if is_request else None

    def _request(self, method: str, params: Any, ctx: _Context) -> Any:
        handler = self._requests.get(method)
        if handler is None:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {clip(method)}")
        return handler(_check_params(method, params), ctx)

    def _notification(self, method: str, params: Any) -> None:
        handler = self._notifications.get(method)
        if handler is None:
            logger.debug("ignoring unknown notification %s", method)
            return
        handler(params if isinstance(params, dict) else {})

    # -- MCP methods

    def _initialize(self, params: dict, ctx: _Context) -> dict:
        requested = params.get("protocolVersion")
        version = requested if requested in SUPPORTED_PROTOCOL_VERSIONS else LATEST_PROTOCOL_VERSION
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": self.server_info,
        }
        instructions = self._instructions()
        if instructions:
            result["instructions"] = instructions
        return result

    def _instructions(self) -> str | None:
        # The handshake must succeed, and soon, even when the index (or the host) is broken or
        # a read of the repository stalls: the host runs in a thread of its own, at most one at
        # a time (a stalled one is waited on again, not joined by more).
        with self._initialized_lock:
            call = self._instructions_call
            if call is None or call.done():
                call = self._instructions_call = _in_daemon_thread(self._host_instructions, "cruxe-instructions")
        try:
            return call.result(timeout=INSTRUCTIONS_WAIT_S)
        except FutureTimeout:
            with self._initialized_lock:  # once per stalled call, however many clients wait on it
                first, self._instructions_late = self._instructions_late is not call, call
            if first:
                logger.warning("the tool host gave no instructions within %.1f s; initialize answers "
                               "without them", INSTRUCTIONS_WAIT_S)
            return None

    def _host_instructions(self) -> str | None:
        try:
            text = self._host.instructions()
        except Exception:
            logger.exception("the tool host failed to give instructions")
            return None
        return text if isinstance(text, str) else None

    def _on_initialized(self, params: dict) -> None:
        # Once per process: over HTTP every client sends its own `initialized`.
        with self._initialized_lock:
            if self._initialized:
                return
            self._initialized = True
        try:
            self._host.on_initialized()
        except Exception:
            logger.exception("the tool host failed in on_initialized")

    def _tools_list(self, params: dict, ctx: _Context) -> dict:
        return {"tools": list(self._host.list_tools())}

    def _tools_call(self, params: dict, ctx: _Context) -> dict:
        name = params.get("name")
        if not isinstance(name, str):
            raise ProtocolError(INVALID_PARAMS, "Invalid params: tools/call needs a string 'name'")
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ProtocolError(INVALID_PARAMS, "Invalid params: 'arguments' must be an object")
        reporter = _progress_reporter(params, ctx)
        try:
            payload, is_error = self._call_tool(name, arguments, reporter)
        finally:
            if reporter is not None:
                reporter.close()
        return self._tool_result(name, payload, is_error)

    def _call_tool(self, name: str, arguments: dict, progress: Progress | None) -> tuple[Any, Any]:
        try:
            return self._host.call_tool(name, arguments, progress)
        except KeyError:
            # The host raises KeyError for an unknown tool, but a tool's own bug can too.
            if not self._knows_tool(name):
                raise ProtocolError(INVALID_PARAMS, f"Invalid params: unknown tool {clip(name)!r}") from None
            logger.exception("tool %s raised", name)
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException:  # also a panic from an extension module: the request is still answered
            logger.exception("tool %s raised", name)
        return self._internal_error_payload(name), True

    def _knows_tool(self, name: str) -> bool:
        try:
            return any(tool.get("name") == name for tool in self._host.list_tools())
        except Exception:
            logger.exception("the tool host failed to list its tools")
            return False

    def _tool_result(self, name: str, payload: Any, is_error: Any) -> dict:
        try:
            if not isinstance(payload, dict) or not isinstance(is_error, bool):
                raise TypeError(f"tool {name} returned {type(payload).__name__}, {type(is_error).__name__}")
            text = to_json(payload)
        except (TypeError, ValueError, RecursionError):
            logger.exception("tool %s returned a payload that is not JSON", name)
            payload, is_error = self._internal_error_payload(name), True
            text = to_json(payload)
        return {"content": [{"type": "text", "text": text}], "structuredContent": payload, "isError": is_error}

    def _internal_error_payload(self, name: str) -> dict:
        err = CruxeError("internal_error", f"Tool {name} failed unexpectedly; the server log has details.",
                         {"tool": name})
        hook = getattr(self._host, "error_payload", None)
        if callable(hook):
            try:
                payload = hook(err)
                if isinstance(payload, dict):
                    return payload
            except Exception:
                logger.exception("the tool host failed to build an error payload")
        return {"error": err.to_dict(), "metadata": {"cruxe_protocol_version": "1.0"}}


def _check_envelope(message: dict) -> tuple[str, Any]:
    """The JSON-RPC 2.0 request/notification rules; returns (method, params)."""
    if "id" in message and not _valid_id(message["id"]):
        raise ProtocolError(INVALID_REQUEST, "Invalid Request: 'id' must be a string or an integer")
    if message.get("jsonrpc") != "2.0":
        raise ProtocolError(INVALID_REQUEST, "Invalid Request: 'jsonrpc' must be \"2.0\"")
    method = message.get("method")
    if not isinstance(method, str):
        raise ProtocolError(INVALID_REQUEST, "Invalid Request: 'method' must be a string")
    return method, message.get("params")


def _check_params(method: str, params: Any) -> dict:
    # Every MCP method takes named params; `null` is read as "none given".
    if params is None:
        return {}
    if not isinstance(params, dict):
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: {method} takes an object")
    return params


def _progress_reporter(params: dict, ctx: _Context) -> _ProgressReporter | None:
    meta = params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    if ctx.notify is None or not _valid_id(token):  # progress tokens have the same types as ids
        return None
    return _ProgressReporter(token, ctx.notify, ctx.cancelled)


def _in_daemon_thread(fn: Callable[[], Any], name: str) -> Future:
    """Run ``fn`` in a daemon thread (one that may stall forever without holding up exit)."""
    future: Future = Future()

    def run() -> None:
        try:
            future.set_result(fn())
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
            future.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


# ---------------------------------------------------------------------------- stdio

class _LineWriter:
    """Serialises whole lines onto the protocol stream so replies never interleave."""

    def __init__(self, stream: BinaryIO):
        self._stream = stream
        self._lock = threading.Lock()
        self.broken = False

    def write(self, data: bytes) -> None:
        with self._lock:
            if self.broken:
                return
            try:
                self._stream.write(data + b"\n")
                self._stream.flush()
            except (OSError, ValueError):  # the client closed its end
                self.broken = True
                logger.warning("the protocol stream is closed; replies are dropped")

    def send(self, reply: dict | list | None) -> None:
        if reply is not None:
            self.write(encode_reply(reply))

    def notify(self, message: dict) -> None:
        self.write(encode(message))


_OVERSIZE = object()


def _read_lines(stream: BinaryIO, cap: int) -> Iterator[Any]:
    """Lines of at most ``cap`` bytes; a longer line is skipped in chunks and yields _OVERSIZE."""
    while True:
        line = stream.readline(cap + 1)
        if not line:
            return
        if len(line) > cap and not line.endswith(b"\n"):
            while (chunk := stream.readline(cap)) and not chunk.endswith(b"\n"):
                pass
            yield _OVERSIZE
            continue
        yield line


def protect_stdout() -> BinaryIO:
    """Reserve the process's stdout for protocol lines and return a stream onto it.

    fd 1 is duplicated to a private descriptor, then fd 1 and ``sys.stdout`` are pointed at
    stderr, so a stray ``print`` (ours, a library's, or a child process's) lands in the log
    instead of corrupting the stream. Falls back to ``sys.stdout.buffer`` when stdout has no
    file descriptor (e.g. under a test harness).
    """
    try:
        out_fd, err_fd = sys.stdout.fileno(), sys.stderr.fileno()
    except (AttributeError, io.UnsupportedOperation, ValueError):
        return sys.stdout.buffer
    sys.stdout.flush()
    protocol_fd = os.dup(out_fd)
    os.dup2(err_fd, out_fd)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb")


class _Call:
    """One message handled off the reader thread; ``cancelled`` is handed to its tool."""

    __slots__ = ("key", "cancelled", "by_client")

    def __init__(self, key: tuple[bool, Any] | None):
        self.key = key  # (is a string, id) when the client can cancel it by id
        self.cancelled = threading.Event()
        self.by_client = False  # cancelled by notifications/cancelled: its reply is dropped


class _InFlight:
    """The stdio session's unanswered calls: what ``notifications/cancelled`` and the end of
    stdin act on. (MCP: a cancelled request gets no response; its tool is told to stop.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: set[_Call] = set()
        self._by_id: dict[tuple[bool, Any], _Call] = {}
        self._closing = False

    def open(self, message: Any) -> _Call:
        msg_id = message.get("id") if isinstance(message, dict) else None  # a batch: not by id
        key = (isinstance(msg_id, str), msg_id) if _valid_id(msg_id) else None
        with self._lock:
            call = _Call(key if key not in self._by_id else None)
            self._calls.add(call)
            if call.key is not None:
                self._by_id[call.key] = call
            if self._closing:
                call.cancelled.set()
        return call

    def cancel(self, message: Any) -> None:
        """Act on every ``notifications/cancelled`` in ``message``; unknown ids are ignored."""
        for item in message if isinstance(message, list) else [message]:
            if not isinstance(item, dict) or item.get("method") != "notifications/cancelled" or "id" in item:
                continue
            params = item.get("params")
            request_id = params.get("requestId") if isinstance(params, dict) else None
            with self._lock:
                call = self._by_id.get((isinstance(request_id, str), request_id)) if _valid_id(request_id) else None
                if call is not None:
                    call.by_client = True
                    call.cancelled.set()

    def close(self, call: _Call) -> bool:
        """The call ended; True when its reply is to be sent."""
        with self._lock:
            self._calls.discard(call)
            if call.key is not None and self._by_id.get(call.key) is call:
                del self._by_id[call.key]
            return not call.by_client

    def cancel_all(self) -> None:
        """stdin ended: every call, running or queued, stops waiting (replies still go out)."""
        with self._lock:
            self._closing = True
            for call in self._calls:
                call.cancelled.set()


def serve_stdio(dispatcher: Dispatcher, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None,
                *, workers: int = TOOL_WORKERS, max_line_bytes: int = MAX_LINE_BYTES) -> None:
    """Newline-delimited JSON-RPC on stdin/stdout until EOF.

    With the default streams, stdout is protected (see ``protect_stdout``). The reader thread
    only reads, decodes and answers INLINE_METHODS; tool calls run in a small pool and the rest
    (``initialize``, ``notifications/initialized``) in a thread of their own, so no read of the
    repository can keep ``ping`` from being answered. Replies may come out of order (JSON-RPC
    allows it). At EOF every unanswered call is told to stop waiting (``index_repo`` following
    its job answers at once; the job's own process goes on), the rest finish, and this returns.
    """
    writer = _LineWriter(stdout if stdout is not None else protect_stdout())
    source = stdin if stdin is not None else sys.stdin.buffer
    slots = threading.BoundedSemaphore(MAX_IN_FLIGHT)
    calls = _InFlight()

    def run(message: Any, call: _Call) -> None:
        try:
            reply = None if call.by_client else dispatcher.handle(message, writer.notify, call.cancelled)
            if calls.close(call):
                writer.send(reply)
        except Exception:  # a pool swallows exceptions silently; make them visible
            calls.close(call)
            logger.exception("unexpected failure in a worker")
        finally:
            slots.release()

    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="cruxe-tool") as pool, \
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="cruxe-control") as control:
        def submit(message: Any) -> None:
            slots.acquire()
            (pool if needs_worker(message) else control).submit(run, message, calls.open(message))

        try:
            _read_and_dispatch(dispatcher, source, writer, submit, calls, max_line_bytes)
        finally:
            calls.cancel_all()
    logger.debug("stdin closed; stdio server stopped")


def _read_and_dispatch(dispatcher: Dispatcher, source: BinaryIO, writer: _LineWriter,
                       submit: Callable[[Any], None], calls: _InFlight, max_line_bytes: int) -> None:
    """The reader thread's loop: frame, decode, answer inline methods, hand off the rest."""
    for line in _read_lines(source, max_line_bytes):
        if writer.broken:
            return
        if line is _OVERSIZE:
            writer.send(error_reply(None, INVALID_REQUEST, f"Invalid Request: line over {max_line_bytes} bytes"))
            continue
        line = line.rstrip(b"\r\n")  # framing only: the message itself is what HTTP would carry
        if not line.strip():
            continue
        try:
            message = decode(line)
        except ProtocolError as exc:
            writer.send(error_reply(None, exc.code, exc.message))
            continue
        calls.cancel(message)
        if is_inline(message, dispatcher.knows):
            writer.send(dispatcher.handle(message, writer.notify))
        else:
            submit(message)

"""A toy ToolHost and clients for the transport tests (no domain code involved).

Run as a script it serves the toy host: ``python transport.py stdio`` or
``python transport.py http`` (prints ``PORT <n>`` on stderr once listening).
"""
from __future__ import annotations

import http.client
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from cruxe.errors import CruxeError  # noqa: E402
from cruxe.jsonrpc import Dispatcher  # noqa: E402

TOY_VERSION = "9.8.7-toy"
TOY_INSTRUCTIONS = "Toy host: call `echo` to get your arguments back."

_OBJECT = {"type": "object"}


class ToyHost:
    """Tools: echo, fail (domain error), boom (raises), keybug (a KeyError bug inside a tool),
    nan (payload that is not JSON), slow (sleeps, reports progress), noisy (prints to stdout),
    wait (waits up to `seconds` for its call to be cancelled, as index_repo follows a job)."""

    server_version = TOY_VERSION

    def __init__(self, instructions: str | None = TOY_INSTRUCTIONS):
        self._instructions = instructions
        self.initialized_calls = 0
        self.calls: list[tuple[str, dict]] = []
        self._lock = threading.Lock()

    def list_tools(self) -> list[dict]:
        names = ["echo", "fail", "boom", "keybug", "nan", "slow", "noisy", "wait"]
        return [{"name": n, "description": f"toy tool {n}", "inputSchema": _OBJECT} for n in names]

    def instructions(self) -> str | None:
        return self._instructions

    def on_initialized(self) -> None:
        with self._lock:
            self.initialized_calls += 1

    def call_tool(self, name: str, arguments: dict, progress: Any) -> tuple[dict, bool]:
        with self._lock:
            self.calls.append((name, arguments))
        handler = getattr(self, f"_tool_{name}", None)
        if handler is None:
            raise KeyError(name)
        return handler(arguments, progress)

    def _tool_echo(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        return dict(arguments), False

    def _tool_fail(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        err = CruxeError("invalid_input", "query must not be empty", {"argument": "query"})
        return {"error": err.to_dict(), "metadata": {"cruxe_protocol_version": "1.0"}}, True

    def _tool_boom(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        raise RuntimeError("secret internal detail /etc/passwd")

    def _tool_keybug(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        return {}["missing"], False

    def _tool_nan(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        return {"value": float("nan")}, False

    def _tool_slow(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        steps = int(arguments.get("steps", 3))
        delay = float(arguments.get("delay", 0.05))
        for i in range(1, steps + 1):
            time.sleep(delay)
            if progress is not None:
                progress(i, steps, f"step {i}")
                progress(i, steps, "repeat is dropped")  # not increasing: must not be sent
        return {"steps": steps, "had_progress": progress is not None}, False

    def _tool_wait(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        seconds = float(arguments.get("seconds", 30))
        cancelled = getattr(progress, "cancelled", None)
        if cancelled is None:
            time.sleep(seconds)
        return {"cancelled": bool(cancelled and cancelled.wait(seconds))}, False

    def _tool_noisy(self, arguments: dict, progress: Any) -> tuple[dict, bool]:
        print("NOISE FROM PRINT")
        sys.stdout.flush()
        os.write(1, b"NOISE FROM FD 1\n")
        return {"noisy": True}, False


def rpc(method: str, params: Any = None, msg_id: Any = 1) -> dict:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if msg_id is not None:
        message["id"] = msg_id
    if params is not None:
        message["params"] = params
    return message


def dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


# ---------------------------------------------------------------------------- stdio client

def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO_ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


class StdioProcess:
    """The toy server as a real subprocess; every stdout line is queued for inspection."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, env=server_env(), cwd=str(REPO_ROOT))
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.stderr_chunks: list[bytes] = []
        self._pumps = [threading.Thread(target=self._pump_stdout, daemon=True),
                       threading.Thread(target=self._pump_stderr, daemon=True)]
        for pump in self._pumps:
            pump.start()

    def _pump_stdout(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)

    def _pump_stderr(self) -> None:
        for chunk in self.proc.stderr:
            self.stderr_chunks.append(chunk)

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: Any) -> None:
        self.send_raw(dumps(message) + b"\n")

    def read_line(self, timeout: float = 10.0) -> bytes:
        return self.lines.get(timeout=timeout)

    def read(self, timeout: float = 10.0) -> Any:
        return json.loads(self.read_line(timeout))

    def exchange_raw(self, data: bytes, *, expect_reply: bool, timeout: float = 10.0) -> bytes | None:
        """Send one line, then a sentinel ping; return the reply line (None if there was none)."""
        sentinel = f"sentinel-{time.monotonic_ns()}"
        self.send_raw(data.rstrip(b"\n") + b"\n")
        self.send(rpc("ping", msg_id=sentinel))
        reply, seen_sentinel = None, False
        while not seen_sentinel or (expect_reply and reply is None):
            line = self.read_line(timeout)
            value = json.loads(line)
            if isinstance(value, dict) and value.get("id") == sentinel:
                seen_sentinel = True
            elif reply is None:
                reply = line.rstrip(b"\n")
            else:
                raise AssertionError(f"two replies to one line: {reply!r} and {line!r}")
        return reply

    def close(self) -> str:
        if self.proc.stdin and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        for pump in self._pumps:  # every line the process wrote is queued once these end
            pump.join(timeout=10)
        return b"".join(self.stderr_chunks).decode("utf-8", "replace")


# ---------------------------------------------------------------------------- http client

def http_request(port: int, method: str, path: str, body: bytes | None = None,
                 headers: dict[str, str] | None = None, timeout: float = 10.0) -> tuple[int, dict, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        all_headers = {"Content-Type": "application/json"} if body is not None else {}
        all_headers.update(headers or {})
        conn.request(method, path, body=body, headers=all_headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def assert_ping_answered(port: int, within: float) -> None:
    """POST one ping; it must be answered (200, empty result) within ``within`` seconds."""
    started = time.monotonic()
    status, _, body = http_request(port, "POST", "/mcp", dumps(rpc("ping", msg_id=1)), timeout=within)
    assert status == 200 and json.loads(body)["result"] == {}, (status, body)
    assert time.monotonic() - started < within


def http_exchange_raw(port: int, data: bytes, *, expect_reply: bool) -> bytes | None:
    status, headers, body = http_request(port, "POST", "/mcp", data)
    if status == 202:
        assert body == b""
        return None
    assert status == 200, (status, body)
    assert headers["content-type"] == "application/json"
    return body


# ---------------------------------------------------------------------------- script

def main(argv: list[str]) -> None:
    import logging

    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    dispatcher = Dispatcher(ToyHost())
    if argv[1] == "stdio":
        from cruxe.jsonrpc import serve_stdio

        serve_stdio(dispatcher)
    else:
        from cruxe.http import serve_http

        def announce(server: Any) -> None:
            sys.stderr.write(f"PORT {server.port}\n")
            sys.stderr.flush()

        serve_http(dispatcher, port=0, ready=announce)


if __name__ == "__main__":
    main(sys.argv)

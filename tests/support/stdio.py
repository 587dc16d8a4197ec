"""A real `cruxe serve-mcp` on stdio, driven line by line (tests and benches)."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path


class StdioServer:
    """`cruxe serve-mcp` on stdio; collects every stdout line to prove it is all protocol."""

    def __init__(self, repo: Path, home: Path, env: dict[str, str] | None = None, log: Path | None = None):
        # the server's stderr (its log) goes to `log` when given, so a test can show a traceback
        self._log = open(log, "wb") if log else None
        self.proc = subprocess.Popen([sys.executable, "-m", "cruxe", "serve-mcp", "--path", str(repo)],
                                     env={**os.environ, "CRUXE_HOME": str(home), **(env or {})}, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self._log or subprocess.DEVNULL)
        self.lines: list[bytes] = []
        self._buf = b""

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def read_reply(self, timeout: float = 30) -> dict | list:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            assert left > 0, "no reply in time"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
                assert chunk, f"server exited (code {self.proc.poll()})"
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        self.lines.append(line)
        return json.loads(line)

    def close(self) -> bytes:
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.proc.wait(timeout=30)
        if self._log:
            self._log.close()
        return self._buf + rest


def opening(client: str = "test", msg_id: int | str = "init") -> list[dict]:
    """The two messages an MCP session opens with: initialize, then notifications/initialized."""
    return [{"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": client, "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"}]


def handshake(server: StdioServer, client: str = "test") -> None:
    """Open the session, checking that the server says it is Cruxe."""
    initialize, initialized = opening(client)
    server.send(json.dumps(initialize).encode())
    assert server.read_reply()["result"]["serverInfo"]["name"] == "cruxe"
    server.send(json.dumps(initialized).encode())

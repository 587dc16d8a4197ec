"""The concurrency harness: MCP clients (stdio and HTTP) querying a real repository while
index jobs run, and the tally of every answer they got. Shared by tests/test_concurrency.py
and bench/concurrency_bench.py (longer runs, a larger corpus)."""
from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cruxe.shape import full_metadata

from .jobs import BATCH_ENV
from .locations import STDLIB
from .stdio import StdioServer, handshake

MIXED = [
    ("locate_symbol", {"name": "Message"}), ("locate_symbol", {"name": "JSONDecoder"}),
    ("search_code", {"query": "parse email header"}), ("search_code", {"query": "decode_header"}),
    ("get_file_outline", {"path": "email/message.py"}), ("find_references", {"symbol_name": "Message"}),
    ("health_check", {}), ("index_status", {}),
]
# tool errors that are correct answers while the FIRST index lands (never failures later)
FIRST_INDEX_ERRORS = {"index_not_ready",     # no generation published yet
                      "file_not_found",      # the outline raced the file's batch
                      "symbol_not_found",    # find_references before the defining file landed
                      "no_edges_available"}  # references are resolved when the job ends


def build_repo(base: Path) -> Path:
    repo = base / "repo"
    for name in ("email", "json"):
        shutil.copytree(STDLIB / name, repo / name, ignore=shutil.ignore_patterns("__pycache__"))
    return repo


def cruxe_env(home: Path) -> dict[str, str]:
    # The jobs under test are the ones these tests start; under `balanced` the servers would
    # also start syncs of their own on seeing the edits (freshness sees files on disk), which
    # then refuse the tests' jobs as index_in_progress.
    return {**os.environ, **BATCH_ENV, "CRUXE_HOME": str(home), "CRUXE_FRESHNESS_POLICY": "best_effort"}


# ---- clients ------------------------------------------------------------------------------

@dataclass
class Tally:
    """Every answer seen, by outcome, plus the evidence a test needs."""
    lock = threading.Lock()
    allowed_errors: frozenset = frozenset()
    outcomes: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    metadata: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)

    def record(self, tool: str, reply: Any, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)
            text = json.dumps(reply)
            if "locked" in text.lower():
                self.failures.append(f"{tool}: 'locked' in {text[:300]}")
            if not isinstance(reply, dict) or "error" in reply:
                self.failures.append(f"{tool}: protocol error {text[:300]}")
                return
            result = reply["result"]
            payload = result["structuredContent"]
            if result["isError"]:
                code = payload["error"]["code"]
                self.outcomes[f"{tool}:{code}"] += 1
                if code not in self.allowed_errors:
                    self.failures.append(f"{tool}: {code} {payload['error']['message'][:200]}")
                return
            self.outcomes[f"{tool}:ok"] += 1
            meta = payload.get("metadata", {})
            if "ref" in meta:  # an answer about the index (health_check's metadata has no ref)
                meta = full_metadata(meta)  # status fields at their normal value are left out
                self.metadata[(meta["indexing_status"], meta["result_completeness"], meta["freshness_status"])] += 1


def rpc(msg_id: int, tool: str, args: dict) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "tools/call", "params": {"name": tool, "arguments": args}}


def stdio_client(server: StdioServer, tally: Tally, stop: threading.Event, offset: int) -> None:
    i = offset
    while not stop.is_set():
        tool, args = MIXED[i % len(MIXED)]
        t = time.perf_counter()
        server.send(json.dumps(rpc(i, tool, args)).encode())
        reply = server.read_reply(timeout=60)
        tally.record(tool, reply, time.perf_counter() - t)
        if reply.get("id") != i:
            tally.failures.append(f"reply id {reply.get('id')} for request {i}")
        i += 1


def http_client(host: str, port: int, tally: Tally, stop: threading.Event, offset: int) -> None:
    conn = http.client.HTTPConnection(host, port, timeout=60)
    i = offset
    try:
        while not stop.is_set():
            tool, args = MIXED[i % len(MIXED)]
            t = time.perf_counter()
            conn.request("POST", "/mcp", body=json.dumps(rpc(i, tool, args)),
                         headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            body = resp.read()
            if resp.status != 200:
                tally.failures.append(f"HTTP {resp.status}: {body[:200]!r}")
                continue
            tally.record(tool, json.loads(body), time.perf_counter() - t)
            i += 1
    finally:
        conn.close()


class Fleet:
    """Two stdio servers and one HTTP server on the same repository, with their clients."""

    def __init__(self, repo: Path, home: Path):
        env = cruxe_env(home)
        subprocess.run([sys.executable, "-m", "cruxe", "init", "--path", str(repo)], env=env, check=True,
                       capture_output=True)
        self.logs = [home.parent / f"stdio{k}.log" for k in range(2)]
        self.stdio = [StdioServer(repo, home, env, log) for log in self.logs]
        for s in self.stdio:
            handshake(s)
        self.http = subprocess.Popen([sys.executable, "-m", "cruxe", "serve-mcp", "--transport", "http", "--port", "0",
                                      "--path", str(repo)], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        m = None
        deadline = time.monotonic() + 30
        while m is None and time.monotonic() < deadline:
            m = re.search(r"http://([\d.]+):(\d+)/mcp", self.http.stderr.readline())
        assert m, "HTTP server did not start"
        self.host, self.port = m.group(1), int(m.group(2))
        self.http_log: list[str] = []
        threading.Thread(target=lambda: self.http_log.extend(self.http.stderr), daemon=True).start()

    def run_during(self, job: subprocess.Popen, tally: Tally, max_seconds: float = 120) -> int:
        """Query from every client until `job` ends; returns its exit code."""
        stop = threading.Event()
        threads = [threading.Thread(target=stdio_client, args=(s, tally, stop, 1000 * k))
                   for k, s in enumerate(self.stdio)]
        threads += [threading.Thread(target=http_client, args=(self.host, self.port, tally, stop, 10_000 * (k + 1)))
                    for k in range(3)]
        for t in threads:
            t.start()
        try:
            code = job.wait(timeout=max_seconds)
            time.sleep(0.3)  # a few answers after the job: they must say complete
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=60)
        return code

    def server_logs(self) -> str:
        """Every server's log so far (the stdio servers' files, then the HTTP server's lines)."""
        return "".join(log.read_text(errors="replace") for log in self.logs if log.exists()) + "".join(self.http_log)

    def close(self) -> str:
        for s in self.stdio:
            s.close()
        self.http.terminate()
        self.http.wait(timeout=10)
        return self.server_logs()


def start_job(fleet: Fleet, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cruxe", *args, "--path", str(fleet.repo), "--quiet",
                             "--workers", "1"], env=cruxe_env(fleet.home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)

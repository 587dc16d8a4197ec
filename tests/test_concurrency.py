"""Concurrency: several MCP clients (two stdio servers, one HTTP server with three
connections) keep querying while the first index lands, while `cruxe index --force` rebuilds
beside the live generation, and while edits are synced. Every request must be answered:
no protocol error, no `internal_error`, no SQLite "database is locked" anywhere; answers
are flagged partial / indexing / syncing while data is in flight and complete once the job
is done. Two `cruxe index` at once: exactly one runs, the other exits 3 (index_in_progress).

`bench/concurrency_bench.py` runs the same harness longer and on a larger corpus.
"""
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

import pytest

from conftest import STDLIB, require_corpus
from cruxe.shape import full_metadata
from test_fuzz import StdioServer

BATCH_ENV = {"CRUXE_INDEX_BATCH_FILES": "5"}
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


def handshake(server: StdioServer) -> None:
    server.send(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}}).encode())
    assert server.read_reply()["result"]["serverInfo"]["name"] == "cruxe"
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')


class Fleet:
    """Two stdio servers and one HTTP server on the same repository, with their clients."""

    def __init__(self, repo: Path, home: Path):
        env = cruxe_env(home)
        subprocess.run([sys.executable, "-m", "cruxe", "init", "--path", str(repo)], env=env, check=True,
                       capture_output=True)
        self.stdio = [StdioServer(repo, home, env) for _ in range(2)]
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

    def close(self) -> str:
        for s in self.stdio:
            s.close()
        self.http.terminate()
        self.http.wait(timeout=10)
        return "".join(self.http_log)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    require_corpus(STDLIB / "email")
    base = tmp_path_factory.mktemp("concurrency")
    repo, home = build_repo(base), base / "home"
    fleet = Fleet(repo, home)
    fleet.repo, fleet.home = repo, home
    yield fleet
    fleet.close()


def start_job(fleet: Fleet, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cruxe", *args, "--path", str(fleet.repo), "--quiet",
                             "--workers", "1"], env=cruxe_env(fleet.home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def assert_clean(tally: Tally) -> None:
    assert tally.failures == [], tally.failures[:10]
    assert sum(tally.outcomes.values()) >= 20, tally.outcomes  # the clients really were busy


# The three phases share one repository and run in order (module-scoped fleet).

def test_queries_during_the_first_index_see_partial_then_complete(fleet):
    tally = Tally(allowed_errors=frozenset(FIRST_INDEX_ERRORS))
    job = start_job(fleet, "index")
    assert fleet.run_during(job, tally) == 0, job.stderr.read()
    assert_clean(tally)
    assert tally.outcomes["locate_symbol:ok"] > 0
    assert ("indexing", "partial", "syncing") in tally.metadata, tally.metadata  # flagged while landing
    assert ("ready", "complete", "fresh") in tally.metadata, tally.metadata  # and complete after


def test_queries_during_a_force_rebuild_never_fail(fleet):
    tally = Tally()
    job = start_job(fleet, "index", "--force")
    assert fleet.run_during(job, tally) == 0, job.stderr.read()
    assert_clean(tally)
    assert ("indexing", "partial", "syncing") in tally.metadata and ("ready", "complete", "fresh") in tally.metadata


def test_queries_during_syncs_of_edited_files_never_fail(fleet):
    tally = Tally()
    edited = sorted(p for p in fleet.repo.rglob("*.py") if "mime" not in p.parts)[:12]
    for p in edited:
        p.write_text(p.read_text() + "\n\ndef concurrent_edit():\n    return 1\n")
    (fleet.repo / "email" / "mime" / "audio.py").unlink()
    (fleet.repo / "email" / "brand_new.py").write_text("class BrandNew:\n    pass\n")
    job = start_job(fleet, "sync")
    assert fleet.run_during(job, tally) == 0, job.stderr.read()
    assert_clean(tally)
    assert tally.metadata[("indexing", "partial", "syncing")] > 0, tally.metadata
    reply = json.loads(subprocess.run([sys.executable, "-m", "cruxe", "locate", "concurrent_edit", "--json",
                                       "--limit", "50", "--path", str(fleet.repo)], env=cruxe_env(fleet.home),
                                      capture_output=True, text=True).stdout)
    assert {r["path"] for r in reply["results"]} == {str(p.relative_to(fleet.repo)) for p in edited}


def test_two_index_runs_at_once_exactly_one_runs_and_the_tools_refuse_meanwhile(fleet):
    from cruxe.project import open_project

    store = open_project(fleet.repo, fleet.home).store
    jobs = [start_job(fleet, "index", "--force") for _ in range(2)]
    deadline = time.monotonic() + 30
    while not store.writer_active("live") and all(j.poll() is None for j in jobs) and time.monotonic() < deadline:
        time.sleep(0.01)
    refusals = []
    for tool in ("index_repo", "sync_repo"):
        fleet.stdio[0].send(json.dumps(rpc(77, tool, {})).encode())
        refusals.append(fleet.stdio[0].read_reply()["result"]["structuredContent"])
    codes = sorted(j.wait(timeout=120) for j in jobs)
    errs = [j.stderr.read() for j in jobs]
    assert codes == [0, 3], (codes, errs)
    assert sum("index_in_progress" in e for e in errs) == 1, errs
    assert [p.get("error", {}).get("code") for p in refusals] == ["index_in_progress"] * 2, refusals


def test_two_first_index_runs_on_a_new_project_exactly_one_runs(tmp_path):
    """Both also race to create state.db and register the project."""
    repo = tmp_path / "repo"
    shutil.copytree(STDLIB / "email", repo, ignore=shutil.ignore_patterns("__pycache__"))
    env = cruxe_env(tmp_path / "home")
    jobs = [subprocess.Popen([sys.executable, "-m", "cruxe", "index", "--path", str(repo), "--quiet", "--workers", "1"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    codes = sorted(j.wait(timeout=120) for j in jobs)
    errs = [j.stderr.read() for j in jobs]
    assert codes == [0, 3] and sum("index_in_progress" in e for e in errs) == 1, (codes, errs)


def test_no_lock_error_reached_any_server_log(fleet):
    log = fleet.close()
    fleet.stdio = []
    assert "database is locked" not in log and "Traceback" not in log, log[-2000:]


def _open_new_db(path: str, out, start) -> None:
    from cruxe.store import connect
    start.wait()
    try:
        connect(Path(path)).executescript("CREATE TABLE IF NOT EXISTS t(x);")
        out.put("ok")
    except Exception as e:  # reported to the parent, which asserts
        out.put(repr(e))


def test_processes_creating_the_same_new_database_all_open_it(tmp_path):
    """Switching a new database to WAL needs an exclusive lock and SQLite returns BUSY
    there without calling the busy handler: without the retry, rounds of four
    processes released together failed with "database is locked" (the first-index race above, seen in CI)."""
    import multiprocessing
    ctx = multiprocessing.get_context("fork")
    failures = []
    for i in range(60):
        out, start = ctx.Queue(), ctx.Barrier(4)
        procs = [ctx.Process(target=_open_new_db, args=(str(tmp_path / f"s{i}.db"), out, start)) for _ in range(4)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=30)
        failures += [r for r in (out.get(timeout=5) for _ in procs) if r != "ok"]
    assert failures == []

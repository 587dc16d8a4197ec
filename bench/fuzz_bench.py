#!/usr/bin/env python3
"""Hostile protocol input through the real tools, at volume (the CI part is tests/test_fuzz.py).

usage: python3 bench/fuzz_bench.py [--cases 10000] [--stdio-cases 2000] [--http-cases 1000]

Builds a small indexed repository (stdlib json + the per-language fixtures) in a temp
CRUXE_HOME, then sends hypothesis-generated requests (every tool; valid, edgy, wrong-typed,
huge, deep, unknown fields; batches; invalid UTF-8) to:
  in-process  Dispatcher(Server(repo)) (volume),
  stdio       one real `cruxe serve-mcp` subprocess (every stdout line must be protocol),
  http        one real `cruxe serve-mcp --transport http` subprocess.
Each reply is checked by the oracle of tests/support/fuzz.py (JSON-RPC error only for non-object
arguments, registered tool error codes, never internal_error, schema violations are
invalid_input, results within limits). Prints one JSON object: counts per outcome, failures
(with the first examples), throughput, and whether each server survived with clean stdout.
Bounded: every channel stops at its case count or its time budget.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from support import fuzz as tf  # noqa: E402  (the strategies and the oracle)
from support.stdio import StdioServer, handshake  # noqa: E402
from cruxe.jsonrpc import Dispatcher  # noqa: E402
from cruxe.tools import Server  # noqa: E402

TIME_BUDGET_S = 900  # per channel


class Channel:
    """Runs cases, checks each reply, keeps counts and the first failures."""

    def __init__(self, name: str, send):
        self.name, self.send = name, send
        self.outcomes: Counter = Counter()
        self.failures: list[dict] = []
        self.cases = 0
        self.started = time.monotonic()

    def over_budget(self) -> bool:
        return time.monotonic() - self.started > TIME_BUDGET_S

    def single(self, msg_id: int, tool: str, args) -> None:
        self._check(json.dumps(tf.request(msg_id, tool, args)).encode(),
                    lambda reply: self.outcomes.update([f"{tool}:{tf.check_reply(reply, msg_id, tool, args)}"]),
                    (tool, args))

    def batch(self, calls) -> None:
        body = json.dumps([tf.request(i, t, a) for i, (t, a) in enumerate(calls)]).encode()

        def check(replies):
            assert [r["id"] for r in replies] == list(range(len(calls)))
            for r, (t, a) in zip(replies, calls):
                tf.check_reply(r, r["id"], t, a)
            self.outcomes["batch:ok"] += 1
        self._check(body, check, calls)

    def bad_utf8(self, call, cut: int) -> None:
        raw = json.dumps(tf.request(1, *call), ensure_ascii=False).encode("utf-8", "surrogatepass")
        cut %= len(raw)

        def check(reply):
            assert reply["error"]["code"] == -32700 and reply["id"] is None, reply
            self.outcomes["invalid_utf8:-32700"] += 1
        self._check(raw[:cut] + b"\xff" + raw[cut:], check, call)

    def _check(self, body: bytes, check, case) -> None:
        self.cases += 1
        try:
            reply = self.send(body)
            assert len(json.dumps(reply)) <= tf.MAX_REPLY_BYTES
            check(reply)
        except Exception as e:  # noqa: BLE001 - a bench records failures and goes on
            self.outcomes["FAILED"] += 1
            if len(self.failures) < 20:
                self.failures.append({"case": repr(case)[:300], "error": f"{type(e).__name__}: {str(e)[:300]}"})

    def report(self) -> dict:
        dt = time.monotonic() - self.started
        return {"cases": self.cases, "seconds": round(dt, 1), "cases_per_s": round(self.cases / dt, 1),
                "failed": self.outcomes["FAILED"], "failures": self.failures,
                "outcomes": dict(sorted(self.outcomes.items()))}


def drive(channel: Channel, n: int) -> None:
    """n hypothesis-generated cases: 80% single calls, 10% batches, 5% invalid UTF-8, 5% deep."""
    counter = iter(range(10**9))

    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(kind=st.integers(0, 99), call=tf.tool_call(), calls=st.lists(tf.tool_call(), min_size=1, max_size=8),
           cut=st.integers(0, 10_000), depth=st.integers(100, 5000))
    def run(kind, call, calls, cut, depth):
        if channel.over_budget():
            return
        if kind < 80:
            channel.single(next(counter), *call)
        elif kind < 90:
            channel.batch(calls)
        elif kind < 95:
            channel.bad_utf8(call, cut)
        else:
            channel.single(next(counter), "search_code", {"query": "x", "ref": tf.deep(depth // 10)})

    run()


def in_process(repo: Path, home: Path, n: int) -> dict:
    dispatcher = Dispatcher(Server(repo, home=home))
    ch = Channel("in_process", lambda body: json.loads(dispatcher.handle_bytes(body)))
    drive(ch, n)
    ch.single(0, "locate_symbol", {"name": "JSONDecoder"})  # still answering
    return ch.report()


def over_stdio(repo: Path, home: Path, n: int) -> dict:
    server = StdioServer(repo, home)
    handshake(server, "fuzz")

    def send(body: bytes):
        server.send(body)
        return server.read_reply(timeout=60)

    ch = Channel("stdio", send)
    drive(ch, n)
    rest = server.close()
    out = ch.report()
    lines = server.lines + [ln for ln in rest.split(b"\n") if ln]
    bad = [ln[:100] for ln in lines if not _is_protocol_line(ln)]
    out.update(stdout_lines=len(lines), non_protocol_stdout_lines=len(bad), exit_code=server.proc.returncode)
    return out


def _is_protocol_line(line: bytes) -> bool:
    try:
        msg = json.loads(line)
    except ValueError:
        return False
    items = msg if isinstance(msg, list) else [msg]
    return all(isinstance(i, dict) and i.get("jsonrpc") == "2.0" for i in items)


def over_http(repo: Path, home: Path, n: int) -> dict:
    proc = subprocess.Popen([sys.executable, "-m", "cruxe", "serve-mcp", "--transport", "http", "--port", "0",
                             "--path", str(repo)], env={**os.environ, "CRUXE_HOME": str(home)},
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    m = None
    while m is None:
        line = proc.stderr.readline()
        if not line:
            raise SystemExit("HTTP server did not start")
        m = re.search(r"http://([\d.]+):(\d+)/mcp", line)
    conn = http.client.HTTPConnection(m.group(1), int(m.group(2)), timeout=60)

    def send(body: bytes):
        conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        assert resp.status == 200, (resp.status, data[:200])
        return json.loads(data)

    ch = Channel("http", send)
    try:
        drive(ch, n)
    finally:
        alive = proc.poll() is None
        proc.terminate()
        proc.wait(timeout=10)
    out = ch.report()
    out["server_alive_at_end"] = alive
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=10_000, help="in-process cases")
    ap.add_argument("--stdio-cases", type=int, default=2_000)
    ap.add_argument("--http-cases", type=int, default=1_000)
    a = ap.parse_args()
    import logging
    logging.disable(logging.CRITICAL)  # tool errors are the expected outcome; the oracle judges them
    with tempfile.TemporaryDirectory(prefix="cruxe-fuzz-") as tmp:
        os.environ["CRUXE_HOME"] = str(Path(tmp) / "home")
        repo, home = tf.build_world(Path(tmp))
        t = time.monotonic()
        result = {
            "bench": "fuzz", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version()},
            "corpus": "stdlib json + tests/fixtures (indexed)",
            "in_process": in_process(repo, home, a.cases),
            "stdio": over_stdio(repo, home, a.stdio_cases),
            "http": over_http(repo, home, a.http_cases),
        }
        result["total_cases"] = sum(result[k]["cases"] for k in ("in_process", "stdio", "http"))
        result["total_failed"] = sum(result[k]["failed"] for k in ("in_process", "stdio", "http"))
        result["seconds"] = round(time.monotonic() - t, 1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

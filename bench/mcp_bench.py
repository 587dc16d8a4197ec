#!/usr/bin/env python3
"""MCP over stdio, measured from the client side: start-up, first query, warm round trips,
tokens per result (o200k_base via bpe-openai) and compact/context byte ratio; the anchor is
the same server's `ping` round trip in the same run.

usage: python3 bench/mcp_bench.py DIR [--queries 200]

DIR is indexed first into a temporary CRUXE_HOME (not timed). Names for locate and search
queries are sampled (seeded) from the index itself; outline targets are files with >= 200
symbols when the corpus has them. Prints one JSON object.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class StdioClient:
    """A minimal newline-delimited JSON-RPC client (timings include pipe and JSON work)."""

    def __init__(self, cmd: list[str], env: dict[str, str]):
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0

    def request(self, method: str, params: dict | None = None) -> tuple[dict, float]:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}}
        t = time.perf_counter()
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                return reply, time.perf_counter() - t

    def notify(self, method: str) -> None:
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.proc.stdin.flush()

    def tool(self, name: str, args: dict) -> tuple[dict, float]:
        reply, dt = self.request("tools/call", {"name": name, "arguments": args})
        return reply["result"]["structuredContent"], dt

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return round(1000 * s[min(len(s) - 1, int(p * len(s)))], 2)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--queries", type=int, default=200)
    a = ap.parse_args()
    from bpe_openai import get_encoding

    enc = get_encoding("o200k_base")
    home = tempfile.mkdtemp(prefix="cruxe-mcpbench-")
    env = {**os.environ, "CRUXE_HOME": home}
    cruxe = [sys.executable, "-m", "cruxe"]
    subprocess.run([*cruxe, "index", "--path", a.dir, "--quiet"], env=env, check=True)
    db = next(Path(home).glob("data/*/refs/*/gen-*/index.db"))
    conn = sqlite3.connect(db)
    rng = random.Random(7)
    names = [r[0] for r in conn.execute("SELECT DISTINCT name FROM symbol_relations WHERE length(name) > 3 "
                                        "ORDER BY name")]
    sample = rng.sample(names, min(a.queries, len(names)))
    big_files = [r[0] for r in conn.execute("SELECT path FROM symbol_relations GROUP BY path "
                                            "HAVING COUNT(*) >= 200 ORDER BY path")]
    outline_files = big_files or [r[0] for r in conn.execute(
        "SELECT path FROM symbol_relations GROUP BY path ORDER BY COUNT(*) DESC, path LIMIT 20")]
    out: dict = {"corpus": a.dir, "date": time.strftime("%Y-%m-%d"), "machine": f"{os.cpu_count()} cores"}

    client = StdioClient([*cruxe, "serve-mcp", "--path", a.dir], env)
    _, _ = client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                         "clientInfo": {"name": "bench", "version": "0"}})
    out["start_to_initialize_ms"] = round(1000 * (time.perf_counter() - client.t0), 1)
    client.notify("notifications/initialized")
    _, first = client.tool("locate_symbol", {"name": sample[0]})
    out["first_query_after_start_ms"] = round(1000 * first, 1)
    while client.tool("health_check", {})[0]["prewarm_status"] in ("pending", "warming"):
        time.sleep(0.05)

    # the anchor: the same server's `ping` round trip in the same run (pipe + JSON, no work)
    timings: dict[str, list[float]] = {"ping": [], "locate_symbol": [], "search_code": [], "get_file_outline": [],
                                       "health_check": []}
    tokens: dict[str, list[int]] = {"location": [], "signature": []}
    compact_bytes = context_bytes = 0
    for i, name in enumerate(sample):
        _, dt = client.request("ping")
        timings["ping"].append(dt)
        _, dt = client.tool("locate_symbol", {"name": name})
        timings["locate_symbol"].append(dt)
        query = name if i % 2 else f"{name} handling"
        _, dt = client.tool("search_code", {"query": query})
        timings["search_code"].append(dt)
        _, dt = client.tool("get_file_outline", {"path": outline_files[i % len(outline_files)]})
        timings["get_file_outline"].append(dt)
        _, dt = client.tool("health_check", {})
        timings["health_check"].append(dt)
        if i < 100:
            for level in ("location", "signature"):
                p, _ = client.tool("search_code", {"query": query, "detail_level": level})
                tokens[level].extend(len(enc.encode(json.dumps(r, separators=(",", ":"), ensure_ascii=False)))
                                     for r in p["results"])
            ctx, _ = client.tool("search_code", {"query": query, "detail_level": "context"})
            cmp_, _ = client.tool("search_code", {"query": query, "detail_level": "context", "compact": True})
            context_bytes += len(json.dumps(ctx["results"], separators=(",", ":")).encode())
            compact_bytes += len(json.dumps(cmp_["results"], separators=(",", ":")).encode())
    client.close()
    for tool, values in timings.items():
        out[f"{tool}_p50_ms"] = pct(values, 0.50)
        out[f"{tool}_p95_ms"] = pct(values, 0.95)
    for level, values in tokens.items():
        out[f"tokens_per_result_{level}"] = round(sum(values) / max(1, len(values)), 1)
    out["compact_to_context_bytes"] = round(compact_bytes / max(1, context_bytes), 3)
    out["outline_files_ge_200_symbols"] = len(big_files)
    out["queries"] = len(sample)
    print(json.dumps(out))
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

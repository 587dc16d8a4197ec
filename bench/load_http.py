#!/usr/bin/env python3
"""Load test of the real HTTP transport on loopback: mixed tools, bounded in count and time.

usage: python3 bench/load_http.py [--repo /usr/share/go-1.19/src] [--home DIR] [--requests 12000]
                                  [--seconds 60] [--connections 8] [--clients 2]

Indexes REPO into a temp CRUXE_HOME (or reuses --home when it already holds the index),
starts `cruxe serve-mcp --transport http --port 0` on 127.0.0.1, completes the MCP handshake
and waits for prewarm. Then `--clients` client processes, each with `--connections`
keep-alive connections, send a fixed mix (locate_symbol, search_code, get_file_outline,
health_check in equal parts) built from real names and paths of the index, until
`--requests` requests are done or `--seconds` pass. The anchor, measured in the same run with
the same connections, is JSON-RPC `ping` (transport + dispatcher, no tool).

Prints one JSON object: date, machine, corpus size, index time, throughput, latency
p50/p95/p99/max overall and per tool, and every error (HTTP status, JSON-RPC error, or a tool
error). Client processes are separate so that client-side Python does not share the server's
GIL, nor one GIL among all connections.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.locations import GO_SRC  # noqa: E402

NL_QUERIES = ["read a file", "parse the header", "http request handler", "compress data", "sort a slice",
              "format a number", "open a network connection", "decode json", "error when closing",
              "write bytes to buffer", "context cancel", "tls handshake"]


def pct(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return round(s[min(len(s) - 1, int(p / 100 * len(s)))] * 1000, 2)


def summary(lat: list[float]) -> dict:
    return {"n": len(lat), "p50_ms": pct(lat, 50), "p95_ms": pct(lat, 95), "p99_ms": pct(lat, 99),
            "max_ms": round(max(lat) * 1000, 2) if lat else 0.0}


# ---- the mix, from the index itself ----------------------------------------------------------

def build_mix(repo: Path, home: Path, n: int, seed: int = 1) -> list[tuple[str, dict]]:
    from cruxe.project import open_project

    project = open_project(repo, home)
    db = project.store.current_generation(project.default_ref()).db
    names = [r[0] for r in db.execute("SELECT DISTINCT name FROM symbol_relations WHERE length(name) > 3 "
                                      "ORDER BY symbol_id LIMIT 400")]
    paths = [r[0] for r in db.execute("SELECT path FROM file_manifest WHERE symbol_count > 0 ORDER BY content_hash "
                                      "LIMIT 400")]
    rng = random.Random(seed)
    mix = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            mix.append(("locate_symbol", {"name": rng.choice(names)}))
        elif kind == 1:
            q = rng.choice(names) if rng.random() < 0.5 else rng.choice(NL_QUERIES)
            mix.append(("search_code", {"query": q}))
        elif kind == 2:
            mix.append(("get_file_outline", {"path": rng.choice(paths)}))
        else:
            mix.append(("health_check", {}))
    project.store.close()
    return mix


# ---- client process ----------------------------------------------------------------------------

def client_main(host: str, port: int, connections: int, deadline: float, requests: list) -> None:
    """Worker: send `requests` over `connections` keep-alive connections; print JSON lines."""
    lock = threading.Lock()
    it = iter(enumerate(requests))
    out: list[str] = []

    def worker() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=60)
        while time.time() < deadline:
            with lock:
                item = next(it, None)
            if item is None:
                break
            i, (tool, args) = item
            body = json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"} if tool == "ping" else
                              {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                               "params": {"name": tool, "arguments": args}})
            t = time.perf_counter()
            error = None
            try:
                conn.request("POST", "/mcp", body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                data = resp.read()
                dt = time.perf_counter() - t
                if resp.status != 200:
                    error = f"HTTP {resp.status}"
                else:
                    reply = json.loads(data)
                    if "error" in reply:
                        error = f"JSON-RPC {reply['error']}"
                    elif tool != "ping" and reply["result"]["isError"]:
                        error = f"{tool}: {reply['result']['structuredContent']['error']['code']} {args}"
            except Exception as e:  # noqa: BLE001 - a load test counts failures
                dt = time.perf_counter() - t
                error = f"{type(e).__name__}: {e}"
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=60)
            with lock:
                out.append(json.dumps([tool, dt, error]))
        conn.close()

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sys.stdout.write("\n".join(out) + "\n")


def run_clients(host: str, port: int, mix: list, clients: int, connections: int, seconds: float) -> tuple[list, float]:
    deadline = time.time() + seconds
    chunks = [mix[k::clients] for k in range(clients)]
    t = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, __file__, "--client", host, str(port), str(connections), str(deadline)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for _ in chunks]
    for p, chunk in zip(procs, chunks):
        p.stdin.write(json.dumps(chunk))
        p.stdin.close()
    rows = []
    for p in procs:
        rows += [json.loads(line) for line in p.stdout if line.strip()]
        p.wait()
    return rows, time.perf_counter() - t


# ---- server ----------------------------------------------------------------------------------

def start_server(repo: Path, home: Path) -> tuple[subprocess.Popen, str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "cruxe", "serve-mcp", "--transport", "http", "--port", "0",
                             "--path", str(repo)], env={**os.environ, "CRUXE_HOME": str(home)},
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        m = re.search(r"http://([\d.]+):(\d+)/mcp", proc.stderr.readline())
        if m:
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()  # drain logs
            return proc, m.group(1), int(m.group(2))
    raise SystemExit("HTTP server did not start")


def handshake_and_prewarm(host: str, port: int) -> str:
    conn = http.client.HTTPConnection(host, port, timeout=60)

    def post(msg: dict) -> dict:
        conn.request("POST", "/mcp", body=json.dumps(msg), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        return json.loads(data) if data else {}

    post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "load", "version": "0"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    status = "pending"
    deadline = time.monotonic() + 120
    while status in ("pending", "warming") and time.monotonic() < deadline:
        reply = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "health_check"}})
        status = reply["result"]["structuredContent"]["prewarm_status"]
        time.sleep(0.1)
    conn.close()
    return status


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        host, port, conns, deadline = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
        client_main(host, port, conns, deadline, [tuple(x) for x in json.load(sys.stdin)])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", default=str(GO_SRC))
    ap.add_argument("--home", help="CRUXE_HOME holding an index of REPO already (default: a temp one)")
    ap.add_argument("--requests", type=int, default=12_000)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--connections", type=int, default=8, help="keep-alive connections per client process")
    ap.add_argument("--clients", type=int, default=2, help="client processes")
    ap.add_argument("--anchor-requests", type=int, default=3000)
    a = ap.parse_args()
    repo = Path(a.repo).resolve()
    tmp = None if a.home else tempfile.mkdtemp(prefix="cruxe-load-")
    home = Path(a.home) if a.home else Path(tmp) / "home"
    try:
        env = {**os.environ, "CRUXE_HOME": str(home)}
        t = time.monotonic()
        idx = subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(repo), "--json"], env=env,
                             capture_output=True, text=True)
        if idx.returncode != 0:
            raise SystemExit(idx.stderr[-2000:])
        index_seconds, report = time.monotonic() - t, json.loads(idx.stdout)
        mix = build_mix(repo, home, a.requests)
        proc, host, port = start_server(repo, home)
        try:
            prewarm = handshake_and_prewarm(host, port)
            anchor_rows, anchor_s = run_clients(host, port, [("ping", {})] * a.anchor_requests, a.clients,
                                                a.connections, a.seconds)
            rows, seconds = run_clients(host, port, mix, a.clients, a.connections, a.seconds)
            server_alive = proc.poll() is None
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        errors = [r[2] for r in rows if r[2]] + [r[2] for r in anchor_rows if r[2]]
        by_tool = {}
        for tool in sorted({r[0] for r in rows}):
            by_tool[tool] = summary([r[1] for r in rows if r[0] == tool])
        result = {
            "bench": "load_http", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
                        "loadavg_1m_at_end": round(os.getloadavg()[0], 2)},
            "corpus": {"repo": str(repo), "files": report["file_count"], "symbols": report["symbol_count"],
                       "index_seconds": round(index_seconds, 1), "index_mode": report["mode"]},
            "bind": host, "clients": a.clients, "connections_per_client": a.connections, "prewarm": prewarm,
            "requests": len(rows), "requests_planned": len(mix), "seconds": round(seconds, 2),
            "requests_per_s": round(len(rows) / seconds, 1), "latency": summary([r[1] for r in rows]),
            "by_tool": by_tool,
            "anchor_ping": {"requests": len(anchor_rows), "requests_per_s": round(len(anchor_rows) / anchor_s, 1),
                            "latency": summary([r[1] for r in anchor_rows])},
            "errors": len(errors), "error_examples": errors[:10], "server_alive_at_end": server_alive,
        }
        print(json.dumps(result, indent=1))
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

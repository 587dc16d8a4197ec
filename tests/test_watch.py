"""`cruxe watch` keeps the index in step with the files (issue 20, item 2)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from cruxe.index import run_index
from cruxe.tools import Server
from cruxe.watch import watch

ROOT = Path(__file__).resolve().parents[1]
QUIET = {"freshness_policy": "best_effort"}


def _until(predicate, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def _finds(server: Server, name: str) -> bool:
    payload, is_error = server.call_tool("locate_symbol", {"name": name, **QUIET})
    return not is_error and bool(payload.get("results"))


def test_edits_adds_and_deletes_reach_the_index(make_repo):
    root = make_repo({"a.py": "def alpha():\n    pass\n", "pkg/b.py": "def beta():\n    pass\n"})
    past = time.time() - 10
    for p in ("a.py", "pkg/b.py"):
        os.utime(root / p, (past, past))
    run_index(root)
    server, stop, syncs = Server(root), threading.Event(), []
    t = threading.Thread(target=watch, args=(root,), kwargs={"interval": 0.1, "stop": stop, "on_sync": syncs.append})
    t.start()
    try:
        (root / "pkg" / "b.py").write_text("def beta():\n    pass\n\ndef edited_in_place():\n    pass\n")
        assert _until(lambda: _finds(server, "edited_in_place"))
        (root / "pkg" / "new.py").write_text("def brand_new():\n    pass\n")
        assert _until(lambda: _finds(server, "brand_new"))
        (root / "a.py").unlink()
        assert _until(lambda: not _finds(server, "alpha"))
    finally:
        stop.set()
        t.join(30)
    assert not t.is_alive() and syncs and all(r.status == "published" for r in syncs)


def test_an_unchanged_tree_is_never_synced(make_repo):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    past = time.time() - 10
    os.utime(root / "a.py", (past, past))
    run_index(root)
    stop, syncs = threading.Event(), []
    t = threading.Thread(target=watch, args=(root,), kwargs={"interval": 0.05, "stop": stop, "on_sync": syncs.append})
    t.start()
    time.sleep(1.0)
    stop.set()
    t.join(30)
    assert syncs == []


def test_the_cli_command_syncs_and_stops_on_a_signal(make_repo, cruxe_home):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CRUXE_HOME": str(cruxe_home)}
    proc = subprocess.Popen([sys.executable, "-P", "-m", "cruxe", "watch", "--interval", "0.1", "--path", str(root)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline()  # never indexed: the first check syncs
        assert first.startswith("synced"), (first, proc.stderr.read() if proc.poll() is not None else "")
        (root / "b.py").write_text("def beta():\n    pass\n")
        assert proc.stdout.readline().startswith("synced 1 changed")
    finally:
        proc.send_signal(2)
        assert proc.wait(timeout=30) == 130


def test_serve_mcp_watch_syncs_edits_without_a_query_asking(make_repo, cruxe_home):
    import json

    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CRUXE_HOME": str(cruxe_home)}
    proc = subprocess.Popen([sys.executable, "-P", "-m", "cruxe", "serve-mcp", "--watch", "--path", str(root)],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def call(i: int, method: str, params: dict) -> dict:
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    try:
        call(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "0"}})
        (root / "b.py").write_text("def watched_in_server():\n    pass\n")
        found = False
        for i in range(1, 100):
            reply = call(i, "tools/call", {"name": "locate_symbol",
                                           "arguments": {"name": "watched_in_server", **QUIET}})
            if reply["result"]["structuredContent"].get("results"):
                found = True
                break
            time.sleep(0.2)
        assert found
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)


def test_the_watch_config_key(tmp_path, monkeypatch):
    from cruxe.config import load_config

    monkeypatch.setenv("CRUXE_WATCH", "true")
    assert load_config(None).index.watch is True
    monkeypatch.delenv("CRUXE_WATCH")
    assert load_config(None).index.watch is False

"""`cruxe watch` keeps the index in step with the files (issue 20, item 2)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cruxe import fsevents, watch as watch_module
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


@pytest.mark.parametrize("events", [True, False], ids=["events", "polling"])
def test_edits_adds_and_deletes_reach_the_index(make_repo, events):
    root = make_repo({"a.py": "def alpha():\n    pass\n", "pkg/b.py": "def beta():\n    pass\n"})
    past = time.time() - 10
    for p in ("a.py", "pkg/b.py"):
        os.utime(root / p, (past, past))
    run_index(root)
    server, stop, syncs = Server(root), threading.Event(), []
    t = threading.Thread(target=watch, args=(root,), kwargs={"interval": 0.1, "stop": stop, "on_sync": syncs.append,
                                                             "events": events})
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


@pytest.mark.parametrize("events", [True, False], ids=["events", "polling"])
def test_an_unchanged_tree_is_never_synced(make_repo, events):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    past = time.time() - 10
    os.utime(root / "a.py", (past, past))
    run_index(root)
    stop, syncs = threading.Event(), []
    t = threading.Thread(target=watch, args=(root,), kwargs={"interval": 0.05, "stop": stop, "on_sync": syncs.append,
                                                             "events": events})
    t.start()
    time.sleep(0.5)
    if events:  # polling sees the directory's mtime move; events see the name is never indexed
        (root / ".a.py.swp").write_bytes(b"an editor's swap file: not indexed, no sync")
        (root / "a.py~").write_text("a backup copy")
    os.utime(root / "a.py", (past, past))  # a touch that changes nothing: IN_ATTRIB, same mtime
    time.sleep(1.0)
    stop.set()
    t.join(30)
    assert syncs == []


def test_the_cli_command_syncs_and_stops_on_a_signal(make_repo, cruxe_home):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CRUXE_HOME": str(cruxe_home)}
    # Ctrl-C as a terminal's foreground command gets it: a run started where SIGINT is ignored
    # (a background job of a non-interactive shell) passes that on, and Python then installs no
    # KeyboardInterrupt handler, so the interrupt would never arrive
    proc = subprocess.Popen([sys.executable, "-P", "-m", "cruxe", "watch", "--interval", "0.1", "--path", str(root)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = proc.stdout.readline()  # never indexed: the first check syncs
        assert first.startswith("synced"), (first, proc.stderr.read() if proc.poll() is not None else "")
        (root / "b.py").write_text("def beta():\n    pass\n")
        assert proc.stdout.readline().startswith("synced 1 changed")
    finally:
        proc.send_signal(signal.SIGINT)
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


needs_inotify = pytest.mark.skipif(fsevents.DirEvents.open() is None, reason="no inotify on this system")


@needs_inotify
def test_inotify_reports_writes_creates_deletes_and_moves_by_name(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "old.py").write_text("x = 1\n")
    ev = fsevents.DirEvents.open()
    try:
        assert ev.watch([str(tmp_path), str(tmp_path / "sub"), str(tmp_path / "missing")]) is True
        assert len(ev) == 2  # a directory gone since the scan is skipped, not an error
        assert ev.wait(0.05) == []
        (tmp_path / "sub" / "new.py").write_text("y = 2\n")
        (tmp_path / "old.py").rename(tmp_path / "renamed.py")
        got = ev.wait(2)
        names = {(Path(e.directory).name, e.name) for e in got}
        assert (("sub", "new.py") in names and (tmp_path.name, "old.py") in names
                and (tmp_path.name, "renamed.py") in names), names
        (tmp_path / "sub" / "new.py").unlink()
        (tmp_path / "sub").rmdir()
        got = ev.wait(2)
        assert any(e.name == "sub" and e.mask & fsevents.IN_ISDIR for e in got)
        ev.wait(0.1)  # the removed directory's IN_IGNORED drops its watch
        assert len(ev) == 1
        assert ev.watch([str(tmp_path)]) is True and len(ev) == 1
        outside = tmp_path.parent / (tmp_path.name + "-outside")
        outside.mkdir()
        (tmp_path / "swapped").symlink_to(outside, target_is_directory=True)
        assert ev.watch([str(tmp_path), str(tmp_path / "swapped")]) is True and len(ev) == 1  # never followed
    finally:
        ev.close()


@needs_inotify
def test_more_directories_than_the_watch_share_means_polling(tmp_path, monkeypatch, caplog):
    dirs = []
    for i in range(5):
        (tmp_path / f"d{i}").mkdir()
        dirs.append(str(tmp_path / f"d{i}"))
    ev = fsevents.DirEvents.open()
    try:
        assert ev.watch(dirs) is True and len(ev) == 5
        monkeypatch.setattr(fsevents.DirEvents, "budget", staticmethod(lambda: 4))
        assert ev.watch(dirs) is False and len(ev) == 0  # none kept: the caller polls
        assert "exceed the share of inotify watches" in caplog.text
    finally:
        ev.close()
    assert 0 < fsevents.DirEvents.budget() <= fsevents.MAX_WATCHES


@needs_inotify
def test_with_events_an_edit_is_synced_without_any_polling_check(make_repo, monkeypatch):
    """The polling check (`changed`) answers "unchanged" here, always: only the events can start
    the syncs, so an edit, a new file and a deletion reaching the index prove the event path."""
    root = make_repo({"a.py": "def alpha():\n    pass\n", "pkg/b.py": "def beta():\n    pass\n"})
    past = time.time() - 10
    for p in ("a.py", "pkg/b.py"):
        os.utime(root / p, (past, past))
    run_index(root)
    monkeypatch.setattr(watch_module, "changed", lambda project, budget_s=0: False)
    server, stop, syncs = Server(root), threading.Event(), []
    t = threading.Thread(target=watch, args=(root,), kwargs={"interval": 0.1, "stop": stop, "on_sync": syncs.append})
    t.start()
    try:
        time.sleep(0.3)  # the watch aims at the published directories
        (root / "pkg" / "b.py").write_text("def beta():\n    pass\n\ndef seen_by_event():\n    pass\n")
        assert _until(lambda: _finds(server, "seen_by_event"), 10)
        (root / "pkg" / "deeper").mkdir()
        (root / "pkg" / "deeper" / "c.py").write_text("def in_a_new_directory():\n    pass\n")
        assert _until(lambda: _finds(server, "in_a_new_directory"), 10)
        (root / "a.py").unlink()
        assert _until(lambda: not _finds(server, "alpha"), 10)
    finally:
        stop.set()
        t.join(30)
    assert not t.is_alive() and syncs


def test_events_in_the_git_directory_ask_for_a_check_not_a_sync(tmp_path):
    import subprocess as sp

    sp.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    from cruxe.project import open_project
    project = open_project(tmp_path)
    source = watch_module._Events(project, events=None)  # judged without a kernel: no waiting here
    source.root = str(tmp_path)
    source.git = {str(d) for d in __import__("cruxe.vcs", fromlist=["x"]).state_dirs(tmp_path)}
    gd = str(tmp_path / ".git")
    heads = str(tmp_path / ".git" / "refs" / "heads")
    E = fsevents.Event
    assert source.judge([E(gd, "HEAD", fsevents.IN_MOVED_TO)]) == "check"
    assert source.judge([E(gd, "index", fsevents.IN_MOVED_TO)]) == "check"
    assert source.judge([E(heads, "main", fsevents.IN_MOVED_TO)]) == "check"
    assert source.judge([E(gd, "COMMIT_EDITMSG", fsevents.IN_CLOSE_WRITE)]) is None
    assert source.judge([E(str(tmp_path), "a.py", fsevents.IN_CLOSE_WRITE)]) == "sync"
    assert source.judge([E(str(tmp_path), "b.go", fsevents.IN_CREATE)]) == "sync"
    assert source.judge([E(str(tmp_path), ".gitignore", fsevents.IN_CLOSE_WRITE)]) == "sync"
    assert source.judge([E(str(tmp_path), "a.py~", fsevents.IN_CREATE)]) is None
    assert source.judge([E(str(tmp_path), "README.md", fsevents.IN_CREATE)]) == "sync"  # text is indexed too
    assert source.judge([E(str(tmp_path), "build", fsevents.IN_CREATE | fsevents.IN_ISDIR)]) == "sync"
    assert source.judge([fsevents.OVERFLOW]) == "sync"

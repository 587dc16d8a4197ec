"""Freshness sees edits on disk, with and without git (issue 20, item 1)."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from cruxe.index import run_index
from cruxe.shape import full_metadata
from cruxe.tools import Server

QUIET = {"freshness_policy": "best_effort"}  # report staleness, start no sync


def _status(server: Server) -> str:
    payload, is_error = server.call_tool("locate_symbol", {"name": "alpha", **QUIET})
    assert not is_error, payload
    return full_metadata(payload["metadata"])["freshness_status"]


def _aged(root, *names: str) -> None:
    """Files older than the racy-mtime window, so the index keeps their mtimes."""
    past = time.time() - 10
    for n in names:
        os.utime(root / n, (past, past))


def _indexed(make_repo, git: bool = False):
    root = make_repo({"a.py": "def alpha():\n    pass\n", "pkg/b.py": "def beta():\n    pass\n"})
    _aged(root, "a.py", "pkg/b.py")
    if git:
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "add", "."], cwd=root, check=True)
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"], cwd=root,
                       check=True)
    run_index(root)
    return root, Server(root)


def test_an_edit_in_place_makes_a_non_git_index_stale(make_repo):
    root, server = _indexed(make_repo)
    assert _status(server) == "fresh"
    (root / "pkg" / "b.py").write_text("def beta():\n    return 2\n")
    assert _status(server) == "stale"
    run_index(root)
    assert _status(server) == "fresh"


def test_an_added_and_a_deleted_file_make_it_stale(make_repo):
    root, server = _indexed(make_repo)
    (root / "pkg" / "c.py").write_text("def gamma():\n    pass\n")
    assert _status(server) == "stale"
    run_index(root)
    assert _status(server) == "fresh"
    (root / "pkg" / "c.py").unlink()
    assert _status(server) == "stale"


def test_uncommitted_edits_make_the_checked_out_branch_stale(make_repo):
    root, server = _indexed(make_repo, git=True)
    assert _status(server) == "fresh"
    (root / "a.py").write_text("def alpha():\n    return 'edited'\n")
    assert _status(server) == "stale"


def test_balanced_syncs_the_edit_and_answers_fresh_after(make_repo):
    root, server = _indexed(make_repo)
    (root / "pkg" / "b.py").write_text("def beta():\n    pass\n\ndef delta_added():\n    pass\n")
    payload, _ = server.call_tool("locate_symbol", {"name": "alpha"})  # balanced: starts a sync
    assert full_metadata(payload["metadata"])["freshness_status"] in ("stale", "syncing")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found, is_error = server.call_tool("locate_symbol", {"name": "delta_added", **QUIET})
        if not is_error and found.get("results"):
            break
        time.sleep(0.2)
    assert found.get("results"), found


@pytest.mark.slow
def test_a_file_indexed_right_after_its_write_reads_fresh_and_its_next_edit_is_seen(make_repo):
    """A file read within 2 s of its last write is stored without its mtime; it must neither
    read as changed at once nor hide a later edit for good."""
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)  # just written: stored without its mtime
    server = Server(root)
    assert _status(server) == "fresh"
    time.sleep(2.1)
    (root / "a.py").write_text("def alpha():\n    pass\n")  # same size: only the mtime tells
    assert _status(server) == "stale"

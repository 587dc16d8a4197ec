"""A query on one branch never writes another branch's index (issue 20: "a read corrupts a branch")."""
from __future__ import annotations

import subprocess
import time

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.shape import full_metadata
from cruxe.tools import Server


def _git(root, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root, check=True,
                          capture_output=True, text=True).stdout.strip()


def test_a_query_on_another_branch_neither_syncs_it_from_the_working_tree_nor_calls_it_stale(make_repo):
    root = make_repo({"common.py": "def shared():\n    pass\n"})
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "base")
    _git(root, "switch", "-q", "-c", "feature")
    (root / "only_feature.py").write_text("def feature_only_function():\n    pass\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "feature")
    run_index(root, ref="feature")
    _git(root, "switch", "-q", "main")
    (root / "common.py").write_text("def shared():\n    pass\n\ndef on_main():\n    pass\n")
    _git(root, "commit", "-qam", "main moves on")  # HEAD moves: the old comparison called feature stale
    server = Server(root)
    payload, is_error = server.call_tool("locate_symbol", {"name": "feature_only_function", "ref": "feature"})
    assert not is_error and payload["results"], payload
    assert full_metadata(payload["metadata"])["freshness_status"] == "fresh", payload["metadata"]
    time.sleep(1.0)  # a background sync, had one been started, would have run by now
    store = open_project(root).store
    assert [j["ref"] for j in store.jobs(None, limit=10)] == ["feature"]
    payload, is_error = server.call_tool("locate_symbol", {"name": "feature_only_function", "ref": "feature"})
    assert not is_error and payload["results"], payload

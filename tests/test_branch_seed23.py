"""What bench/branch_ops_bench.py seed 23 found: a job on the branch checked out that saw the
checkout move (it records no commit, and any file it read may be either side's) answered on that
branch once it was checked out again with whatever it had read, the other branch's files included.
Real git repositories, built here; the switch during the job is made deterministic by a patched scan."""
from __future__ import annotations

import os
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from cruxe.index import run_index
from cruxe.shape import full_metadata
from cruxe.tools import Server
from support.benches import BENCH, load
from support.repos import commit_all, git, index_switching_after_scan, two_branches


def _fn(name: str) -> str:
    return f"def {name}():\n    pass\n"


def _ask(root: Path, name: str, **args) -> tuple[list[str], str]:
    payload, is_error = Server(root).call_tool("locate_symbol", {"name": name, "freshness_policy": "best_effort",
                                                                 **args})
    assert not is_error, payload
    return sorted(r["path"] for r in payload["results"]), full_metadata(payload["metadata"])["freshness_status"]


@pytest.fixture
def diverged(make_repo):
    """`a.py` differs between the branches (main's has `only_on_main`), `b.py` does not, `f.py` is
    feature's only; `feature` is checked out."""
    root = two_branches(make_repo({"a.py": _fn("alpha"), "b.py": _fn("beta")}), {"f.py": _fn("only_on_feature")})
    (root / "a.py").write_text(_fn("alpha") + "\n\n" + _fn("only_on_main"))
    commit_all(root, "main moves on")
    git(root, "switch", "-q", "feature")
    old = time.time() - 3600  # untouched for an hour, as most of a tree is: its mtime is stored
    os.utime(root / "b.py", (old, old))
    return root


def _index_across_a_switch(root: Path, monkeypatch) -> None:
    """A sync of `feature` that scans feature's files; the agent switches to main before they are
    read, so the job reads main's `a.py` (as in seed 23, where a background sync started on
    `feature` ran across the switch to `main`); then the agent switches back."""
    index_switching_after_scan(root, monkeypatch, "main")
    git(root, "switch", "-q", "feature")


def test_a_job_that_saw_the_checkout_move_never_answers_the_other_branchs_files_once_back(diverged,
                                                                                          monkeypatch):
    root = diverged
    _index_across_a_switch(root, monkeypatch)
    # main's a.py was indexed under feature: on feature it is another branch's content
    assert _ask(root, "only_on_main") == ([], "stale")  # was (["a.py"], "stale"): a leak
    # b.py is the same file on both branches and was not rewritten by either switch: still an answer
    assert _ask(root, "beta") == (["b.py"], "stale")


def test_the_next_sync_after_such_a_job_answers_fresh_again(diverged, monkeypatch):
    root = diverged
    _index_across_a_switch(root, monkeypatch)
    run_index(root)
    assert _ask(root, "only_on_feature") == (["f.py"], "fresh")
    assert _ask(root, "alpha") == (["a.py"], "fresh")
    assert _ask(root, "only_on_main") == ([], "fresh")


# ---- the bench's classification: seed 23's answer is the branch's own; a real leak still counts ----

def _leak_count(bench, root: Path, work: Path, name: str) -> int:
    """The bench's own query step, asking `name` on both branches: how many answers it counts as leakage."""
    session = bench.Session(root, random.Random(0))
    session.names = session.corpus_names = [name]
    results = Counter()
    bench.query(session, Server(root), bench.Oracle(work), results, [])
    return results["leakage"]


def test_the_bench_counts_the_other_branchs_file_as_leakage_and_the_branchs_own_commit_not(diverged, monkeypatch,
                                                                                           tmp_path):
    import cruxe.freshness as freshness_mod
    bench, root = load(BENCH / "branch_ops_bench.py"), diverged
    run_index(root, ref="main")  # indexed now, so that no query starts a job beside the test
    monkeypatch.setattr(Server, "maybe_background_sync", lambda *a: False)
    _index_across_a_switch(root, monkeypatch)
    monkeypatch.setattr(freshness_mod, "_not_as_read", lambda *a: frozenset())  # the answers before the fix
    # main's a.py listed on feature: a leak, although the index records no commit to compare with
    assert _leak_count(bench, root, tmp_path / "o1", "only_on_main") == 1
    # seed 23: the working tree renames b.py (uncommitted), the index lists it under its committed
    # path, which main has too; it is feature's own commit's, stale, not another branch's
    (root / "b.py").rename(root / "renamed_b.py")
    assert _leak_count(bench, root, tmp_path / "o2", "beta") == 0

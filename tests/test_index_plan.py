"""The indexing wing's decisions, taken once and tested as pure functions: the build kind
(`index.choose_kind`), the job's plan (`index.plan_index`), the one worker-count rule
(`config.default_workers`); and its test knobs, read when used rather than at import."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import cruxe.index as index_mod
from cruxe.config import default_workers
from cruxe.index import BuildKind, choose_kind, plan_index
from cruxe.scan import ScanEntry
from cruxe.store import SCHEMA_VERSION


class _Gen:
    """A stand-in for an opened generation: only its schema version is asked."""

    def __init__(self, version: int | None):
        self.version = version

    def schema_version(self) -> int | None:
        return self.version


def _entries(n: int, size: int = 10, mtime: int = 1) -> list[ScanEntry]:
    return [ScanEntry(f"f{i:04}.py", f"/r/f{i:04}.py", size, mtime, "python") for i in range(n)]


def test_the_build_kind_is_chosen_from_force_the_published_number_and_the_live_generation():
    live = _Gen(SCHEMA_VERSION)
    assert choose_kind(True, True, live) is BuildKind.REBUILD  # --force rebuilds beside the live one
    assert choose_kind(True, False, None) is BuildKind.REBUILD
    assert choose_kind(False, False, None) is BuildKind.FIRST  # nothing published yet
    assert choose_kind(False, True, None) is BuildKind.REBUILD  # published but missing
    assert choose_kind(False, True, live) is BuildKind.SYNC
    with pytest.raises(Exception) as e:
        choose_kind(False, True, _Gen(SCHEMA_VERSION - 1))
    assert getattr(e.value, "code", None) == "index_incompatible"
    assert choose_kind(True, True, _Gen(SCHEMA_VERSION - 1)) is BuildKind.REBUILD  # the remedy works


def test_a_first_build_of_many_files_is_bulk_and_parsed_by_a_pool(monkeypatch):
    monkeypatch.setattr(index_mod.os, "cpu_count", lambda: 8)
    plan = plan_index(BuildKind.FIRST, "r", "live", "/r", _entries(1200), {}, None, 1000)
    assert (plan.bulk, plan.spool, plan.resolution) == (True, True, "spool")
    assert len(plan.todo) == 1200 and all(i.old_hash is None and i.root == "/r" for i in plan.todo)
    assert (plan.deleted, plan.unchanged, plan.parsers) == ([], 0, 4)  # at most 4 processes
    small = plan_index(BuildKind.FIRST, "r", "live", "/r", _entries(999), {}, 2, 1000)
    assert (small.bulk, small.resolution, small.parsers) == (False, "table", 2)


def test_a_sync_plans_only_what_moved_and_parses_a_small_change_here():
    old = {f"f{i:04}.py": (f"h{i}", 10, 1) for i in range(300)}
    old["gone.py"] = ("h", 1, 1)
    files = _entries(300)
    files[7] = ScanEntry(files[7].path, files[7].abs_path, 11, 1, "python")  # size moved
    files[8] = ScanEntry(files[8].path, files[8].abs_path, 10, 2, "python")  # mtime moved
    files.append(ScanEntry("new.py", "/r/new.py", 3, 1, "python"))
    plan = plan_index(BuildKind.SYNC, "r", "live", "/r", files, old, 4, 1)
    assert [(i.path, i.old_hash) for i in plan.todo] == [("f0007.py", "h7"), ("f0008.py", "h8"), ("new.py", None)]
    assert plan.deleted == ["gone.py"] and plan.unchanged == 298
    assert not plan.bulk and plan.parsers == 0  # not an empty generation; too few to start a pool


def test_one_worker_count_rule_caps_requests_by_the_cpus_and_four(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert [default_workers(n) for n in (None, 0, 1, 2, 8)] == [2, 2, 1, 2, 2]
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    assert [default_workers(n) for n in (None, 3, 8)] == [4, 3, 4]
    monkeypatch.setattr("os.cpu_count", lambda: None)
    assert default_workers() == 1
    # the parser pool follows the same rule as resolution (it asked for 8 on 2 cores before)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert plan_index(BuildKind.FIRST, "r", "live", "/r", _entries(400), {}, 8, 1000).parsers == 2


def test_the_batch_and_bulk_knobs_are_read_when_used(monkeypatch):
    # set after cruxe.index was imported: the job that follows must see them
    monkeypatch.setenv("CRUXE_INDEX_BATCH_FILES", "3")
    monkeypatch.setenv("CRUXE_INDEX_BULK_MIN_FILES", "5")
    items = plan_index(BuildKind.FIRST, "r", "live", "/r", _entries(8), {}, 1, index_mod._bulk_min_files()).todo
    assert [len(b) for b in index_mod._batches(items)] == [3, 3, 2]
    assert index_mod._bulk_min_files() == 5


def test_the_crash_knob_is_read_when_used(monkeypatch):
    from cruxe.store import writer
    killed = []
    monkeypatch.setattr(writer.os, "kill", lambda pid, sig: killed.append(sig))
    monkeypatch.setattr(writer, "_crash_counts", {})
    monkeypatch.setenv("CRUXE_CRASH_AT", "tantivy_commit_files:2")
    writer.crash_point("tantivy_commit_files")
    writer.crash_point("sqlite_commit")
    assert killed == []
    writer.crash_point("tantivy_commit_files")
    assert killed == [9]


@pytest.mark.parametrize("module", ["index.py", "refs/resolve.py", "refs/graph.py"])
def test_the_indexing_wing_leaves_sql_to_the_store(module):
    text = (Path(index_mod.__file__).parent / module).read_text()
    assert not re.search(r"\.execute(many|script)?\(", text)
    assert not re.search(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|CREATE (TABLE|INDEX))\b", text)


def test_an_import_alias_is_stored_in_the_alias_column_and_resolves_through_it(make_repo):
    # Before: the extractors put the alias into `receiver` (the table had no alias column) and
    # edge_block dropped Reference.alias.
    from cruxe.index import run_index
    from cruxe.project import open_project
    root = make_repo({"m.py": "def target():\n    return 1\n",
                      "use.py": "from m import target as t\nimport os.path as osp\n\ndef f():\n    return t()\n",
                      "g.go": 'package main\n\nimport h "net/http"\n\nfunc main() { h.Get("x") }\n'})
    run_index(root)
    project = open_project(root)
    db = project.store.current_generation("live").db
    imports = db.execute("SELECT to_name, receiver, alias FROM symbol_edges WHERE edge_type = 2 ORDER BY to_name")
    assert [tuple(r) for r in imports] == [("net/http", None, "h"), ("os.path", None, "osp"), ("target", None, "t")]
    call = db.execute("SELECT e.confidence, s.name FROM symbol_edges e JOIN symbols s ON s.symbol_id = e.to_symbol_id "
                      "WHERE e.to_name = 't'").fetchall()
    assert [r[1] for r in call] == ["target"]

"""bench/identity.py, the harness that proves a refactor behaviour-identical: what it masks,
what it maps, and that `compare` sees a difference, tolerates a new column and exits 1.
Fast: a tiny index, no corpus copy."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from support import benches

identity = benches.load(benches.BENCH / "identity.py")


def _write(path, rows):
    path.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))


def test_only_the_named_fields_are_masked_wherever_they_occur():
    payload = {"uptime_seconds": 3, "projects": [{"last_indexed_at": "2026-01-01", "file_count": 2}],
               "duration": 5, "started": "x", "last_indexed_commit": None}
    assert identity.mask(payload) == {"uptime_seconds": "<masked>", "projects": [
        {"last_indexed_at": "<masked>", "file_count": 2}], "duration": 5, "started": "x", "last_indexed_commit": None}


def test_rows_carry_paths_and_stable_symbol_keys_not_integer_ids(make_repo, tmp_path):
    root = make_repo({"a.py": "def f():\n    return g()\n\n\ndef g():\n    return 1\n"})
    db_path = identity.index_corpus(root, tmp_path / "home")
    db = sqlite3.connect(db_path)
    identity.dump_table(db, "symbols", tmp_path / "s.jsonl")
    identity.dump_table(db, "symbol_edges", tmp_path / "e.jsonl")
    symbols = [json.loads(line) for line in (tmp_path / "s.jsonl").read_text().splitlines()]
    edges = [json.loads(line) for line in (tmp_path / "e.jsonl").read_text().splitlines()]
    assert {s["file_id"] for s in symbols} == {"a.py"}
    keys = {s["name"]: s["symbol_id"] for s in symbols}
    assert keys["g"] == f"{[s for s in symbols if s['name'] == 'g'][0]['symbol_stable_id']}@a.py:5"
    call = next(e for e in edges if e["to_name"] == "g")
    assert (call["file_id"], call["from_symbol_id"], call["to_symbol_id"]) == ("a.py", keys["f"], keys["g"])


def test_compare_tolerates_a_new_column_and_reports_a_changed_value(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    rows = [{"name": "f", "line_start": 1}, {"name": "g", "line_start": 5}]
    _write(a / "c.symbols.jsonl", rows)
    _write(b / "c.symbols.jsonl", [{**r, "new": 0} for r in rows])
    _write(a / "c.answers.jsonl", [{"id": "t/1", "error": False, "answer": {"results": [1]}}])
    _write(b / "c.answers.jsonl", [{"id": "t/1", "error": False, "answer": {"results": [1]}}])
    script = [sys.executable, str(benches.BENCH / "identity.py"), "compare", str(a), str(b)]
    same = subprocess.run(script, capture_output=True, text=True)
    assert same.returncode == 0 and "only in B: ['new']" in same.stdout, same.stdout
    _write(b / "c.answers.jsonl", [{"id": "t/1", "error": False, "answer": {"results": [2]}}])
    differ = subprocess.run(script, capture_output=True, text=True)
    assert differ.returncode == 1 and "1 of 1 calls answered differently" in differ.stdout
    assert "t/1" in differ.stdout


@pytest.mark.parametrize("missing", ["a", "b"])
def test_a_file_missing_on_one_side_is_a_difference(tmp_path, missing):
    for side in "ab":
        (tmp_path / side).mkdir()
        if side != missing:
            _write(tmp_path / side / "c.edges.jsonl", [{"to_name": "x"}])
    same, report = identity.compare_file(tmp_path / "a" / "c.edges.jsonl", tmp_path / "b" / "c.edges.jsonl", "edges")
    assert not same and report == [f"  missing in {missing.upper()}"]

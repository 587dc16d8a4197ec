"""Incremental resolution against the ground truth: the edge table of a repository indexed at
its working tree (`live`), and that table after an edit and an incremental sync beside the
table of a fresh whole index of the edited tree."""
from __future__ import annotations

from pathlib import Path

from cruxe.index import run_index
from cruxe.project import open_project


def edge_table(root: Path) -> list[tuple]:
    """Every edge with its resolution, keyed by what does not depend on row order."""
    project = open_project(root)  # it keeps the database open
    rows = project.store.current_generation("live").db.execute(
        'SELECT source_file, source_line, edge_type, to_name, coalesce(receiver, ""), coalesce(to_symbol_id, ""), '
        'coalesce(confidence, "") FROM edges')
    return sorted(tuple(r) for r in rows)


def symbol_names(root: Path) -> dict[str, str]:
    """symbol id (16 hex digits, as `edge_table` writes targets) -> qualified name."""
    project = open_project(root)  # it keeps the database open
    rows = project.store.current_generation("live").db.execute("SELECT symbol_id, qualified_name FROM symbols")
    return {sid.hex(): qname for sid, qname in rows}


def call_targets(root: Path) -> dict[tuple[str, int, str], tuple[str, str]]:
    """(path, line, name) -> (the qualified name its call resolves to, or "", its confidence)."""
    names = symbol_names(root)
    return {(r[0], r[1], r[3]): (names.get(r[5], ""), r[6]) for r in edge_table(root) if r[2] == "calls"}


def resolved_file(root: Path, path: str, line: int, name: str) -> str | None:
    """The file of the symbol the one edge by `name` at path:line resolves to (None: unresolved)."""
    ids = [r[5] for r in edge_table(root) if r[:2] == (path, line) and r[3] == name]
    assert len(ids) == 1, ids
    if not ids[0]:
        return None
    project = open_project(root)  # it keeps the database open
    row = project.store.current_generation("live").db.execute(
        "SELECT path FROM symbol_relations WHERE symbol_id=?", (ids[0],)).fetchone()
    return row[0] if row else None


def answer(table: list[tuple], path: str, line: int, name: str) -> str:
    """The confidence of the one edge by `name` at path:line."""
    got = [r[6] for r in table if r[:2] == (path, line) and r[3] == name]
    assert len(got) == 1, got
    return got[0]


def synced_and_whole(root: Path, tmp_path: Path, monkeypatch, edit) -> tuple[list[tuple], list[tuple]]:
    """The edge table after `edit` and an incremental sync (the other files unchanged), and
    that of a fresh whole index."""
    run_index(root)
    edit(root)
    run_index(root)  # incremental
    synced = edge_table(root)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "fresh_home"))
    run_index(root)
    return synced, edge_table(root)


def indexed_call_targets(tmp_path: Path, monkeypatch, files: dict[str, str]) -> dict[tuple[str, int, str], tuple[str, str]]:
    """`call_targets` of `files` (relative path -> text) written under `tmp_path/repo` and indexed
    into `tmp_path/home` (CRUXE_HOME set to it)."""
    from support.repos import indexed_files

    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", files)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    return call_targets(root)

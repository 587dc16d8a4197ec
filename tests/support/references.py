"""find_references on a repository indexed at its working tree (`live`), and its sites."""
from __future__ import annotations

from pathlib import Path

from cruxe.project import open_project
from cruxe.refs import find_references


def refs(root: Path, name: str, **kw) -> dict:
    project = open_project(root)
    return find_references(project.store.current_generation("live"), project.id, "live", name, **kw)


def sites(refs_list: list[dict]) -> list[tuple]:
    return [(r["path"], r["line_start"]) for r in refs_list]

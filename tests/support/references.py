"""find_references on a repository indexed at its working tree (`live`), its sites, and a
server whose payload safety limit is given."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from cruxe.config import load_config
from cruxe.project import open_project
from cruxe.refs import find_references
from cruxe.tools import Server


def refs(root: Path, name: str, **kw) -> dict:
    project = open_project(root)
    return find_references(project.store.current_generation("live"), project.id, "live", name, **kw)


def sites(refs_list: list[dict]) -> list[tuple]:
    return [(r["path"], r["line_start"]) for r in refs_list]


def every_site(answer: dict, *, edge_type: bool = False) -> list[tuple]:
    """The answer's resolved sites: `references`, then each line of `test_references`."""
    def site(path: str, line: int, edge: str) -> tuple:
        return (path, line, edge) if edge_type else (path, line)
    return [site(r["path"], r["line_start"], r["edge_type"]) for r in answer["references"]] + \
        [site(t["path"], line, t["edge_type"]) for t in answer.get("test_references", ()) for line in t["lines"]]


def server_with_limit(root: Path, max_bytes: int) -> Server:
    cfg = load_config(str(root))
    return Server(root, config=dataclasses.replace(cfg, search=dataclasses.replace(cfg.search,
                                                                                   max_response_bytes=max_bytes)))

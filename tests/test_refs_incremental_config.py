"""Incremental resolution after an edit of a file that is not code but maps import specifiers
to files (tsconfig.json `baseUrl` / `paths`): no dirty name follows such an edit, so the
resolution's recorded configuration must. The synced edges must equal those of a fresh whole
index of the edited tree, and the use under test must reach the file a TypeScript reader
expects (so no case passes with both wrong)."""
from __future__ import annotations

import json
from pathlib import Path

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.store.edges import resolver_version

from support.incremental import answer, edge_table, synced_and_whole

UTIL = "export function helper(): number {\n  return {n};\n}\n"
MAIN = 'import { helper } from "@lib/util";\n\nexport function run(): number {\n  return helper();\n}\n'


def tsconfig(target: str, base_url: str = ".") -> str:
    return json.dumps({"compilerOptions": {"baseUrl": base_url, "paths": {"@lib/*": [target]}}}, indent=2)


def target_path(root: Path, table: list[tuple], path: str, line: int, name: str) -> str | None:
    """The file of the symbol the one edge by `name` at path:line resolves to (None: none)."""
    ids = [r[5] for r in table if r[:2] == (path, line) and r[3] == name]
    assert len(ids) == 1, ids
    if not ids[0]:
        return None
    project = open_project(root)  # it keeps the database open
    row = project.store.current_generation("live").db.execute("SELECT path FROM symbol_relations WHERE symbol_id=?", (ids[0],)).fetchone()
    return row[0] if row else None


def recorded_version(root: Path) -> str | None:
    project = open_project(root)  # it keeps the database open
    return resolver_version(project.store.current_generation("live").db)


def ts_repo(make_repo) -> Path:
    return make_repo({"tsconfig.json": tsconfig("src/lib/*"),
                      "src/lib/util.ts": UTIL.replace("{n}", "1"),
                      "src/alt/util.ts": UTIL.replace("{n}", "2"),
                      "src/main.ts": MAIN})


def test_paths_remapped_in_tsconfig_take_the_imports_through_them(make_repo, tmp_path, monkeypatch):
    root = ts_repo(make_repo)

    def remap(r: Path) -> None:
        assert target_path(r, edge_table(r), "src/main.ts", 4, "helper") == "src/lib/util.ts"
        (r / "tsconfig.json").write_text(tsconfig("src/alt/*"))
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, remap)
    assert target_path(root, whole, "src/main.ts", 4, "helper") == "src/alt/util.ts"
    assert target_path(root, whole, "src/main.ts", 1, "helper") == "src/alt/util.ts"
    assert synced == whole


def test_a_tsconfig_that_goes_leaves_the_alias_a_package(make_repo, tmp_path, monkeypatch):
    root = ts_repo(make_repo)
    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / "tsconfig.json").unlink())
    assert answer(whole, "src/main.ts", 1, "helper") == "external"
    assert synced == whole


def test_a_tsconfig_edit_that_maps_nothing_else_keeps_the_resolution_incremental(make_repo):
    # only baseUrl and paths are the configuration: another compiler option resolves nothing again
    root = ts_repo(make_repo)
    run_index(root)
    before = recorded_version(root)
    config = json.loads(tsconfig("src/lib/*"))
    config["compilerOptions"]["strict"] = True
    (root / "tsconfig.json").write_text(json.dumps(config))
    run_index(root)
    assert recorded_version(root) == before
    (root / "tsconfig.json").write_text(tsconfig("src/lib/*", base_url="src"))
    run_index(root)
    assert recorded_version(root) != before

"""The storage wall (issue 19): outside `cruxe/store/` no module runs SQL, imports Tantivy or
spells a Tantivy field name. Field names come from the schemas themselves (a fresh generation's
Tantivy metadata), less the names that are also columns of index.db's tables and views: those
name the data model (a hit's `path`, a row's `kind`), not a disk format."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import cruxe
from cruxe import store

PACKAGE = Path(cruxe.__file__).parent
SQL_CALLS = ("execute(", "executemany(", "executescript(")
# words of another protocol that happen to spell a field: (module, word) -> what they are there
COINCIDENCES = {("cruxe/jsonrpc.py", "content"): "the MCP tools/call result's `content` list",
               ("cruxe/languages/rust_traits.py", "source"): "std::error::Error's method `source`"}


@pytest.fixture(scope="module")
def formats(tmp_path_factory) -> tuple[set[str], dict[str, set[str]], set[str]]:
    """(every Tantivy field, the fields of each index, every column of index.db's tables and views)."""
    gen = store.Generation(tmp_path_factory.mktemp("wall") / "gen-1", 1, create=True)
    try:
        per_index = {name: {f["name"] for f in json.loads((gen.path / name / "meta.json").read_text())["schema"]}
                     for name in store.INDEX_NAMES}
        tables = [r[0] for r in gen.db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
        columns = {r[1] for t in tables for r in gen.db.execute(f'PRAGMA table_info("{t}")')}
    finally:
        gen.close()
    return set().union(*per_index.values()), per_index, columns


def _modules() -> list[tuple[str, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = f"cruxe/{path.relative_to(PACKAGE).as_posix()}"
        if not rel.startswith("cruxe/store/"):
            out.append((rel, path.read_text(encoding="utf-8")))
    return out


def test_no_sql_outside_the_store():
    found = [f"{rel}:{n}: {line.strip()}" for rel, text in _modules()
             for n, line in enumerate(text.splitlines(), 1) if any(call in line for call in SQL_CALLS)]
    assert found == []


def test_no_tantivy_outside_the_store():
    found = []
    for rel, text in _modules():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                found += [f"{rel}:{node.lineno}" for a in node.names if a.name.split(".")[0] == "tantivy"]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tantivy":
                found.append(f"{rel}:{node.lineno}")
    assert found == []


def test_no_tantivy_field_name_outside_the_store(formats):
    fields, _, columns = formats
    forbidden = fields - columns
    assert {"file_key", "name_tokens", "content", "source"} <= forbidden  # the check checks something
    found = [f"{rel}:{node.lineno}: {node.value!r}" for rel, text in _modules() for node in ast.walk(ast.parse(text))
             if isinstance(node, ast.Constant) and node.value in forbidden and (rel, node.value) not in COINCIDENCES]
    assert found == []


def test_the_named_fields_are_the_schemas(formats):
    """What the store names for others (a plan's fields, the probed and warmed ones) exists."""
    fields, per_index, _ = formats
    named = {v for k, v in vars(store.Field).items() if k.isupper()}
    assert named <= fields and set(store.LINE_FIELDS) <= per_index["snippets"]
    for name in store.INDEX_NAMES:
        assert set(store.schema.PROBED_FIELDS[name]) <= per_index[name]
        assert store.schema.WARM_FIELDS[name] in per_index[name]


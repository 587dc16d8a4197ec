"""A definition named with its file, as pytest prints a test (`tests/test_items.py::test_x`,
`items.py::Item::as_string`) and other tools a symbol (`src/view.ts:EditorView`): `locate_symbol`,
`search_code` and `find_references` answer that file's definition (a tail of its path is enough)."""
from __future__ import annotations

import pytest

from cruxe.index import run_index
from cruxe.intent import classify, file_and_name
from cruxe.project import open_project
from cruxe.query import locate_symbol, search_code

from support.references import refs

FILES = {
    "pkg/items.py": "class Item:\n    def as_string(self):\n        return ''\n\n\ndef item(v):\n    return Item()\n",
    "pkg/other.py": "class Item:\n    def as_string(self):\n        return 'x'\n\n\ndef item(v):\n    return v\n",
    "tests/test_items.py": "from pkg.items import item\n\n\ndef test_item_wraps():\n    assert item(1)\n",
    "web/view.ts": "export class EditorView {\n  update() {}\n}\n",
    "app.py": "from pkg.items import item\n\n\ndef main():\n    return item(2)\n",
}


@pytest.mark.parametrize("q, expected", [
    ("tests/test_items.py::test_item_wraps", ("tests/test_items.py", "test_item_wraps")),
    ("items.py::Item::as_string", ("items.py", "Item.as_string")),
    ("web/view.ts:EditorView", ("web/view.ts", "EditorView")),
    ("pkg/items.py:12", None),  # a location, not a name
    ("read the config.py file", None),
])
def test_file_and_name(q, expected):
    assert file_and_name(q) == expected
    if expected:
        assert classify(q)[0] == "symbol"


@pytest.fixture
def indexed(make_repo):
    root = make_repo(FILES)
    run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    return root, project.store.current_generation(ref), project.id, ref


@pytest.mark.parametrize("q, expected", [
    ("tests/test_items.py::test_item_wraps", ("tests/test_items.py", 4)),
    ("items.py::Item::as_string", ("pkg/items.py", 2)),
    ("pkg/other.py::Item.as_string", ("pkg/other.py", 2)),
    ("web/view.ts:EditorView", ("web/view.ts", 1)),
])
def test_locate_and_search_answer_the_named_files_definition(indexed, q, expected):
    _, gen, repo, ref = indexed
    hits, total = locate_symbol(gen, repo, ref, q)
    assert total == 1 and (hits[0].path, hits[0].line_start) == expected
    found, _, info = search_code(gen, repo, ref, q, limit=3)
    assert info["intent"] == "symbol" and (found[0].path, found[0].line_start) == expected


def test_find_references_takes_the_file_from_the_name(indexed):
    root = indexed[0]
    got = refs(root, "pkg/items.py::item")
    assert (got["symbol"]["path"], got["symbol"]["line_start"]) == ("pkg/items.py", 6)
    assert {r["path"] for r in got["references"]} >= {"app.py"}

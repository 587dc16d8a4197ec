"""An overloaded function is answered by `find_references` as its implementation: Python's
`@overload` stubs and TypeScript's overload signatures stand above the definition with the body,
and are listed as its `redefinitions`, not as its callers (tomlkit's `item`)."""
from __future__ import annotations

import pytest

from cruxe.index import run_index

from support.references import refs, sites

PYTHON = {
    "pkg/items.py": (
        "from typing import overload\n\n\n"
        "@overload\ndef item(value: bool) -> bool: ...\n\n\n"
        "@overload\ndef item(value: int) -> int: ...\n\n\n"
        "def item(value):\n    \"\"\"Wrap a value.\"\"\"\n    return value\n"),
    "pkg/api.py": "from pkg.items import item\n\n\ndef dumps(x):\n    return item(x)\n",
}
TYPESCRIPT = {
    "src/items.ts": (
        "export function item(value: boolean): boolean;\n"
        "export function item(value: number): number;\n"
        "export function item(value: any): any {\n  return value;\n}\n"),
    "src/api.ts": "import { item } from './items';\n\nexport function dumps(x: number) {\n  return item(x);\n}\n",
}


@pytest.mark.parametrize("files, implementation, call", [
    (PYTHON, ("pkg/items.py", 12), ("pkg/api.py", 5)),
    (TYPESCRIPT, ("src/items.ts", 3), ("src/api.ts", 4)),
], ids=["python", "typescript"])
def test_an_overloaded_function_is_answered_by_its_implementation(make_repo, files, implementation, call):
    root = make_repo(files)
    run_index(root)
    got = refs(root, "item")
    assert (got["symbol"]["path"], got["symbol"]["line_start"]) == implementation
    assert call in set(sites(got["references"]))
    assert implementation not in set(sites(got["references"] + got.get("redefinitions", [])))

"""An overloaded function is answered by `find_references` as its implementation: Python's
`@overload` stubs and TypeScript's overload signatures stand above the definition with the body,
and are listed as its `redefinitions`, not as its callers (tomlkit's `item`)."""
from __future__ import annotations

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


def test_a_python_overloaded_function_is_answered_by_its_implementation(make_repo):
    root = make_repo(PYTHON)
    run_index(root)
    got = refs(root, "item")
    assert (got["symbol"]["path"], got["symbol"]["line_start"]) == ("pkg/items.py", 12)
    assert ("pkg/api.py", 5) in set(sites(got["references"]))
    assert ("pkg/items.py", 12) not in set(sites(got["references"] + got.get("redefinitions", [])))


def test_a_typescript_overloaded_function_is_answered_by_its_implementation(make_repo):
    root = make_repo(TYPESCRIPT)
    run_index(root)
    got = refs(root, "item")
    assert (got["symbol"]["path"], got["symbol"]["line_start"]) == ("src/items.ts", 3)
    assert ("src/api.ts", 4) in set(sites(got["references"]))

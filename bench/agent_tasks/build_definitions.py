"""Definition tasks: names sampled (seeded) from the kit's oracles, truth = the oracle's rows."""
from __future__ import annotations

import collections
import random
import re
from pathlib import Path

from common import definition_span
from corpora import is_test_path

ALLOWED = {
    "python": {"function", "class", "method"},
    "go": {"func", "method", "struct", "interface", "type"},
    "rust": {"function", "method", "struct", "enum", "trait"},
    "typescript": {"function", "class", "interface", "type", "method"},
}
TYPE_KINDS = {"class", "struct", "interface", "type", "enum", "trait"}
IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]{4,}$")
ORACLE_NAME = {"python": "py_gt.py (stdlib ast)", "go": "gogt (go/parser)", "rust": "rsgt (syn 1.x)",
               "typescript": "ts_gt.js (TypeScript compiler API)"}


def rg_definition(lang: str, name: str, kind: str | None) -> list[str]:
    """The first rg an agent would type for a definition, by language (kind only when the
    question says it: a method for `Type.method`, a class for a capitalised Python name)."""
    n = re.escape(name)
    if lang == "python":
        return ["-n", f"class {n}\\b" if name[0].isupper() and kind != "method" else f"def {n}\\b"]
    if lang == "go":
        return ["-n", f"func \\(.*\\) {n}\\(" if kind == "method" else f"(func|type) {n}\\b"]
    if lang == "rust":
        return ["-n", f"fn {n}\\b" if kind == "method" else f"(fn|struct|enum|trait|type) {n}\\b"]
    if kind == "method":
        return ["-n", f"\\b{n}\\("]
    return ["-n", f"(function|class|interface|type|const) {n}\\b"]


def _usable(row: dict, lang: str) -> bool:
    return (row["kind"] in ALLOWED[lang] and IDENT.match(row["name"]) is not None
            and not is_test_path(row["path"]) and "/internal/" not in f"/{row['path']}")


def _scope(row: dict, lang: str) -> str:
    s = row.get("scope") or ""
    return s.split(".")[-1] if lang == "go" else s


def build(corpus: str, lang: str, root: Path, rows: list[dict], per_subkind: int) -> list[dict]:
    by_name: dict[str, list[dict]] = collections.defaultdict(list)
    for r in rows:
        by_name[r["name"]].append(r)
    rng = random.Random(f"{corpus}/definition")
    tasks = []
    plain = sorted(n for n, rs in by_name.items() if len(rs) == 1 and _usable(rs[0], lang)
                   and rs[0]["kind"] != "method")
    for name in rng.sample(plain, per_subkind):
        r = by_name[name][0]
        tasks.append(_task(corpus, lang, root, "plain", name, [r], rg_definition(lang, name, None)))
    qualified = sorted((r["name"], _scope(r, lang)) for r in rows if r["kind"] == "method" and _usable(r, lang)
                       and IDENT.match(_scope(r, lang) or "-") and len(by_name[r["name"]]) >= 3
                       and (lang == "go" or _scope(r, lang)[0].isupper())  # a type, not a function's local
                       and sum(1 for x in by_name[r["name"]] if _scope(x, lang) == _scope(r, lang)) == 1)
    sep = "::" if lang == "rust" else "."
    for name, scope in rng.sample(qualified, per_subkind):
        r = next(x for x in by_name[name] if _scope(x, lang) == scope)
        tasks.append(_task(corpus, lang, root, "qualified", f"{scope}{sep}{name}", [r],
                           rg_definition(lang, name, "method")))
    ambiguous = sorted(n for n, rs in by_name.items() if 2 <= len(rs) <= 4
                       and all(_usable(r, lang) for r in rs) and len({r["path"] for r in rs}) >= 2)
    for name in rng.sample(ambiguous, per_subkind):
        tasks.append(_task(corpus, lang, root, "ambiguous", name, by_name[name], rg_definition(lang, name, None)))
    return tasks


def _task(corpus: str, lang: str, root: Path, subkind: str, query: str, defs: list[dict],
          rg: list[str]) -> dict:
    expected = sorted((definition_span(root, r) for r in defs), key=lambda e: (e["path"], e["line_start"]))
    how = f"{ORACLE_NAME[lang]} oracle: {'every definition of the name' if len(defs) > 1 else 'the one definition'}"
    return {"id": f"{corpus}/definition/{query}", "corpus": corpus, "kind": "definition", "subkind": subkind,
            "query": query, "tool": "locate_symbol", "args": {"name": query}, "expected": expected,
            "rg": rg, "truth": how + " (range: leading attributes/doc comments through the name line)"}

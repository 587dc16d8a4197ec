"""Helpers the task builders share: oracle rows, definition ranges, the split rule."""
from __future__ import annotations

import ast
import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path

from corpora import SOURCE_SUFFIX, is_test_path

KINDS = ("definition", "concept", "error", "callers")
VALIDATION_SHARE = 4  # one task in four
MAX_CODE_LINE = 20_000  # characters


def id_hash(task_id: str) -> str:
    return hashlib.sha256(task_id.encode()).hexdigest()


def assign_splits(tasks: list[dict]) -> None:
    """Within each (corpus, kind), the quarter of tasks (rounded half up) with the smallest
    sha256(id) is the validation split; the rest is `tune`. Deterministic, and stratified so
    every kind and corpus is represented in both."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for t in tasks:
        groups.setdefault((t["corpus"], t["kind"]), []).append(t)
    for group in groups.values():
        ranked = sorted(group, key=lambda t: id_hash(t["id"]))
        cut = int(len(ranked) / VALIDATION_SHARE + 0.5)
        for i, t in enumerate(ranked):
            t["split"] = "validation" if i < cut else "tune"


def load_oracle(path: Path, corpus: str) -> list[dict]:
    """Oracle rows with paths made relative to the corpus repository root."""
    prefix = f"repos/{corpus}/"
    rows = []
    for line in path.read_text().splitlines():
        r = json.loads(line)
        r["path"] = r["path"][len(prefix):] if r["path"].startswith(prefix) else r["path"]
        rows.append(r)
    return rows


@lru_cache(maxsize=4096)
def file_lines(root: str, rel: str) -> tuple[str, ...]:
    return tuple((Path(root) / rel).read_text(encoding="utf-8", errors="replace").splitlines())


_LEAD = re.compile(r"^\s*(@|#\[|#!\[|//|///|/\*\*|\*|\*/)")


def leading_start(root: Path, rel: str, line: int) -> int:
    """The first line of the decorators, attributes and doc comments right above `line`
    (indexers differ on whether a definition starts there or at its keyword)."""
    lines = file_lines(str(root), rel)
    i = line - 1
    while i - 1 >= 0 and _LEAD.match(lines[i - 1]):
        i -= 1
    return i + 1


def definition_span(root: Path, row: dict) -> dict:
    """Where a definition's location may point: its leading attributes/doc through its name line."""
    name_line = row.get("name_line", row["line"])
    start = leading_start(root, row["path"], min(row["line"], name_line))
    return {"path": row["path"], "line_start": start, "line_end": max(row["line"], name_line)}


def body_span(root: Path, row: dict) -> dict:
    """A whole definition: leading attributes/doc through its last line."""
    start = leading_start(root, row["path"], min(row["line"], row.get("name_line", row["line"])))
    return {"path": row["path"], "line_start": start, "line_end": row["end"]}


def python_trees(root: Path):
    """(relative path, ast) of every non-test Python file that parses, in path order."""
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        if is_test_path(rel):
            continue
        try:
            yield rel, ast.parse(f.read_bytes())
        except (SyntaxError, ValueError):
            continue


def code_lines(root: Path, lang: str):
    """(path, line number, text) of the code lines of non-test Go/Rust/TS files, in order:
    `//` comments, `/* */` blocks, Go raw-string bodies, Rust `#[cfg(test)] mod tests` blocks
    (also `cfg(all(test, ..))`, with comments between),
    `.d.ts` files, Go files excluded from every build (`//go:build ignore`) and lines over
    MAX_CODE_LINE characters left out."""
    for f in sorted(p for suf in SOURCE_SUFFIX[lang] for p in root.rglob(f"*{suf}")):
        rel = f.relative_to(root).as_posix()
        if is_test_path(rel) or f.name.endswith(".d.ts"):
            continue
        lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        if lang == "go" and any(line.startswith("//go:build ignore") for line in lines[:20]):
            continue
        # a megabyte-long line is an embedded bundle (effect's http-api assets), not code anyone
        # calls from, and the builders' quote-stripping regexes are quadratic on it
        yield from ((rel, no, line) for no, line in _live_lines(lines, lang) if len(line) <= MAX_CODE_LINE)


# `#[cfg(test)]` or `#[cfg(all(test, feature = "x"))]` above a `mod tests`
_RUST_CFG_TEST = re.compile(r"#\[cfg\((?:all\()?test\b")


def _live_lines(lines: list[str], lang: str):
    block = raw = False
    skip_depth = None
    depth, prev = 0, ""
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if block or raw:
            block = block and "*/" not in line
            raw = raw and line.count("`") % 2 == 0
            continue
        if lang == "rust" and skip_depth is None and re.match(r"mod tests?\b", s) and _RUST_CFG_TEST.search(prev):
            skip_depth = depth
        depth += line.count("{") - line.count("}")
        prev = prev if not s or s.startswith("//") else s  # a comment between the attribute and `mod`
        if skip_depth is not None:
            skip_depth = None if depth <= skip_depth and "}" in line else skip_depth
            continue
        if s.startswith("//"):
            continue
        if s.startswith("/*"):
            block = "*/" not in s
            continue
        raw = lang == "go" and re.sub(r'"(?:[^"\\]|\\.)*"', "", line).count("`") % 2 == 1
        yield no, line

"""Shared pieces of the per-language extractors: grammar loading, the query runner,
range nesting (parents and qualified names without recursion) and small text helpers.

Extraction never walks every node in Python: tree-sitter queries find definitions in C,
and only the matched nodes are handled here. That keeps a 5k-file corpus within a small
multiple of the parse time, and nothing recurses, so deeply nested input cannot overflow.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter as ts

# whitespace runs as one space, stripped; the language modules import it from here
from ..model import normalize_signature as collapse  # noqa: F401


@lru_cache(maxsize=None)
def language(name: str) -> ts.Language:
    """tree-sitter Language for `python|rust|go|typescript|tsx|javascript`."""
    if name == "typescript":
        import tree_sitter_typescript as m
        return ts.Language(m.language_typescript())
    if name == "tsx":
        import tree_sitter_typescript as m
        return ts.Language(m.language_tsx())
    mod = importlib.import_module(f"tree_sitter_{name}")
    return ts.Language(mod.language())


@lru_cache(maxsize=None)
def parser(name: str) -> ts.Parser:
    return ts.Parser(language(name))


@lru_cache(maxsize=None)
def query(lang_name: str, source: str) -> ts.Query:
    return ts.Query(language(lang_name), source)


def parse(lang_name: str, source: bytes) -> ts.Tree:
    return parser(lang_name).parse(source)


Captures = dict[str, list[ts.Node]]


def matches(q: ts.Query, node: ts.Node) -> list[tuple[int, Captures]]:
    return ts.QueryCursor(q).matches(node)


def by_reader(found: list[tuple[int, Captures]], readers: dict[str, str]) -> dict[str, list[Captures]]:
    """Matches grouped by the part of the extractor that reads them, each group in match
    order. `readers` maps every capture name to its reader, the same for all captures of a
    pattern, so a match is routed by its first capture alone: one lookup per match, and each
    reader then loops over its own matches instead of testing every match for its keys."""
    groups: dict[str, list[Captures]] = {reader: [] for reader in readers.values()}
    for _, caps in found:
        groups[readers[next(iter(caps))]].append(caps)
    return groups


def text(node: ts.Node | None, source: bytes) -> str:
    if node is None:
        return ""
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def start_line(node: ts.Node) -> int:
    return node.start_point[0] + 1


def end_line(node: ts.Node) -> int:
    """1-based last line that holds a byte of the node (a node ending at column 0 of the
    next line, as some grammars' trailing newline does, ends on the line before)."""
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        return row
    return row + 1


def error_count(tree: ts.Tree) -> int:
    """Number of ERROR/MISSING regions (0 for a clean parse), found without recursion."""
    if not tree.root_node.has_error:
        return 0
    n = 0
    cursor = tree.walk()
    visited_children = False
    while True:
        node = cursor.node
        if not visited_children:
            if node.is_error or node.is_missing:
                n += 1
            elif node.has_error and cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return n


@dataclass(slots=True)
class Candidate:
    """A definition found by a query, before nesting assigns parent and qualified name."""

    node: ts.Node  # the whole definition (decorators/attributes/export included)
    name: str
    kind: str
    signature: str = ""
    visibility: str = ""
    doc: str = ""
    name_line: int = 0
    qualifier: str | None = None  # explicit scope prefix (e.g. Rust impl target, Go receiver)
    scope: bool = True  # whether it can contain nested definitions
    extra: dict = field(default_factory=dict)


def nest(cands: list[Candidate]) -> tuple[list[Candidate], list[int | None]]:
    """Sort candidates by position and give each its innermost enclosing candidate.

    Returns (sorted candidates, parent index per candidate). Duplicate captures of the
    same node with the same name and kind are dropped. A stack, not recursion.
    """
    seen: set[tuple[int, int, str, str]] = set()
    keyed: list[tuple[int, int, int, Candidate]] = []  # (start, -end, first-seen order, candidate)
    for c in cands:
        key = (c.node.start_byte, c.node.end_byte, c.name, c.kind)
        if key not in seen:
            seen.add(key)
            keyed.append((key[0], -key[1], len(keyed), c))
    keyed.sort()  # the order makes the sort stable and never compares candidates
    uniq = [k[3] for k in keyed]
    parents: list[int | None] = []
    stack: list[int] = []
    for i, (start, neg_end, _, _) in enumerate(keyed):
        while stack and -keyed[stack[-1]][1] <= start:
            stack.pop()
        # Only scope-like candidates may contain others; a non-scope stays on the stack
        # only while it encloses (e.g. a Go var group); skip non-scopes as parents.
        parent = None
        for j in reversed(stack):
            if uniq[j].scope and keyed[j][1] <= neg_end:
                parent = j
                break
        parents.append(parent)
        stack.append(i)
    return uniq, parents

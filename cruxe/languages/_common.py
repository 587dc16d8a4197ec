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
from typing import Iterator

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

# A query cursor checks every in-progress pattern state at every node it visits, and a
# pattern such as `(argument_list (identifier) @name)` keeps a state alive through its
# start node's whole subtree: on deeply nested input (thousands of nested calls or lists)
# the work grows with nodes x depth. So a tree LAYER_DEPTH deep or more is queried in
# layers: each run may start patterns only down to LAYER_DEPTH levels below its node (the
# cursor then skips deeper subtrees that no state needs), and the next layer runs from each
# node at that last level. Layers overlap by that one level: a pattern starting there is
# found with its siblings (`(comment) @doc . (method)`) by the layer above, one starting
# below it by the layer below; a match found twice is kept once, and the matches are put
# back in source order. The results are those of one unlimited run (tested with layers one
# level deep). Hand-written code nests far less deep than this.
LAYER_DEPTH = 256


def layer_roots(node: ts.Node, depth: int) -> list[ts.Node]:
    """The nodes exactly `depth` levels below `node`, in source order, without visiting
    subtrees too small to reach that far (a subtree of n nodes is at most n - 1 deep)."""
    out: list[ts.Node] = []
    stack = [(node, 0)]
    while stack:
        n, d = stack.pop()
        if d == depth:
            out.append(n)
            continue
        need = depth - d  # levels the child's subtree must still reach, itself included
        stack.extend((ch, d + 1) for ch in reversed(n.children) if ch.descendant_count >= need)
    return out


class BudgetExceeded(Exception):
    """A file whose queries would take far too long; `str()` says why. extract() then
    indexes it as text only, with a warning naming it."""


# Where a parse fails, tree-sitter can leave thousands of tokens side by side under one
# ERROR node (a file of unclosed brackets), and a query cursor's work on such a node grows
# with the square of its children. Past this sum of squares a file is indexed as text only:
# the error regions of real files (broken test inputs included) stay far below it.
MAX_ERROR_WIDTH_COST = 100_000_000


def check_error_width(node: ts.Node) -> None:
    """Raise BudgetExceeded when the ERROR nodes under `node` are too wide to query."""
    if not node.has_error:
        return
    cost = 0
    stack = [node]
    while stack:
        n = stack.pop()
        if n.is_error:
            cost += n.child_count ** 2
            if cost > MAX_ERROR_WIDTH_COST:
                raise BudgetExceeded(f"a syntax error region of {n.child_count} tokens at line "
                                     f"{n.start_point[0] + 1} is too large to query")
        stack.extend(ch for ch in n.children if ch.has_error)


def _runs(q: ts.Query, node: ts.Node) -> Iterator[tuple[ts.QueryCursor, ts.Node]]:
    """A depth-limited (cursor, layer root) per layer root of `node`'s tree, each made when
    needed."""
    layer, next_layer = [node], layer_roots(node, LAYER_DEPTH)
    while layer:
        for root in layer:
            cursor = ts.QueryCursor(q)
            cursor.set_max_start_depth(LAYER_DEPTH)
            yield cursor, root
        layer, next_layer = next_layer, [n for root in next_layer for n in layer_roots(root, LAYER_DEPTH)]


def _layered(node: ts.Node) -> bool:
    """Whether `node`'s tree is deep enough to be queried in layers (BudgetExceeded when its
    error regions are too wide to query at all)."""
    check_error_width(node)
    return bool(layer_roots(node, LAYER_DEPTH))


def matches(q: ts.Query, node: ts.Node) -> list[tuple[int, Captures]]:
    if not _layered(node):
        return ts.QueryCursor(q).matches(node)
    out: list[tuple[int, Captures]] = []
    seen: set[tuple] = set()  # a match starting on the level two layers share comes twice
    for cursor, root in _runs(q, node):
        for pattern, caps in cursor.matches(root):
            key = (pattern, *((name, *(n.id for n in nodes)) for name, nodes in caps.items()))
            if key not in seen:
                seen.add(key)
                out.append((pattern, caps))
    # By first capture: the extractors keep the first of duplicate references, and in this
    # order every file tested extracts exactly as from one unlimited run.
    out.sort(key=_first_byte)
    return out


def _first_byte(match: tuple[int, Captures]) -> int:
    return min((n.start_byte for nodes in match[1].values() for n in nodes), default=0)


def captures(q: ts.Query, node: ts.Node) -> Captures:
    """`QueryCursor.captures` (a list per capture name, each node once, in no set order)."""
    if not _layered(node):
        return ts.QueryCursor(q).captures(node)
    merged: dict[str, dict[ts.Node, None]] = {}
    for cursor, root in _runs(q, node):
        for name, nodes in cursor.captures(root).items():
            merged.setdefault(name, {}).update(dict.fromkeys(nodes))
    return {name: list(nodes) for name, nodes in merged.items()}


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

"""Shared pieces of the per-language extractors: grammar loading, the query runner,
range nesting (parents and qualified names without recursion), the one rule that gives each
reference its enclosing symbol, and small text helpers. No language module imports another.

Extraction never walks every node in Python: tree-sitter queries find definitions in C,
and only the matched nodes are handled here. That keeps extraction within a small multiple
of the parse time, and nothing recurses, so deeply nested input cannot overflow.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from operator import itemgetter
from typing import Iterator

import tree_sitter as ts

from ..model import Reference, text_lines
# whitespace runs as one space, stripped; the language modules import it from here
from ..model import normalize_signature as collapse  # noqa: F401

# The doc text feeds full-text search: its head carries the meaning, and a cap keeps
# generated files (huge docstrings) from bloating the index.
MAX_DOC_CHARS = 4000
# A header with dozens of parameters, a huge `where` clause or initialiser is still one line
# of a result: cut, the same in every language.
MAX_SIGNATURE_CHARS = 300
# Variable, constant and named-type signatures show the first line; values can be enormous tables.
MAX_VALUE_SIGNATURE_CHARS = 120
# Receiver text of a call is for display; long expressions are cut.
MAX_RECEIVER_CHARS = 80


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


def query_text(name: str) -> str:
    """The text of `queries/<name>.scm` (package data). Its capture names are the contract
    with the language module that reads the matches; Python hooks do what a query cannot."""
    return (resources.files(__package__) / "queries" / f"{name}.scm").read_text(encoding="utf-8")


_SECTION = ";; section: "


def query_sections(name: str) -> dict[str, str]:
    """The sections of `queries/<name>.scm` by name, for grammars that share most of their
    patterns (TypeScript, TSX and JavaScript): each starts at a line `;; section: NAME`, and a
    grammar's query is the concatenation of the sections it lists."""
    out: dict[str, str] = {}
    current = None
    for line in query_text(name).splitlines(keepends=True):
        if line.startswith(_SECTION):
            current = line[len(_SECTION):].strip()
            out[current] = ""
        elif current is not None:
            out[current] += line
    return out


def parse(lang_name: str, source: bytes) -> ts.Tree:
    return parser(lang_name).parse(source)


def parse_ranges(lang_name: str, source: bytes, ranges: list[tuple[int, int, ts.Point, ts.Point]]) -> ts.Tree:
    """Parse only the given (start byte, end byte, start point, end point) ranges of `source`,
    sorted and disjoint, as if they were one text: every node keeps its position in `source`.
    A parser of its own per call: the shared one stays free of ranges, and a caller on
    another thread never sees these."""
    included = [ts.Range(sp, ep, sb, eb) for sb, eb, sp, ep in ranges]
    return ts.Parser(language(lang_name), included_ranges=included).parse(source)


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


# ---- text helpers shared by the hooks ------------------------------------------------------

def cap(s: str, limit: int) -> str:
    """`s` cut to `limit` chars, the cut marked with `...`."""
    return s if len(s) <= limit else s[:limit - 3] + "..."


def first_line(node: ts.Node, source: bytes, limit: int) -> str:
    """The node's first line, whitespace collapsed, cut at `limit` chars (reads only the
    head of the node: values can be megabyte tables)."""
    head = source[node.start_byte:min(node.end_byte, node.start_byte + 4 * limit)]
    nl = head.find(b"\n")
    return cap(collapse((head if nl < 0 else head[:nl]).decode("utf-8", "replace")), limit)


def receiver_text(node: ts.Node | None, source: bytes) -> str:
    """The receiver expression under `node` as written, whitespace collapsed where it spans
    lines or holds a run of spaces, cut for display (the Python and Go receivers)."""
    if node is None:
        return ""
    start, end = node.start_byte, node.end_byte
    if end - start > 4 * MAX_RECEIVER_CHARS:
        raw = source[start:start + 4 * MAX_RECEIVER_CHARS].decode("utf-8", "replace")
        lines = node.start_point[0] != node.end_point[0]
    else:  # whole, the text tells whether it spans lines (tree-sitter counts rows by "\n")
        raw = source[start:end].decode("utf-8", "replace")
        lines = "\n" in raw
    if lines or "  " in raw:
        raw = collapse(raw)
    return cap(raw, MAX_RECEIVER_CHARS)


def closing_bracket(text: str, at: int, raw: str = "") -> int | None:
    """The index of the bracket closing the one at `at` in a receiver's text, or None; string
    literals skipped (a backslash escapes in them, except in the quotes `raw` names: Go's
    backquoted raw strings)."""
    depth, i, n = 0, at, len(text)
    while i < n:
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
        elif ch in "\"'`":
            i = text.find(ch, i + 1) if ch in raw else _quote_end(text, i)
            if i < 0:
                return None
        i += 1
    return None


def _quote_end(text: str, at: int) -> int:
    """The index of the quote closing the string literal opened at `at` (backslash escapes), or -1."""
    i = at + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == text[at]:
            return i
        i += 1
    return -1


def short_receiver(expr: str, limit: int = MAX_RECEIVER_CHARS) -> str:
    """Receiver text already read (the Rust and TypeScript receivers): collapsed where it
    holds a line break, a run of spaces or a tab, at most `limit` chars."""
    if len(expr) > limit:
        expr = expr[:limit * 2]  # bound the regex work on huge receivers
    if "\n" in expr or "  " in expr or "\t" in expr:
        expr = collapse(expr)
    return cap(expr, limit)


def path_after_src(path: str) -> tuple[list[str], bool]:
    """The components of a repository path after its last `src/` directory (all of them when
    there is none), and whether there was one: where Rust and TypeScript module paths start."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if "src" not in parts[:-1]:
        return parts, False
    return parts[len(parts) - 1 - parts[:-1][::-1].index("src"):], True


def block_doc(body: str) -> str:
    """The text of a `/** ... */`-style doc comment's body: each line stripped of its
    indentation and leading `*`, empty lines dropped."""
    lines = (ln.strip().lstrip("*").strip() for ln in text_lines(body))
    return "\n".join(ln for ln in lines if ln)


# ---- references and their enclosing symbols -------------------------------------------------

# (byte position, edge_type, to_name, line, module, alias, receiver): a Reference before its
# enclosing symbol is known; built once, at the end, so nothing is copied twice.
PendingRef = tuple[int, str, str, int, str, str, str]
_FIRST = itemgetter(0)


def enclosing(ranges: list[tuple[int, int]], positions: list[int]) -> list[int | None]:
    """For sorted `positions`, the index of the innermost range holding each one.

    `ranges` are (start, end) byte spans sorted by (start, -end) and properly nested or
    disjoint (definition nodes of one tree are). One sweep with a stack: O(n + m).
    """
    out: list[int | None] = []
    stack: list[int] = []
    i = 0
    for pos in positions:
        while i < len(ranges) and ranges[i][0] <= pos:
            while stack and ranges[stack[-1]][1] <= ranges[i][0]:
                stack.pop()
            stack.append(i)
            i += 1
        while stack and ranges[stack[-1]][1] <= pos:
            stack.pop()
        out.append(stack[-1] if stack else None)
    return out


def attach_enclosing(pending: list[PendingRef], ranges: list[tuple[int, int]],
                     owners: list[int | None] | None = None) -> list[Reference]:
    """References in source order (`pending` is sorted in place), each with `from_symbol` =
    its innermost enclosing range's symbol: the range's index itself, or `owners[index]`
    where ranges are not all symbols (an `impl` block stands for its nearest symbol)."""
    pending.sort(key=_FIRST)
    found = enclosing(ranges, [t[0] for t in pending])
    if owners is not None:
        found = [owners[i] if i is not None else None for i in found]
    new = tuple.__new__  # Reference's constructor without its Python frame: the bulk of a file's objects
    return [new(Reference, (edge, to, line, owner, module, alias, recv))
            for (_, edge, to, line, module, alias, recv), owner in zip(pending, found)]


def spans(cands: list[Candidate]) -> list[tuple[int, int]]:
    """The byte span of each candidate, for attach_enclosing."""
    return [(c.node.start_byte, c.node.end_byte) for c in cands]


def owner_of(cands: list[Candidate], parents: list[int | None], index: list[int | None]) -> list[int | None]:
    """Candidate index -> symbol index of itself, or of its nearest ancestor that is a symbol."""
    owners: list[int | None] = []
    for i, sym in enumerate(index):
        p = parents[i]
        owners.append(sym if sym is not None else (owners[p] if p is not None else None))
    return owners

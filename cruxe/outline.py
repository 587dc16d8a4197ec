"""`get_file_outline`: the nested symbol tree of one file, from SQLite only."""
from __future__ import annotations

from json.encoder import encode_basestring  # type: ignore[attr-defined]
from typing import Any

from .errors import CruxeError
from .jsonenc import to_json
from .languages.rust_traits import impl_owner
from .model import MAX_PATH_CHARS, endings, normalize_repo_path
from .store import Generation, OutlineRow, file_language, outline_count, outline_rows, paths_by_name

MAX_PATH_CANDIDATES = 5  # same-named files offered when a path is not indexed


# Bytes a node adds to its parent's JSON beyond its own fields: the `"children":[...]` key
# and brackets when it is the first child, separators otherwise (an upper bound).
_NODE_OVERHEAD = 16


def _json_size(node: dict[str, Any]) -> int:
    """Bytes of `to_json(node)`, without building the string: keys, values and punctuation."""
    size = 1  # {
    for key, value in node.items():
        size += len(key) + 4  # "key": and the separator or }
        if isinstance(value, str):
            size += len(value) + 2 if value.isascii() and value.isprintable() and '"' not in value \
                and "\\" not in value else len(encode_basestring(value).encode("utf-8"))
        else:
            size += len(str(value))
    return size


# The bytes of `{"kind":"","name":"","line_start":1,"line_end":1}` and of `,"signature":""`:
# with the lengths of the values, a lower bound of a node's serialized size.
_NODE_FLOOR = _json_size({"kind": "", "name": "", "line_start": 1, "line_end": 1})
_SIGNATURE_FLOOR = _json_size({"signature": ""}) - 1


def _node(r: OutlineRow) -> dict[str, Any]:
    """One outline node in the shape of spec 03 (no qualified name: the tree says it). A Rust
    method with no parent in the file (an `impl` of a type defined elsewhere, or of a trait for
    one) says whose it is in `impl`: the tree cannot, and a file of `impl ToTokens for X`
    blocks would list the same `fn to_tokens` thirty times, none saying for which type."""
    node = {"kind": r.kind, "name": r.name, "line_start": r.line_start, "line_end": r.line_end}
    if r.signature:
        node["signature"] = r.signature
    if r.visibility:
        node["visibility"] = r.visibility
    owner = impl_owner(r.qualified_name) if r.parent_symbol_id is None and r.kind == "method" \
        and r.language == "rust" else None
    if owner:
        node["impl"] = owner
    return node


# Levels of nesting an outline shows. Each level is two levels of JSON (an object in a
# `children` list), and every JSON encoder on the way out (the MCP transports, the CLI, an
# agent's own parser) recurses per level, with limits near 1,000; real code nests a few
# levels. Deeper symbols (500 nested `def`s, generated or hostile) are left out, and the
# answer says so (`truncated`, hence `safety_limit_applied`).
MAX_OUTLINE_DEPTH = 64


def _tree(rows: list[OutlineRow], max_bytes: int | None) -> tuple[list[dict[str, Any]], int, bool]:
    """The tree of the longest prefix of `rows` whose serialized nodes fit in `max_bytes`
    (all of them when it is None), how many rows it holds, and whether rows nested deeper
    than MAX_OUTLINE_DEPTH were left out. Built without recursion."""
    nodes: dict[str, tuple[dict[str, Any], int]] = {}  # symbol id -> (node, its depth)
    deep: set[str] = set()  # ids left out for their depth: their descendants are too
    roots: list[dict[str, Any]] = []
    size, kept = 2, 0
    for r in rows:
        pid = r.parent_symbol_id
        parent = nodes.get(pid) if pid else None
        depth = parent[1] + 1 if parent else 1
        if depth > MAX_OUTLINE_DEPTH or pid in deep:
            deep.add(r.symbol_id)
            continue
        node = _node(r)
        if max_bytes is not None:
            size += _json_size(node) + _NODE_OVERHEAD
            if size > max_bytes:
                break
        kept += 1
        nodes[r.symbol_id] = (node, depth)
        if parent is None:
            roots.append(node)
        else:
            parent[0].setdefault("children", []).append(node)
    return roots, kept, bool(deep)


def _indexed_file(gen: Generation, repo: str, ref: str, path: Any) -> tuple[str, str]:
    """(the indexed path, its language) for a path argument, or file_not_found. The path
    exactly as given first (a name may hold a backslash or begin with a space), then as
    `normalize_repo_path` spells it (`./a.py`, `a\\b.py` typed on Windows). Looking a string
    up in the manifest reaches no file outside it, so the exact try needs no checks beyond
    the argument's type and length."""
    if isinstance(path, str) and 0 < len(path) <= MAX_PATH_CHARS and "\x00" not in path:
        language = file_language(gen, repo, ref, path)
        if language is not None:
            return path, language
    rel = normalize_repo_path(path)
    language = file_language(gen, repo, ref, rel)
    if language is None:
        data: dict[str, Any] = {"path": rel}
        near = sorted(endings(rel, paths_by_name(gen, repo, ref)))[:MAX_PATH_CANDIDATES] if isinstance(rel, str) else []
        if near:  # the same file name elsewhere: the agent's path is usually a few folders off
            data["candidates"] = near
            data["remedy"] = f"Indexed files with that name: {', '.join(near)}. Pass one of them as the path."
        raise CruxeError("file_not_found", f"no indexed file at {rel!r} for ref {ref!r}", data)
    return rel, language


def file_outline(gen: Generation, repo: str, ref: str, path: str, depth: str = "all",
                 max_bytes: int | None = None) -> dict[str, Any]:
    """The file's symbol tree. With `max_bytes` (the tools pass `search.max_response_bytes`),
    the tree is the longest prefix of the file's symbols, in line order, whose serialized
    `symbols` fit: a parent always precedes its children in that order, so the prefix is a
    well-formed tree; `truncated` says that symbols were left out (a generated file with
    thousands of constants would otherwise be an answer of 100,000+ tokens)."""
    rel, language = _indexed_file(gen, repo, ref, path)
    # Read lazily, and stop once even a lower bound of the size is over the limit: a cut tree
    # never needs the rest of a generated file. Sizing every node exactly costs as much as the
    # query, so that is done only when the whole tree does not fit.
    rows: list[OutlineRow] = []
    floor, over = 2, False
    for r in outline_rows(gen, repo, ref, rel, top_only=depth == "top"):
        rows.append(r)
        sig = r.signature
        floor += _NODE_FLOOR + len(r.kind) + len(r.name) + (_SIGNATURE_FLOOR + len(sig) if sig else 0)
        if max_bytes is not None and floor > max_bytes:
            over = True
            break
    truncated = too_big = over
    if not over:
        roots, kept, deep = _tree(rows, None)
        too_big = max_bytes is not None and len(to_json(roots).encode("utf-8")) > max_bytes
        truncated = deep or too_big
    if too_big:
        roots, kept, _ = _tree(rows, max_bytes)
    total = kept
    if truncated:
        total = outline_count(gen, repo, ref, rel, top_only=depth == "top")
    return {"file_path": rel, "language": language, "symbols": roots, "symbol_count": total,
            "returned_symbol_count": kept, "truncated": truncated}

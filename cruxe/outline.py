"""`get_file_outline`: the nested symbol tree of one file, from SQLite only."""
from __future__ import annotations

from typing import Any

from .errors import CruxeError
from .store import Generation, to_json

MAX_PATH_CHARS = 4096  # longer than any real path; refuse instead of hashing megabytes


def normalize_repo_path(path: Any) -> str:
    """A repo-relative '/' path, or invalid_input. Paths can never reach outside the
    repository: absolute paths, `..` components and NUL bytes are refused."""
    if not isinstance(path, str) or not path.strip():
        raise CruxeError("invalid_input", "path must be a non-empty string", {"field": "path"})
    if len(path) > MAX_PATH_CHARS:
        raise CruxeError("invalid_input", f"path is longer than {MAX_PATH_CHARS} characters", {"field": "path"})
    if "\x00" in path:
        raise CruxeError("invalid_input", "path contains a NUL byte", {"field": "path"})
    p = path.strip().replace("\\", "/")
    if p.startswith("/") or (len(p) > 1 and p[1] == ":"):
        raise CruxeError("invalid_input", "path must be relative to the repository root", {"field": "path"})
    parts = [c for c in p.split("/") if c not in ("", ".")]
    if any(c == ".." for c in parts):
        raise CruxeError("invalid_input", "path must not contain '..'", {"field": "path"})
    if not parts:
        raise CruxeError("invalid_input", "path names no file", {"field": "path"})
    return "/".join(parts)


# Bytes a node adds to its parent's JSON beyond its own fields: the `"children":[...]` key
# and brackets when it is the first child, separators otherwise (an upper bound).
_NODE_OVERHEAD = 16


def file_outline(gen: Generation, repo: str, ref: str, path: str, depth: str = "all",
                 max_bytes: int | None = None) -> dict[str, Any]:
    """The file's symbol tree. With `max_bytes` (the tools pass `search.max_response_bytes`),
    the tree is the longest prefix of the file's symbols, in line order, whose serialized
    `symbols` fit: a parent always precedes its children in that order, so the prefix is a
    well-formed tree; `truncated` says that symbols were left out (a generated file with
    thousands of constants would otherwise be an answer of 100,000+ tokens)."""
    rel = normalize_repo_path(path)
    row = gen.db.execute('SELECT language FROM file_manifest WHERE repo=? AND "ref"=? AND path=?',
                         (repo, ref, rel)).fetchone()
    if row is None:
        raise CruxeError("file_not_found", f"no indexed file at {rel!r} for ref {ref!r}", {"path": rel})
    sql = ('SELECT symbol_id, parent_symbol_id, name, qualified_name, kind, line_start, line_end, signature, '
           'visibility FROM symbol_relations WHERE repo=? AND "ref"=? AND path=? '
           + ("AND parent_symbol_id IS NULL " if depth == "top" else "")
           + "ORDER BY line_start, line_end DESC, name, symbol_id")
    nodes: dict[str, dict[str, Any]] = {}
    roots: list[dict[str, Any]] = []
    size, kept, truncated = 2, 0, False
    for r in gen.db.execute(sql, (repo, ref, rel)):  # read lazily: a cut tree stops early
        node = {"kind": r["kind"], "name": r["name"], "line_start": r["line_start"], "line_end": r["line_end"]}
        if r["qualified_name"] and r["qualified_name"] != r["name"]:
            node["qualified_name"] = r["qualified_name"]
        if r["signature"]:
            node["signature"] = r["signature"]
        if r["visibility"]:
            node["visibility"] = r["visibility"]
        if max_bytes is not None:
            size += len(to_json(node).encode("utf-8")) + _NODE_OVERHEAD
            if size > max_bytes:
                truncated = True
                break
        kept += 1
        parent = nodes.get(r["parent_symbol_id"]) if r["parent_symbol_id"] else None
        nodes[r["symbol_id"]] = node
        if parent is None:
            roots.append(node)
        else:
            parent.setdefault("children", []).append(node)
    total = kept
    if truncated:
        total = gen.db.execute('SELECT COUNT(*) FROM symbol_relations WHERE repo=? AND "ref"=? AND path=?'
                               + (" AND parent_symbol_id IS NULL" if depth == "top" else ""),
                               (repo, ref, rel)).fetchone()[0]
    return {"file_path": rel, "language": row["language"] or "", "symbols": roots, "symbol_count": total,
            "returned_symbol_count": kept, "truncated": truncated}

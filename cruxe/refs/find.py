"""`find_references`: who imports, calls or uses a symbol, and how much is unknown.

The answer never claims more than the index knows. Resolved references are listed (one
per source line, in (path, line) order); edges that name the symbol but could not be tied
to any definition are counted in `unresolved_count`, always present, so "0 references,
0 unresolved" means no use of that name was found at all, while "0 references, 7
unresolved" tells the agent to look before deleting anything.

Targets: the name may be qualified (`a::b`, `A.b`, matched as a suffix of qualified
names). Definitions that share a path and qualified name (conditional redefinitions,
overloads, property setters) are one target; several different targets and no `path` that
picks one raise `ambiguous_symbol` listing them (the agent repeats the call with `path` or
a qualified name).
"""
from __future__ import annotations

import re
from typing import Any

from ..errors import CruxeError
from ..outline import normalize_repo_path
from ..store import EDGE_TYPE_CODES, RETRY_SQL, Generation, edge_type_sql, id_blob, id_sql, name_lower_sql, tail_sql
from .resolve import resolver_version
from .text import file_chunks, line_of

EDGE_KINDS = ("calls", "imports", "references")
# several edges on one line (a call and a type use, say) show once, as the strongest
_KIND_ORDER = {"calls": 0, "imports": 1, "references": 2}
MAX_CONTEXT_CHARS = 160  # one source line for orientation, not a code dump
MAX_LISTED_DEFINITIONS = 20  # in an ambiguous_symbol error: enough to pick from
_SEP = re.compile(r"::|\.")


def find_references(gen: Generation, repo: str, ref: str, symbol_name: str, path: str | None = None,
                    kind: str | None = None, limit: int = 20) -> dict[str, Any]:
    if kind is not None and kind not in EDGE_KINDS:
        raise CruxeError("invalid_input", f"unknown reference kind {kind!r}",
                         {"field": "kind", "allowed": list(EDGE_KINDS)})
    if not isinstance(limit, int) or limit < 1:
        raise CruxeError("invalid_input", "limit must be a positive integer", {"field": "limit"})
    db = gen.db
    if resolver_version(db) is None:
        raise CruxeError("no_edges_available", "the reference graph of this index is not built yet "
                         "(first index still running, or interrupted before resolving references)",
                         {"remedy": "Wait for the index job, or run `cruxe sync` (sync_repo) to finish it."})
    segments = parse_name(symbol_name)
    name = segments[-1]
    target = _target(gen, repo, ref, symbol_name, segments, normalize_repo_path(path) if path else None, kind)
    ids = [d["symbol_id"] for d in target]
    refs = _references(gen, ids, kind)
    page = refs[:limit]
    _decorate(gen, repo, ref, page)
    out: dict[str, Any] = {
        "symbol": _public(target[0]),
        "references": page,
        "total_references": len(refs),
        "unresolved_count": unresolved_count(gen, name, kind),
    }
    if len(refs) > limit:
        out["truncated"] = True
    return out


# ---- the target ------------------------------------------------------------------------------

def parse_name(symbol_name: str) -> list[str]:
    """`auth::jwt::validate` / `Order.total` / `fn helper` -> name segments."""
    raw = symbol_name.strip().strip("`").strip()
    raw = raw.split()[-1] if raw.split() else ""
    raw = raw.split("(", 1)[0].rstrip("!")
    segments = [s for s in _SEP.split(raw) if s]
    if not segments:
        raise CruxeError("invalid_input", f"not a symbol name: {symbol_name!r}", {"field": "symbol_name"})
    return segments


def _target(gen: Generation, repo: str, ref: str, symbol_name: str, segments: list[str], path: str | None,
            kind: str | None) -> list[dict[str, Any]]:
    """The definitions that make up the one symbol asked for (see module docstring)."""
    name = segments[-1]
    rows = _definitions(gen, repo, ref, name)
    if len(segments) > 1:
        rows = [r for r in rows if _SEP.split(r["qualified_name"])[-len(segments):] == segments]
    if path is not None:
        rows = [r for r in rows if r["path"] == path]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["path"], r["qualified_name"]), []).append(r)
    if not groups:
        where = f" in {path}" if path else ""
        raise CruxeError("symbol_not_found", f"no definition of {symbol_name.strip()!r}{where} in the index",
                         {"symbol_name": name, "path": path,
                          "unresolved_count": unresolved_count(gen, name, kind)})
    if len(groups) > 1:
        defs = [_public(g[0]) for _, g in sorted(groups.items())]
        raise CruxeError("ambiguous_symbol", f"{symbol_name.strip()!r} has {len(defs)} definitions; pass `path` "
                         "or a qualified name to pick one",
                         {"symbol_name": name, "definition_count": len(defs),
                          "definitions": defs[:MAX_LISTED_DEFINITIONS]})
    return next(iter(groups.values()))


def _definitions(gen: Generation, repo: str, ref: str, name: str) -> list[dict[str, Any]]:
    """Definitions named exactly `name`; when there are none, a case-insensitive match."""
    rows = [dict(r) for r in gen.db.execute(
        f"SELECT {id_sql('s.symbol_id')} AS symbol_id, s.name, s.qualified_name, s.kind, f.path, s.line_start "
        "FROM symbols s INDEXED BY sr_name "
        f"JOIN paths f ON f.id = s.file_id WHERE {name_lower_sql('s')}=? ORDER BY f.path, s.line_start, s.symbol_id",
        (name.lower(),))]
    exact = [r for r in rows if r["name"] == name]
    return exact or rows


def _public(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in ("name", "qualified_name", "kind", "path", "line_start", "symbol_id")}


# ---- references ------------------------------------------------------------------------------

def _references(gen: Generation, ids: list[str], kind: str | None) -> list[dict[str, Any]]:
    marks = ",".join("?" * len(ids))
    sql = (f"SELECT f.path, e.source_line, {edge_type_sql('e')}, {id_sql('e.from_symbol_id')} "
           f"FROM symbol_edges e JOIN paths f ON f.id = e.file_id WHERE e.to_symbol_id IN ({marks})")
    args: list[Any] = [id_blob(i) for i in ids]
    if kind is not None:
        sql += " AND e.edge_type=?"
        args.append(EDGE_TYPE_CODES[kind])
    best: dict[tuple[str, int], dict[str, Any]] = {}
    for path, line, edge_type, from_id in gen.db.execute(sql, args):
        cur = best.get((path, line))
        cand = {"path": path, "line_start": line, "edge_type": edge_type, "from_symbol": from_id}
        if cur is None or (_KIND_ORDER.get(edge_type, 9), from_id or "") < (_KIND_ORDER.get(cur["edge_type"], 9),
                                                                         cur["from_symbol"] or ""):
            best[(path, line)] = cand
    return [best[k] for k in sorted(best)]


def _decorate(gen: Generation, repo: str, ref: str, refs: list[dict[str, Any]]) -> None:
    """Enclosing symbols' qualified names and the source line of each reference, in place."""
    ids = sorted({r["from_symbol"] for r in refs if r["from_symbol"]})
    names: dict[str, str] = {}
    if ids:
        marks = ",".join("?" * len(ids))
        names = {row[0]: row[1] for row in gen.db.execute(
            f"SELECT {id_sql('symbol_id')}, qualified_name FROM symbols WHERE symbol_id IN ({marks})",
            [id_blob(i) for i in ids])}
    chunks = {p: file_chunks(gen, repo, ref, p) for p in sorted({r["path"] for r in refs})}
    for r in refs:
        r["from_symbol"] = names.get(r["from_symbol"]) if r["from_symbol"] else None
        line = line_of(chunks[r["path"]], r["line_start"])
        if line is not None:
            line = line.strip()
            r["context"] = line if len(line) <= MAX_CONTEXT_CHARS else line[:MAX_CONTEXT_CHARS - 1] + "…"


# ---- unresolved ------------------------------------------------------------------------------

def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def unresolved_count(gen: Generation, name: str, kind: str | None = None) -> int:
    """Edges naming `name` (as written, or as the last segment of `a.name` / `a::name`) that
    no definition was tied to: spec 04's count, restricted to one edge type when asked.
    The `to_tail` term is the same condition in indexed and case-sensitive form (LIKE folds
    ASCII case): it keeps the count exact and off a full scan of the edge table."""
    sql = (f"SELECT COUNT(*) FROM symbol_edges e WHERE {RETRY_SQL} AND e.to_symbol_id IS NULL "
           f"AND {tail_sql('e')} = ? AND (e.to_name = ? OR e.to_name LIKE ? ESCAPE '\\' OR e.to_name LIKE ? ESCAPE '\\')")
    args: list[Any] = [name, name, "%." + _like_escape(name), "%::" + _like_escape(name)]
    if kind is not None:
        sql += " AND e.edge_type = ?"
        args.append(EDGE_TYPE_CODES[kind])
    return int(gen.db.execute(sql, args).fetchone()[0])

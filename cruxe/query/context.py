"""`detail_level: context` extras: body preview, parent and related symbols.

Computed only when asked for, after ranking and `limit`, so the default path never pays
for them. Previews come from the snippets index (chunks cover every file exactly once and
store their text), so no file is read from disk and the answer matches the indexed content.
"""
from __future__ import annotations

from typing import Any

from ..model import Hit
from ..shape import MAX_RELATED, PREVIEW_LINES, TRUNCATION_MARKER
from ..store import Chunk, Symbol, chunks, siblings, symbols_by_id


def enrich(gen, repo: str, ref: str, hits: list[Hit]) -> None:
    """Set `body_preview`, `parent`, `related_symbols` in place (left None when unknown)."""
    if not hits:
        return
    _add_previews(gen, repo, ref, hits)
    sym_hits = [h for h in hits if h.result_type == "symbol" and h.symbol_id]
    if not sym_hits:
        return
    rows = symbols_by_id(gen, [h.symbol_id for h in sym_hits])
    parents = symbols_by_id(gen, [r.parent_symbol_id for r in rows.values() if r.parent_symbol_id])
    for h in sym_hits:
        row = rows.get(h.symbol_id)
        if row is None:
            continue
        parent = parents.get(row.parent_symbol_id or "")
        if parent is not None:
            h.parent = _brief(parent)
        related = siblings(gen, repo, ref, row, parent, MAX_RELATED)
        if related:
            h.related_symbols = [_brief(r) for r in related]


def _brief(row: Symbol) -> dict[str, Any]:
    return {"kind": row.kind, "name": row.name, "path": row.path, "line": row.line_start}


def _add_previews(gen, repo: str, ref: str, hits: list[Hit]) -> None:
    for h in hits:
        if h.result_type not in ("symbol", "file"):
            continue  # a snippet hit already carries its matching lines
        start = h.line_start
        covering = chunks(gen, repo, ref, h.path, (start, min(h.line_end, start + PREVIEW_LINES - 1)))
        text = preview_source(covering, start, h.line_end)
        if text:
            h.body_preview = text


def preview_source(covering: list[Chunk], start: int, end: int) -> str:
    """What `shape.preview` shows of lines [start, end]: their first PREVIEW_LINES read from the
    chunks, then shape's marker when the body goes on (shape cannot see the lines not read)."""
    last = min(end, start + PREVIEW_LINES - 1)
    lines: list[str] = []
    for c in covering:
        a, b = int(c.line_start), int(c.line_end)
        if b < start or a > last:
            continue
        body = c.source.split("\n")
        for n in range(max(a, start), min(b, last) + 1):
            if n - a < len(body):
                lines.append(body[n - a])
    if not lines:
        return ""
    if end > last:
        lines.append(TRUNCATION_MARKER)
    return "\n".join(lines)

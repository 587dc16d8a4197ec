"""Pasted messages and where the code emits them: the check the probes' message tests share."""
from __future__ import annotations

from cruxe.query import search_code


def assert_pastes_find_sites(index: tuple, files: dict[str, str], cases) -> None:
    """Each (paste, path, text) of `cases`: search_code reads the paste as an error and its first
    result holds the first line of `files[path]` containing `text` (the emitting statement)."""
    gen, repo, ref = index
    for paste, path, text in cases:
        source = files[path].splitlines()
        want = next(i + 1 for i, line in enumerate(source) if text in line)
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        top = hits[0]
        assert (top.path, top.line_start <= want <= top.line_end) == (path, True), (paste, hits[:3])

"""Test code inside source files, for the order of `find_references`' answer.

A file's path says most (`is_non_source_path`); two kinds of test code sit in files whose
path looks like source, and are listed after it the same way:
- Rust items under `#[cfg(test)]` (the `mod tests { ... }` at the end of a source file, or a
  test-only `fn`): the lines of the item the attribute stands on.
- Go files with a build constraint that excludes them from every build (`//go:build ignore`,
  `// +build ignore`: generators run by `go run`), read from the lines before `package`.
Only files that hold a reference are read, each once.
"""
from __future__ import annotations

import re

from ..store import Generation, chunks, innermost_symbols

# an attribute line that makes the next item test-only: `#[cfg(test)]`, `#[cfg(all(test, ...))]`
_CFG_TEST = re.compile(r"^\s*#\[cfg\((?:all\()?test\b")
_ATTRIBUTE_OR_COMMENT = re.compile(r"^\s*(?:#\[|//|$)")
_ITEM = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:mod|fn)\s")
_GO_IGNORE = re.compile(r"^//(?:go:build|\s*\+build)\s+(?:.*[\s(|&])?ignore(?:$|[\s)|&])", re.M)
_GO_PACKAGE = re.compile(r"^package\s", re.M)
_GO_HEADER_LINES = 80  # the build constraint precedes `package`, after a licence header at most


class TestCode:
    """`(path, line)` -> whether the line is test code of a source file (see the module doc)."""

    def __init__(self, gen: Generation, repo: str, ref: str):
        self._gen, self._repo, self._ref = gen, repo, ref
        self._files: dict[str, list[tuple[int, int]] | bool] = {}

    def __call__(self, path: str, line: int) -> bool:
        got = self._files.get(path)
        if got is None:
            got = self._files[path] = self._read(path)
        if isinstance(got, bool):
            return got
        return any(a <= line <= b for a, b in got)

    def _read(self, path: str) -> list[tuple[int, int]] | bool:
        if path.endswith(".go"):
            return self._go_ignored(path)
        if path.endswith(".rs"):
            return self._rust_test_items(path)
        return False

    def _lines(self, path: str, span: tuple[int, int] | None = None) -> dict[int, str]:
        out: dict[int, str] = {}
        for c in chunks(self._gen, self._repo, self._ref, path, span):
            for i, text in enumerate(c.source.split("\n")):
                out.setdefault(int(c.line_start) + i, text)
        return out

    def _go_ignored(self, path: str) -> bool:
        lines = self._lines(path, (1, _GO_HEADER_LINES))
        head = "\n".join(lines[n] for n in sorted(lines))
        package = _GO_PACKAGE.search(head)
        return _GO_IGNORE.search(head, 0, package.start() if package else len(head)) is not None

    def _rust_test_items(self, path: str) -> list[tuple[int, int]]:
        lines = self._lines(path)
        items: list[int] = []
        for n in sorted(lines):
            if _CFG_TEST.match(lines[n]):
                item = n + 1  # the item the attribute stands on: after further attributes, comments
                while item in lines and _ATTRIBUTE_OR_COMMENT.match(lines[item]) and not _ITEM.match(lines[item]):
                    item += 1
                if item in lines and _ITEM.match(lines[item]):
                    items.append(item)
        if not items:
            return []
        found = innermost_symbols(self._gen, self._repo, self._ref, [(path, n) for n in items])
        return [(s.line_start, s.line_end) for s in found.values() if s.kind in ("module", "function", "method")]

"""Test code inside files whose path looks like source: what `find_references` lists apart
(`refs.testcode`) and `search_code` ranks as it ranks test files (`query.search`).

- Rust items under `#[cfg(test)]` (the `mod tests { ... }` at the end of a source file, or a
  test-only `fn`): the lines of the item the attribute stands on; and a whole file whose module
  its parent declares so (`#[cfg(test)] mod tests;` in `lib.rs` -> `src/tests.rs`, `mod
  encoder_tests;` in `write/mod.rs`), read from the parent's declarations.
- Go files with a build constraint that excludes them from every build (`//go:build ignore`,
  `// +build ignore`: generators run by `go run`), read from the lines before `package`.
Each file is read once per `InSourceTests`, and only when asked about.
"""
from __future__ import annotations

import re

from .filetext import numbered_lines
from .store import Generation, chunks, innermost_symbols

# an attribute line that makes the next item test-only: `#[cfg(test)]`, `#[cfg(all(test, ...))]`
_CFG_TEST = re.compile(r"^\s*#\[cfg\((?:all\()?test\b")
_ATTRIBUTE_OR_COMMENT = re.compile(r"^\s*(?:#\[|//|$)")
_ITEM = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:mod|fn)\s")
_MOD_DECLARATION = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?:r#)?(\w+)\s*;")  # `mod tests;`: a file of its own
_GO_IGNORE = re.compile(r"^//(?:go:build|\s*\+build)\s+(?:.*[\s(|&])?ignore(?:$|[\s)|&])", re.M)
_GO_PACKAGE = re.compile(r"^package\s", re.M)
_GO_HEADER_LINES = 80  # the build constraint precedes `package`, after a licence header at most


class InSourceTests:
    """`(path, line)` -> whether the line is test code of a source file (see the module doc)."""

    def __init__(self, gen: Generation, repo: str, ref: str):
        self._gen, self._repo, self._ref = gen, repo, ref
        self._files: dict[str, list[tuple[int, int]] | bool] = {}
        self._test_modules: dict[str, set[str]] = {}  # a Rust file -> the modules it declares test-only

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
            return self._declared_for_tests(path) or self._rust_test_items(path)
        return False

    def _lines(self, path: str, span: tuple[int, int] | None = None) -> dict[int, str]:
        return numbered_lines(chunks(self._gen, self._repo, self._ref, path, span))

    def _go_ignored(self, path: str) -> bool:
        lines = self._lines(path, (1, _GO_HEADER_LINES))
        head = "\n".join(lines[n] for n in sorted(lines))
        package = _GO_PACKAGE.search(head)
        return _GO_IGNORE.search(head, 0, package.start() if package else len(head)) is not None

    def _declared_for_tests(self, path: str) -> bool:
        """The Rust file is a module its parent declares under `#[cfg(test)]` (`mod tests;`): the
        parent is the folder's `mod.rs`, the file named like the folder, or the crate root
        (`lib.rs`, `main.rs`) beside it; for a `mod.rs`, those of the folder above."""
        folder, _, file = path.rpartition("/")
        module = file[:-3]
        if module in ("lib", "main"):
            return False
        if module == "mod":
            folder, _, module = folder.rpartition("/")
        parents = [f"{folder}/mod.rs", f"{folder}.rs", f"{folder}/lib.rs", f"{folder}/main.rs"] if folder else \
            ["mod.rs", "lib.rs", "main.rs"]
        return any(module in self._test_modules_of(p.lstrip("/")) for p in parents if p.lstrip("/") != path)

    def _test_modules_of(self, path: str) -> set[str]:
        if path not in self._test_modules:
            lines = self._lines(path)
            self._test_modules[path] = {m.group(1) for n in self._cfg_test_items(lines)
                                        if (m := _MOD_DECLARATION.match(lines[n]))}
        return self._test_modules[path]

    @staticmethod
    def _cfg_test_items(lines: dict[int, str]) -> list[int]:
        """The first line of each item a `#[cfg(test)]` attribute stands on (after further
        attributes and comments)."""
        items: list[int] = []
        for n in sorted(lines):
            if _CFG_TEST.match(lines[n]):
                item = n + 1
                while item in lines and _ATTRIBUTE_OR_COMMENT.match(lines[item]) and not _ITEM.match(lines[item]):
                    item += 1
                if item in lines and _ITEM.match(lines[item]):
                    items.append(item)
        return items

    def _rust_test_items(self, path: str) -> list[tuple[int, int]]:
        items = self._cfg_test_items(self._lines(path))
        if not items:
            return []
        found = innermost_symbols(self._gen, self._repo, self._ref, [(path, n) for n in items])
        return [(s.line_start, s.line_end) for s in found.values() if s.kind in ("module", "function", "method")]

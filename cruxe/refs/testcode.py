"""Test code, for the order and the folding of `find_references`' answer.

A file's path says most: `path_rank` orders (the implementation, then the other files that are
no test code: examples and docs, usage an agent can copy; then test files, benchmarks and
fixtures), `model.is_test_file` names test code. Two kinds of test code sit in files whose path
looks like source, and are listed after the examples and docs, before the test files:
- Rust items under `#[cfg(test)]` (the `mod tests { ... }` at the end of a source file, or a
  test-only `fn`): the lines of the item the attribute stands on; and a whole file whose module
  its parent declares so (`#[cfg(test)] mod tests;` in `lib.rs` -> `src/tests.rs`, `mod
  encoder_tests;` in `write/mod.rs`), read from the parent's declarations.
- Go files with a build constraint that excludes them from every build (`//go:build ignore`,
  `// +build ignore`: generators run by `go run`), read from the lines before `package`.
Only files of references that may reach the answer's page are read, each once: a popular
function's hundreds of calling files are not all opened to order the first `limit`.

Test code apart (`split_test_code`): "who calls X" asks for the code that uses X; the tests that
exercise it are another list, `test_references`, one entry per file (and edge type) with every
site's line (`{path, edge_type, lines}`): all of them are there for a change of signature, at a few tokens a file,
and none stands between the agent and the callers it asked for.
"""
from __future__ import annotations

import re
from itertools import groupby
from typing import Any, Callable

from ..model import is_non_source_path, is_test_file
from ..store import Generation, chunks, innermost_symbols

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


SOURCE, USAGE, TEST = 0, 1, 2  # `path_rank`


def path_rank(path: str) -> int:
    """Where a file's references come in an answer: the implementation (SOURCE), examples and
    docs (USAGE), test files, benchmarks and fixtures (TEST)."""
    if not is_non_source_path(path):
        return SOURCE
    return TEST if is_test_file(path) else USAGE


def source_before_test_code(refs: list[dict[str, Any]], limit: int,
                   is_test: Callable[[str, int], bool]) -> list[dict[str, Any]]:
    """References (each definition's run in `path_rank`, then (path, line) order) with test code
    inside source files moved behind the source and the examples and docs, before the test
    files, and marked (`test: true`). Checked until `limit` source references lead their run:
    the answer's page is then exactly what a full check gives; later ones keep their place
    (beyond any page)."""
    out: list[dict[str, Any]] = []
    for _, run in groupby(refs, key=lambda r: r.get("definition")):
        group = list(run)
        head: list[dict[str, Any]] = []
        tests: list[dict[str, Any]] = []
        i = 0
        while i < len(group) and len(head) < limit and not is_non_source_path(group[i]["path"]):
            r = group[i]
            if is_test(r["path"], r["line_start"]):
                r["test"] = True
                tests.append(r)
            else:
                head.append(r)
            i += 1
        cut = next((j for j in range(i, len(group)) if path_rank(group[j]["path"]) == TEST), len(group))
        out += head + group[i:cut] + tests + group[cut:]
    return out


def split_test_code(refs: list[dict[str, Any]], folds: Callable[[str | None], bool]
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(entries, tests): `refs` in their order, less the references in test code (marked
    `test` by `source_before_test_code`, or in a test file) of a definition that `folds`
    (`definition`, None for a lone target), which are `tests`: one entry per definition, file
    and edge type, at the first such reference, `{path, edge_type, lines}` (every site's line,
    ascending; `definition` kept where the references carry it)."""
    entries: list[dict[str, Any]] = []
    files: dict[tuple[Any, str, str], dict[str, Any]] = {}
    for r in refs:
        if (r.get("test") or is_test_file(r["path"])) and folds(r.get("definition")):
            key = (r.get("definition"), r["path"], r["edge_type"])
            if key not in files:
                files[key] = {"path": r["path"], "edge_type": r["edge_type"], "lines": [],
                              **({"definition": r["definition"]} if "definition" in r else {})}
            files[key]["lines"].append(r["line_start"])
            continue
        entries.append(r)
    for f in files.values():
        f["lines"].sort()
    return entries, list(files.values())

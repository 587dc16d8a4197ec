"""Test code, for the order of `find_references`' answer and its `test_references`.

A file's path says most: `path_rank` orders (the implementation, then the other files that are
no test code: examples and docs, usage an agent can copy; then test files, benchmarks and
fixtures), `model.is_test_file` names test code. The test code that sits in files whose path
looks like source (`sourcetests.InSourceTests`: Rust items under `#[cfg(test)]`, Go files no
build includes) is listed after the examples and docs, before the test files. Only files of
references that may reach the answer's page are read, each once: a popular function's hundreds
of calling files are not all opened to order the first `limit`.

Test code apart (`split_test_code`): "who calls X" asks for the code that uses X; the tests that
exercise it are another list, `test_references`, one entry per file (and edge type) with every
site's line (`{path, edge_type, lines}`): all of them are there for a change of signature, at a
few tokens a file, and none stands between the agent and the callers it asked for.
"""
from __future__ import annotations

from itertools import groupby
from typing import Any, Callable

from ..model import is_non_source_path, is_test_file

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


def split_test_code(refs: list[dict[str, Any]], apart: Callable[[str | None], bool]
                    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(entries, tests): `refs` in their order, less the references in test code (marked
    `test` by `source_before_test_code`, or in a test file) of a definition that `apart` names
    (`definition`, None for a lone target), which are `tests`: one entry per definition, file
    and edge type, at the first such reference, `{path, edge_type, lines}` (every site's line,
    ascending; `definition` kept where the references carry it)."""
    entries: list[dict[str, Any]] = []
    files: dict[tuple[Any, str, str], dict[str, Any]] = {}
    for r in refs:
        if (r.get("test") or is_test_file(r["path"])) and apart(r.get("definition")):
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

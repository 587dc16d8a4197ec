"""A bound method kept in a local (issue 17 user probes, py-probe: rich's `render_str =
console.render_str`, `from_rgb = Color.from_rgb`, `render_lines = console.render_lines`): the
local's bare calls are calls of that method, linked through the receiver the binding names, and
only where the binding reaches the call. Found beside it: a regular expression match's own
methods (`get_span = match.span`) are never the repository's method of that name, and a class
attribute annotated `Optional[Color]` types its reads as a `Color`."""
from __future__ import annotations

from pathlib import Path

from cruxe.index import run_index
from cruxe.extract import extract
from cruxe.project import open_project
from cruxe.refs import find_references

CONSOLE = """\
class Console:
    def render_str(self, text):
        return text

    def print(self, *objects):
        return objects


class Color:
    @classmethod
    def from_rgb(cls, red, green, blue):
        return cls()
"""

COLUMNS = """\
from .console import Color, Console


class Columns:
    def render(self, console: Console, items):
        render_str = console.render_str
        out = [render_str(item) for item in items]
        from_rgb = Color.from_rgb
        for n in items:
            out.append(from_rgb(n, n, n))
        show = console.print
        show(out)
        return out


def rebound(console: Console, flag):
    show = console.print
    if flag:
        show = print
    show("done")
"""


def _sites(root: Path, name: str) -> list[tuple[str, int]]:
    project = open_project(root)
    gen = project.store.current_generation("live")
    answer = find_references(gen, project.id, "live", name, path="pkg/console.py", kind="calls", limit=100)
    return [(r["path"], r["line_start"]) for r in answer["references"]]


def test_a_bare_call_of_a_local_bound_to_an_attribute_calls_that_attribute():
    calls = [(r.to_name, r.receiver, r.line) for r in extract("columns.py", COLUMNS.encode(), "python").references
             if r.edge_type == "calls"]
    assert ("render_str", "console", 7) in calls and ("from_rgb", "Color", 10) in calls
    assert ("print", "console", 12) in calls
    # two bindings, neither dominating the call: nothing is guessed
    assert ("print", "console", 20) not in calls


def test_the_aliased_calls_are_found_as_callers(make_repo):
    root = make_repo({"pkg/__init__.py": "", "pkg/console.py": CONSOLE, "pkg/columns.py": COLUMNS})
    run_index(root)
    assert _sites(root, "Console.render_str") == [("pkg/columns.py", 7)]
    assert _sites(root, "Color.from_rgb") == [("pkg/columns.py", 10)]
    assert _sites(root, "Console.print") == [("pkg/columns.py", 12)]


STYLE = """\
from typing import Optional

from .console import Color


class Measurement:
    def span(self):
        return 1

    def from_rgb(self, red, green, blue):  # a second from_rgb: no unique method to fall back on
        return 2


class Style:
    _color: Optional[Color]

    def codes(self, system):
        return self._color.from_rgb(system, 0, 0)

    def spans(self, text, pattern):
        out = []
        for match in pattern.finditer(text):
            get_span = match.span
            out.append(get_span())
            out.append(match.span())
        return out
"""


def test_an_optional_attribute_and_a_match_method(make_repo):
    root = make_repo({"pkg/__init__.py": "", "pkg/console.py": CONSOLE, "pkg/style.py": STYLE})
    run_index(root)
    project = open_project(root)
    gen = project.store.current_generation("live")
    span = find_references(gen, project.id, "live", "Measurement.span", path="pkg/style.py", kind="calls")
    assert span["references"] == [], span["references"]
    assert ("pkg/style.py", 18) in _sites(root, "Color.from_rgb"), _sites(root, "Color.from_rgb")

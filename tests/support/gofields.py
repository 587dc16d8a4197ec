"""Go fixtures shared by the tests of calls on a field's value (`s.engine.handle(x)`): two types
with a method of the same name, so that a call's guess by name is ambiguous."""
from __future__ import annotations

from pathlib import Path

from .incremental import call_targets
from .repos import indexed_files

GO_MOD = "module example.com/m\n\ngo 1.22\n"
TYPES = '''\
package a

type Engine struct{}

func (e *Engine) handle(x int) {}

func (e *Engine) spawn() *Other { return nil }

type Other struct{}

func (o *Other) handle(x int) {}
'''


def marker_line(text: str, marker: str) -> int:
    """The 1-based line of `text` holding `marker`."""
    return next(i + 1 for i, line in enumerate(text.splitlines()) if marker in line)


def indexed_call_targets(tmp_path: Path, monkeypatch, files: dict[str, str]) -> dict:
    """`call_targets` of a Go module of `files` (go.mod and the shared TYPES added), indexed in a
    private home that CRUXE_HOME then names."""
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", {"go.mod": GO_MOD, "a/types.go": TYPES, **files})
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    return call_targets(root)

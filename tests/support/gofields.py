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


def assert_edit_moves_call(root: Path, tmp_path: Path, monkeypatch, edited: str, text: str,
                           call: tuple[str, int], target: str) -> None:
    """After `edited` gets `text`, the `handle` call at `call` (path, line) goes to `target` in a
    fresh whole index, and an incremental sync gives the same edge table."""
    from .incremental import symbol_names, synced_and_whole

    synced, whole = synced_and_whole(root, tmp_path, monkeypatch, lambda r: (r / edited).write_text(text))
    names = symbol_names(root)
    assert [names[r[5]] for r in whole if r[:2] == call and r[3] == "handle"] == [target]
    assert synced == whole

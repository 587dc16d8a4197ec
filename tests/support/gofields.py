"""Go fixtures shared by the tests of calls on a field's value (`s.engine.handle(x)`): two types
with a method of the same name, so that a call's guess by name is ambiguous."""
from __future__ import annotations

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

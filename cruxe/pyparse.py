"""Python's own parser, one thread at a time.

CPython 3.11 keeps the AST constructor's recursion depth in per-interpreter state, not per
thread. When two threads build trees at once (the HTTP server answers on several threads) and
one is switched out mid-construction, the other's depth check fails with `SystemError: AST
constructor recursion depth mismatch` (python/cpython gh-106905 and its neighbours; seen in CI in
a search during concurrent syncs). Every `ast.parse` and `ast.literal_eval` in Cruxe goes
through this module, which holds one lock around them: the trees are small (a stub's text, one
literal), so the lock costs nothing measurable.
"""
from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str) -> ast.Module:
    """`ast.parse(source)`; raises what it raises (SyntaxError, ValueError, RecursionError)."""
    with _LOCK:
        return ast.parse(source)


def literal_eval(source: str):
    """`ast.literal_eval(source)`; raises what it raises."""
    with _LOCK:
        return ast.literal_eval(source)

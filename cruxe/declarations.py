"""Does a callable definition have a body? (spec 04 departure: bodies before declarations)

An interface member, a Protocol or abstract stub, a trait method without a default, a
`declare`d function or class and an overload's signature are definitions an agent asked for by name
rarely wants first: the function that does the work is elsewhere (or below). Deciding needs the
definition's text, which the snippets index already stores (chunks cover every file), so no
file is read from disk. `query` ranks by it, `refs` heads an overloaded group with the
implementation.
"""
from __future__ import annotations

import ast
import re
import textwrap

from . import pyparse
from .model import TS_FAMILY, normalize_signature
from .store import Chunk, Symbol, chunks

CALLABLE_KINDS = frozenset({"function", "method"})
# A stub is short; a longer span is a body whatever it says, and reading it would cost for nothing.
MAX_STUB_LINES = 40
_BRACE_LANGUAGES = frozenset({"rust", "go", "typescript", "tsx", "javascript"})
_ASSIGNED = re.compile(r"(?<![=!<>])=(?![=>])")
# TypeScript's `declare class`: the class's type only, its implementation elsewhere (signals-core
# declares `class Signal` and implements it as `function Signal` with ES5 prototypes; a `.d.ts`
# beside the JavaScript source)
_AMBIENT_CLASS = re.compile(r"(?:export\s+)?(?:default\s+)?declare\s+(?:abstract\s+)?class\b")


def declarations(gen, repo: str, ref: str, rows: list[Symbol]) -> set[str]:
    """symbol_ids of the callable definitions that are declarations without a working body."""
    out: set[str] = set()
    for r in rows:
        if r.kind == "class" and r.language in TS_FAMILY and _AMBIENT_CLASS.match(r.signature or ""):
            out.add(r.symbol_id)
            continue
        if r.kind not in CALLABLE_KINDS or r.line_end - r.line_start >= MAX_STUB_LINES:
            continue
        covering = chunks(gen, repo, ref, r.path, (r.line_start, r.line_end))
        if is_declaration(r.language, r.signature, _text(covering, r.line_start, r.line_end)):
            out.add(r.symbol_id)
    return out


def _text(covering: list[Chunk], start: int, end: int) -> str:
    lines: list[str] = []
    for c in covering:
        body = c.source.split("\n")
        a = int(c.line_start)
        lines += body[max(start - a, 0): max(end - a + 1, 0)]
    return "\n".join(lines)


def is_declaration(language: str, signature: str, text: str) -> bool:
    """True for a callable whose text has no working body; False when unsure."""
    if not text:
        return False
    if language == "python":
        return _python_stub(text)
    if language in _BRACE_LANGUAGES:
        found = _after_signature(signature, text) if language in TS_FAMILY else None
        if found is not None:
            return found
        # an interface/trait member, an overload signature, `declare`/`abstract`: no `{` at
        # all. An arrow function's expression body has no brace either, but it is assigned
        # (`const f = (x) => x + 1`, `get = (k) => ...`): an `=` before the parameters; a `=>`
        # after them is a function type (`action(fn: () => void): this`), still a declaration.
        return "{" not in text and ("=>" not in text or _ASSIGNED.search(text.split("(", 1)[0]) is None)
    return False


_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _after_signature(signature: str, text: str) -> bool | None:
    """Declaration or not, by what follows the stored signature in the text (both
    whitespace-collapsed); None when the signature is not found in it. The signature may hold
    `{` (an object type) and `=>` (a function type): what follows it is the body, an arrow's
    expression, or nothing (`;` at most)."""
    if not signature:
        return None
    flat = normalize_signature(_COMMENT.sub(" ", text))  # the stored signature has none (extraction cuts them)
    if signature.endswith("...") and signature[:-3] in flat:
        # cut at its length limit: a body ends the text with its `}`, a member signature does not
        return not flat.rstrip(" ;,").endswith("}")
    i = flat.find(signature)
    return None if i < 0 else not flat[i + len(signature):].strip(" ;,")


def _python_stub(text: str) -> bool:
    """An abstract method, or a body of only a docstring, `...`, `pass` and
    `raise NotImplementedError`: a Protocol member or an abstract stub."""
    try:
        tree = pyparse.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return False
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    fn = tree.body[0]
    if any(_name(d).endswith("abstractmethod") for d in fn.decorator_list):
        return True
    return all(_stub_statement(s) for s in fn.body)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _stub_statement(s: ast.stmt) -> bool:
    if isinstance(s, ast.Pass):
        return True
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant):
        return s.value.value is Ellipsis or isinstance(s.value.value, str)
    if isinstance(s, ast.Raise) and s.exc is not None:
        return _name(s.exc) == "NotImplementedError"
    return False

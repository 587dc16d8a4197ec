"""Does a callable definition have a body? (spec 04 departure: bodies before declarations)

An interface member, a Protocol or abstract stub, a trait method without a default and a
`declare`d function are definitions an agent asked for by name rarely wants first: the
function that does the work is elsewhere. Deciding needs the definition's text, which the
snippets index already stores (chunks cover every file), so no file is read from disk.
"""
from __future__ import annotations

import ast
import re
import textwrap

from ..languages.typescript import AUGMENTING_KINDS, augments
from ..model import TS_FAMILY, Hit, normalize_signature
from ..store import Chunk, Symbol, chunks, symbols_by_id
from . import signals as sig

CALLABLE_KINDS = frozenset({"function", "method"})
# A stub is short; a longer span is a body whatever it says, and reading it would cost for nothing.
MAX_STUB_LINES = 40
_BRACE_LANGUAGES = frozenset({"rust", "go", "typescript", "tsx", "javascript"})
MAX_BODY_CHECKS = 64  # definitions whose text is read to tell a body from a declaration
_ASSIGNED = re.compile(r"(?<![=!<>])=(?![=>])")


def declarations(gen, repo: str, ref: str, rows: list[Symbol]) -> set[str]:
    """symbol_ids of the callable definitions that are declarations without a working body."""
    out: set[str] = set()
    for r in rows:
        if r.kind not in CALLABLE_KINDS or r.line_end - r.line_start >= MAX_STUB_LINES:
            continue
        covering = chunks(gen, repo, ref, r.path, (r.line_start, r.line_end))
        if is_declaration(r.language, r.signature, _text(covering, r.line_start, r.line_end)):
            out.add(r.symbol_id)
    return out


def augmentations_below_originals(gen, hits: list[Hit]) -> None:
    """Each TypeScript module augmentation among `hits` (`typescript.augments`) scoring at least
    the best definition of the same name and kind that augments nothing (the declaration it
    merges with) gets the `declaration_penalty` that puts it just below that one: a folder named
    like the query (`commands/` holding a file per command, each augmenting `Commands`) must not
    lift every augmentation above the declaration they add to. All stay listed; the explanation
    stays exact."""
    maybe = [h for h in hits if h.result_type == "symbol" and h.language in TS_FAMILY and h.kind in AUGMENTING_KINDS]
    if not maybe:
        return
    rows = symbols_by_id(gen, [h.symbol_id for h in maybe])
    parents = symbols_by_id(gen, [r.parent_symbol_id for r in rows.values() if r.parent_symbol_id])
    augmenting = {i for i, r in rows.items()
                  if r.parent_symbol_id in parents and augments(r.kind, parents[r.parent_symbol_id].signature)}
    if not augmenting:
        return
    best: dict[tuple[str, str], float] = {}
    for h in hits:
        if h.result_type == "symbol" and h.symbol_id not in augmenting:
            key = (h.name.lower(), h.kind)
            best[key] = max(best.get(key, h.score), h.score)
    for h in hits:
        top = best.get((h.name.lower(), h.kind)) if h.symbol_id in augmenting else None
        if top is not None and h.score >= top:
            sig.recompose(h, declaration_penalty=top - h.score + h.signals["declaration_penalty"]
                          + sig.DECLARATION_PENALTY)


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
        tree = ast.parse(textwrap.dedent(text))
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

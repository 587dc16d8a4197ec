"""Shared vocabulary of the resolvers: confidence labels, targets, small helpers.

Confidence says which evidence tied an edge to its symbol, best first:
`scope` (defined in the same file, visible from the use), `import` (an explicit import or a
module path), `receiver` (the receiver's type is visible in the syntax: self/this/cls, a
class name, `super()`, a constructor call, an annotated parameter, a TypeScript local whose
declaration writes its type, a call of a method whose signature writes its return type),
`unique_name` (one definition of that name in the repository fits). An edge that stays unresolved keeps `to_symbol_id = NULL` and says
why: `ambiguous` (several definitions fit and nothing picks one), `external` (it names
something outside the repository: a builtin, the standard library, a dependency),
`module` (it names a module or package, which is not a symbol), `opaque` (a method name
the standard types use everywhere, on a receiver of unknown type: no definition in the
repository can ever settle it, so incremental syncs need not look at it again), `unknown`
(nothing found). Nothing is guessed: a tie is `ambiguous`, never the first candidate.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..languages._common import closing_bracket
from .graph import Edge, Graph, Sym

SCOPE, IMPORT, RECEIVER, UNIQUE = "scope", "import", "receiver", "unique_name"
AMBIGUOUS, EXTERNAL, MODULE, OPAQUE, UNKNOWN = "ambiguous", "external", "module", "opaque", "unknown"
RESOLVED = frozenset({SCOPE, IMPORT, RECEIVER, UNIQUE})

Resolution = tuple[str | None, str]  # (to_symbol_id, confidence)

# Import chains and class hierarchies are followed at most this deep: real code needs a
# handful of hops; a cycle or a pathological chain must not cost more.
MAX_HOPS = 8

CALLABLE_KINDS = frozenset({"function", "method"})
TYPE_KINDS = frozenset({"class", "struct", "enum", "trait", "interface", "type_alias"})
# a segment after the first may be an ES private member (`this.#cache`)
_IDENT_CHAIN = re.compile(r"^[A-Za-z_$][\w$]*(?:\.#?[A-Za-z_$][\w$]*)*$")
_CTOR_CALL = re.compile(r"^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(.*\)$", re.S)


@dataclass(frozen=True, slots=True)
class Module:
    """A module/package/directory as a resolution target (not a symbol)."""

    name: str
    path: str | None  # its file (Python/TS) or directory (Go); "" in the repo with no file
    # (a namespace package); None when outside the repository


Target = Sym | Module | None


def ident_chain(text: str) -> list[str] | None:
    """`a.b.c` -> [a, b, c]; None when the text is not a plain dotted identifier chain."""
    return text.split(".") if _IDENT_CHAIN.match(text) else None


_SEGMENT = re.compile(r"#?[A-Za-z_$][\w$]*")
MAX_CHAIN_CHARS = 400  # a receiver longer than this is a whole expression, not a chain to follow


def call_chain(text: str) -> list[tuple[str, bool]] | None:
    """`this.#cache.build(key).fetch()` -> [(this, False), (#cache, False), (build, True),
    (fetch, True)]: each segment's name and whether it is called (once, right after it);
    TypeScript's `!` and `?.` change nothing about a type. None unless the text is such a chain
    (an index, a call of a call, anything else)."""
    if len(text) > MAX_CHAIN_CHARS:
        return None
    out: list[tuple[str, bool]] = []
    i, n = 0, len(text)
    while True:
        m = _SEGMENT.match(text, i)
        if m is None or (not out and m.group().startswith("#")):
            return None
        i = m.end()
        if text.startswith("!", i):
            i += 1
        called = text.startswith("(", i) or text.startswith("?.(", i)
        if called:
            close = closing_bracket(text, text.index("(", i))
            if close is None:
                return None
            i = close + 1
            if text.startswith("!", i):
                i += 1
        out.append((m.group(), called))
        i = _past_spaces(text, i)  # a chain written over lines (`this.#client\n  .build()`)
        if i == n:
            return out
        if text.startswith("?.", i):
            i = _past_spaces(text, i + 2)
        elif text.startswith(".", i):
            i = _past_spaces(text, i + 1)
        else:
            return None


def _past_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def constructor_chain(text: str) -> list[str] | None:
    """`Foo(x)` / `pkg.Foo()` -> [pkg, Foo]: a receiver that is a call of a dotted name."""
    m = _CTOR_CALL.match(text)
    if m is None or m.group(1).endswith(")"):
        return None
    return m.group(1).split(".")


# `name: Type` inside a signature: the name, then (matched from right after its colon) one
# named type, possibly generic, quoted or Optional[...], possibly `| null`, `| undefined` or
# `| None` (absent or that type); anything else (real unions, function types, literals) does
# not match. Rust's `&'a mut` before the type is allowed.
_NAME_COLON = re.compile(r"(?<![\w$.#])(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*:(?!:)\s*")
_TYPE_HEAD = re.compile(
    r"[\"']?(?:Optional\[)?&?\s*(?:'\w+\s+)?(?:mut\s+)?([A-Za-z_$][\w$.]*(?:::[A-Za-z_]\w*)*)\s*"
    r"(?:<[^<>]*(?:<[^<>]*>[^<>]*)*>|\[[^\[\]]*\])?(?:\s*\|\s*(?:null|undefined|None)\b)*"
    r"[\"']?\]?\s*(?=[,)=;{]|$)")
_PARAM_NAMES = re.compile(r"[(,]\s*(?:\*{1,2}|\.\.\.)?\s*([A-Za-z_$][\w$]*)\s*[?]?\s*(?=[:,)=])")


class Signatures:
    """Parsed signatures, memoized per signature text for the life of one resolution."""

    def __init__(self) -> None:
        self._types: dict[str, dict[str, str | None]] = {}
        self._params: dict[str, frozenset[str]] = {}

    def declared_type(self, signature: str, name: str) -> str | None:
        """The declared type of parameter or field `name` when it is one named type
        (`x: Foo`, `x: Foo<T>`, `x?: a.Foo`, `x: "Foo"`, `x: Optional[Foo]`, `x: &mut a::B`)."""
        types = self._types.get(signature)
        if types is None:
            types = {}
            for m in _NAME_COLON.finditer(signature):
                t = _TYPE_HEAD.match(signature, m.end())
                types.setdefault(m.group(1), t.group(1) if t else None)
            self._types[signature] = types
        return types.get(name)

    def has_parameter(self, signature: str, name: str) -> bool:
        params = self._params.get(signature)
        if params is None:
            params = frozenset(_PARAM_NAMES.findall(signature))
            self._params[signature] = params
        return name in params


def enclosing_symbol(g: Graph, sym: Sym | None, kinds: frozenset[str]) -> Sym | None:
    """The nearest symbol of one of `kinds` at or above `sym` in its file."""
    hops = 0
    while sym is not None and hops < 64:
        if sym.kind in kinds:
            return sym
        sym = g.get(sym.parent)
        hops += 1
    return None


def first(syms: list[Sym]) -> Sym | None:
    """The first definition (by line) of a name bound several times in one scope, as
    redefinitions (`try: def f` / `except: def f`, property setters) bind one name."""
    return min(syms, key=lambda s: (s.line, s.id)) if syms else None


def unique(syms: list[Sym]) -> Resolution:
    """One candidate -> resolved by unique name; several -> ambiguous; none -> unknown."""
    if len(syms) == 1:
        return syms[0].id, UNIQUE
    return None, AMBIGUOUS if syms else UNKNOWN


def as_resolution(target: Target, confidence: str) -> Resolution:
    if isinstance(target, Sym):
        return target.id, confidence
    if isinstance(target, Module):
        return None, MODULE if target.path is not None else EXTERNAL
    return None, UNKNOWN


class LanguageResolver:
    """One language's rules. `resolve(edge)` must be pure given the graph."""

    def __init__(self, g: Graph):
        self.g = g
        self.signatures = Signatures()  # parsed signatures, shared by all of this resolver's rules

    def resolve(self, e: Edge) -> Resolution:  # pragma: no cover - interface
        raise NotImplementedError


class ScopedResolver(LanguageResolver):
    """Rules for languages with lexical scopes and imports (Python, TypeScript/JS): a
    subclass says what a bare name means (`bare`), what `target.name` is (`attribute_of`),
    how an import edge and an attribute use resolve, and which names are globals."""

    GLOBALS: frozenset[str] = frozenset()
    _type_depth = 0  # nesting of named_type lookups in progress (instance attribute once set)

    def resolve(self, e: Edge) -> Resolution:
        if e.edge_type == "imports":
            return self.import_edge(e)
        if not e.receiver:
            target, conf = self.bare(e.path, e.from_id, e.to_name)
            if target is None and e.to_name in self.GLOBALS:
                return None, EXTERNAL
            return as_resolution(target, conf)
        return self.attribute(e)

    def named_type(self, path: str, scope: str | None, dotted: str, kinds: frozenset[str]) -> Sym | None:
        """The definition a dotted type name written at `scope` of `path` denotes, when it
        is one of `kinds`. A type's member typed by the type itself (or any longer loop of
        declared types) would recurse forever: past MAX_HOPS nested lookups the answer is
        None (the edge stays unresolved)."""
        parts = ident_chain(dotted)
        if not parts or self._type_depth >= MAX_HOPS:
            return None
        self._type_depth += 1
        try:
            target, _ = self.bare(path, scope, parts[0])
            for part in parts[1:]:
                target = self.attribute_of(target, part) if target is not None else None
        finally:
            self._type_depth -= 1
        return target if isinstance(target, Sym) and target.kind in kinds else None

    def bare(self, path: str, from_id: str | None, name: str) -> tuple[Target, str]:  # pragma: no cover
        raise NotImplementedError

    def attribute_of(self, target: Target, name: str) -> Target:  # pragma: no cover
        raise NotImplementedError

    def import_edge(self, e: Edge) -> Resolution:  # pragma: no cover
        raise NotImplementedError

    def attribute(self, e: Edge) -> Resolution:  # pragma: no cover
        raise NotImplementedError

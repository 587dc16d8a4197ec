"""A member a Python class inherits: what a qualified `Class.member` means when no definition
matches it as written because the class does not define `member` itself but one of its
repository bases does (`HttpResponse.set_cookie` is `HttpResponseBase.set_cookie`,
`LRUCache.maxsize` is `Cache.maxsize`). locate_symbol and find_references read a qualified
name through it only when nothing else matches it. And the other way (`overriding_members`): a
member the class does not define, nor any repository base, but its subclasses do
(cachetools' `Cache.popitem`, inherited from `collections.abc.MutableMapping` and overridden by
every cache): where it is defined in the repository is those overrides; locate_symbol lists
them, and find_references takes them as the name's definitions, when nothing else matches.

Read from the index only: a class's bases are the names its header lists (`class C(A, m.B,
metaclass=M)`: `A` and `B`), each the class so named that the header's resolved reference
reaches (the resolver's word on which `B` it is); they are searched depth first, left to right,
as Python's method resolution order does for the usual single and mixin hierarchies.
"""
from __future__ import annotations

from .languages.python import base_expressions
from .store import Generation, Symbol, edges_to, symbols_by_id, symbols_named

MAX_DEPTH = 8  # bases above bases followed
MAX_CLASSES = 8  # classes named like the qualifier tried
MAX_SUBCLASSES = 64  # classes defining a member so named whose bases are followed (each a few reads)
MAX_HEAD_LINES = 20  # a class's decorators and header, where its bases are written


def inherited_members(gen: Generation, segments: list[str]) -> list[Symbol]:
    """The definitions `segments` (`[..., Class, member]`) reach through the bases of the Python
    classes named `Class` (exactly, as written), one per class at most, in the classes' order."""
    if len(segments) < 2:
        return []
    owner, name = segments[-2], segments[-1]
    classes = [s for s in symbols_named(gen, owner.lower())
               if s.kind == "class" and s.name == owner and s.language == "python"]
    members: dict[str, Symbol] = {}
    for s in symbols_named(gen, name.lower()):
        if s.name == name and s.parent_symbol_id is not None:
            members.setdefault(s.parent_symbol_id, s)  # a redefinition (a setter): its first
    found: list[Symbol] = []
    for cls in classes[:MAX_CLASSES]:
        hit = _through_bases(gen, cls, members, 0, {cls.symbol_id})
        if hit is not None and hit not in found:
            found.append(hit)
    return found


def overriding_members(gen: Generation, segments: list[str]) -> list[Symbol]:
    """The definitions of `member` (`segments`: `[..., Class, member]`) in the Python classes
    whose bases reach a class named `Class` (exactly, as written), in (path, line) order: the
    overrides of a member `Class` inherits from outside the repository or leaves to them."""
    if len(segments) < 2:
        return []
    owner, name = segments[-2], segments[-1]
    targets = {s.symbol_id for s in symbols_named(gen, owner.lower())
               if s.kind == "class" and s.name == owner and s.language == "python"}
    if not targets:
        return []
    members = sorted((s for s in symbols_named(gen, name.lower())
                      if s.name == name and s.language == "python" and s.parent_symbol_id is not None),
                     key=lambda s: (s.path, s.line_start))
    parents = symbols_by_id(gen, list(dict.fromkeys(s.parent_symbol_id for s in members))[:MAX_SUBCLASSES])
    below = {pid for pid, cls in parents.items()
             if cls.kind == "class" and pid not in targets and _reaches(gen, cls, targets, 0, {pid})}
    return [s for s in members if s.parent_symbol_id in below]


def _reaches(gen: Generation, cls: Symbol, targets: set[str], depth: int, seen: set[str]) -> bool:
    """Whether one of `cls`'s repository bases, or theirs, is one of `targets`."""
    if depth >= MAX_DEPTH:
        return False
    for base in _bases(gen, cls):
        if base.symbol_id in targets:
            return True
        if base.symbol_id not in seen:
            seen.add(base.symbol_id)
            if _reaches(gen, base, targets, depth + 1, seen):
                return True
    return False


def _through_bases(gen: Generation, cls: Symbol, members: dict[str, Symbol], depth: int,
                   seen: set[str]) -> Symbol | None:
    if depth >= MAX_DEPTH:
        return None
    for base in _bases(gen, cls):
        if base.symbol_id in seen:
            continue
        seen.add(base.symbol_id)
        hit = members.get(base.symbol_id) or _through_bases(gen, base, members, depth + 1, seen)
        if hit is not None:
            return hit
    return None


def _bases(gen: Generation, cls: Symbol) -> list[Symbol]:
    """The repository classes `cls`'s header names as bases, in order: for each name, the class
    so named that a resolved reference written in the header reaches."""
    window = {(cls.path, line) for line in range(cls.line_start, cls.line_start + MAX_HEAD_LINES)}
    out = []
    for name in base_names(cls.signature or ""):
        tied = next((s for s in symbols_named(gen, name.lower())
                     if s.kind == "class" and s.name == name
                     and any((e.path, e.line) in window for e in edges_to(gen, [s.symbol_id], "references"))), None)
        if tied is not None:
            out.append(tied)
    return out


def base_names(signature: str) -> list[str]:
    """The last name of each base a Python class header lists: `class C(A, m.B[T], metaclass=M)`
    gives `["A", "B"]` (keyword arguments are no bases)."""
    if not signature.lstrip().startswith("class "):
        return []
    names = []
    for expr in base_expressions(signature):
        last = expr.split("[", 1)[0].strip().rsplit(".", 1)[-1]
        if last.isidentifier():
            names.append(last)
    return names

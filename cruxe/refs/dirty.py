"""The resolver's dirty-name rule: which names a batch that replaces files makes worth
resolving again elsewhere (`store.writer` records them inside the batch's transaction;
`resolve.resolve_edges` reads them back and widens them here, over the job's final graph).

An edge of an unchanged file can depend on a changed file in two ways. By its name: a
definition of that name appeared or vanished (the edge may now fit it, or lose it, or a
unique name became ambiguous), or one on its way changed (an inherited method now overridden
in between). Or by its receiver's type: `self.x.run()` resolved through `x`'s declared type,
`make().run()` through `make`'s return annotation, `self.run()` through the class's bases,
`Foo().run()` through the import that binds `Foo`. A definition's type facts are in its
signature (the annotation, return type or base list, as written), so the rule compares
definitions with their kind and signature: a changed signature makes the name dirty as
surely as a new definition does. What the resolution then retries, for each dirty name:

- every edge by that name but `opaque` ones (no definition can settle those), whatever it
  resolved to and how: what it passed through may have changed under it;
- every edge whose receiver names it (`receiver_names`): what the receiver's type is may
  have changed;
- for a name of a type (a class, interface, struct...), the same for the names of its members
  and its ancestors' (`type_members`): a base list that changes, or an import that now binds
  another class of that name, changes which definition every inherited member is. A changed
  type's own base names (old and new) are dirty too, so the members of an ancestor it no
  longer has are retried.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from ..store import name_tail
from .common import MAX_HOPS, TYPE_KINDS
from .graph import Graph, Sym

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def dirty_names(old_defs: set[tuple], new_defs: set[tuple], old_imports: set[tuple],
                new_imports: set[tuple]) -> set[str]:
    """The names whose definitions or imports really changed (added, removed or given another
    signature, not merely moved: compared as (path, qualified name, name, kind, signature)
    and (path, name, module, alias) before and after): edges by those names elsewhere, or
    through them, may now resolve differently. A changed type also makes the names its
    signature writes dirty (its bases, old and new); an import makes the last segment of its
    name dirty, and the alias it binds."""
    changed = old_defs ^ new_defs
    names = {d[2] for d in changed}
    for d in changed:
        if d[3] in TYPE_KINDS:
            names.update(_IDENT.findall(d[4]))
    for _, to_name, _, alias in old_imports ^ new_imports:
        names.add(name_tail(to_name))
        if alias:
            names.add(alias)
    return names


def receiver_names(receiver: str) -> set[str]:
    """The names a receiver's text writes (`self.x` -> {self, x}; `make(a).y` -> {make, a, y})."""
    return set(_IDENT.findall(receiver))


def type_members(g: Graph, names: Iterable[str], bases: Callable[[Sym], list[Sym | None]]) -> set[str]:
    """The names of the members of every type named in `names` and of its ancestors (`bases`:
    the language's own reading of a type's base list), each hierarchy followed at most
    MAX_HOPS deep."""
    out: set[str] = set()
    seen: set[str] = set()
    todo = [(s, 0) for n in names for s in g.named(n) if s.kind in TYPE_KINDS]
    while todo:
        sym, hops = todo.pop()
        if sym.id in seen or hops > MAX_HOPS:
            continue
        seen.add(sym.id)
        out.update(g.children_of(sym.path, sym.id))
        todo.extend((b, hops + 1) for b in bases(sym) if b is not None)
    return out

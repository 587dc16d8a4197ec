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
surely as a new definition does (a type's signature cut by the length limit, whose text the Go
resolver reads whole, whenever its file is replaced). What the resolution then retries, for each dirty name:

- every edge by that name, whatever it resolved to and how: what it passed through may have
  changed under it (an `opaque` one too: a Go call of a common method name on a typed
  interface is opaque until an interface it embeds declares the method);
- every edge whose receiver names it (`receiver_names`): what the receiver's type is may
  have changed; so also for the top-level variables whose signature writes it (`resolve.
  _with_values`): a call on a variable of another file is typed through its declaration;
- for the names of the types a changed type's base list writes (old and new) and those an
  import binds, the same for the names of their members and their ancestors' (`type_members`):
  a base list that changes, or an import that now binds another class of that name, changes
  which definition every inherited member is (a changed type's own members need not be: the
  edges into them went back to pending with its file);
- for a file that appears or goes (definitions or imports in it before and none now, or the
  reverse), the names an import of it ends with: its own stem and its directory's name. A
  module or a package can begin or cease to exist with it (Go's package is its directory),
  and the imports of it elsewhere, and the uses through them (`pkg.Name`: the receiver names
  the package), then resolve otherwise.
"""
from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

from ..store import name_tail
from .common import MAX_HOPS, TYPE_KINDS
from .graph import Graph, Sym

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


def dirty_names(old_defs: set[tuple], new_defs: set[tuple], old_imports: set[tuple],
                new_imports: set[tuple]) -> tuple[set[str], set[str]]:
    """(names, type names): the names whose definitions or imports really changed (added,
    removed or given another signature, not merely moved: compared as (path, qualified name,
    name, kind, signature) and (path, name, module, alias) before and after; a type's signature
    cut by the length limit counts as changed, what follows the cut unseen), and the names
    an import of a file that appears or goes ends with, whose edges elsewhere, or through
    them, may now resolve differently; and the names whose types' members are dirty too:
    those a changed type's signature writes (its bases, old and new; not its own name: the
    edges into its own members were sent back to pending with its file), and those an import
    binds (the last segment of its name, and its alias)."""
    # a type whose signature the length limit cut may have changed after the cut (a resolver
    # reads such a type's text whole: `golang.GoResolver.parts`)
    changed = (old_defs ^ new_defs) | {d for d in old_defs | new_defs
                                       if d[3] in TYPE_KINDS and d[4].endswith("...")}
    names = {d[2] for d in changed}
    types: set[str] = set()
    for d in changed:
        if d[3] in TYPE_KINDS:
            types.update(_written_besides_name(d[4], d[2]))
    for _, to_name, _, alias in old_imports ^ new_imports:
        types.add(name_tail(to_name))
        if alias:
            types.add(alias)
    return names | types | _imported_as(old_defs, new_defs, old_imports, new_imports), types


def _imported_as(old_defs: set[tuple], new_defs: set[tuple], old_imports: set[tuple],
                 new_imports: set[tuple]) -> set[str]:
    """The names an import of a file that appears or goes ends with (`a/b/c.py` -> {c, b}):
    a file with definitions or imports on one side only. A file that merely empties is taken
    too: one more name retried costs less than a stale import."""
    before = {d[0] for d in old_defs} | {i[0] for i in old_imports}
    after = {d[0] for d in new_defs} | {i[0] for i in new_imports}
    out: set[str] = set()
    for path in before ^ after:
        directory, base = posixpath.split(path)
        out.add(base.split(".", 1)[0])
        if directory:
            out.add(posixpath.basename(directory))
    return out


def _written_besides_name(signature: str, name: str) -> list[str]:
    """The names a type's signature writes but its own name where it is declared: a base of
    the same name (`class Serializer(base.Serializer)`) is one of them."""
    names = _IDENT.findall(signature or "")
    if name in names:
        names.remove(name)  # the first: the declaration's
    return names


def receiver_names(receiver: str) -> set[str]:
    """The names a receiver's text writes (`self.x` -> {self, x}; `make(a).y` -> {make, a, y})."""
    return set(_IDENT.findall(receiver))


def type_members(g: Graph, names: Iterable[str], bases: Callable[[Sym], list[Sym | None]],
                 members: Callable[[Sym], Iterable[str]] | None = None) -> set[str]:
    """The names of the members of every type named in `names` and of its ancestors (`bases`:
    the language's own reading of a type's base list), each hierarchy followed at most
    MAX_HOPS deep; `members`: a type's member names that are no children of it (Go's
    methods and those its struct promotes from the types it embeds)."""
    out: set[str] = set()
    seen: set[str] = set()
    todo = [(s, 0) for n in names for s in g.named(n) if s.kind in TYPE_KINDS]
    while todo:
        sym, hops = todo.pop()
        if sym.id in seen or hops > MAX_HOPS:
            continue
        seen.add(sym.id)
        out.update(g.children_of(sym.path, sym.id))
        if members is not None:
            out.update(members(sym))
        todo.extend((b, hops + 1) for b in bases(sym) if b is not None)
    return out

"""Which definitions are a type's fields: a `variable` whose parent is a type (a Go struct's
field, a Python class's annotated attribute, a TypeScript class property).

A field is reached through its type (`o.Total`, `Order.Total`), so a name written bare that also
names a function, a method or a type means those first: `locate_symbol` ranks the fields after
them, and `find_references` answers the others and lists the fields apart."""
from __future__ import annotations

from typing import Sequence

from .store import Symbol, symbols_by_id

# the kinds whose variables are fields
FIELD_OWNERS = frozenset(("struct", "class", "interface", "trait", "enum"))


def are_fields(gen, rows: Sequence[Symbol]) -> list[bool]:
    """Per row: whether it is a type's field (one read of the parents, none without a variable)."""
    wanted = sorted({r.parent_symbol_id for r in rows if r.kind == "variable" and r.parent_symbol_id})
    parents = symbols_by_id(gen, wanted) if wanted else {}
    return [r.kind == "variable" and r.parent_symbol_id in parents and parents[r.parent_symbol_id].kind in FIELD_OWNERS
            for r in rows]

"""Which definitions are a type's fields: a `variable` whose parent is a type (a Go or Rust
struct's field, a Python class's attribute, a TypeScript class property) or an enum's variant
(a Rust struct variant's field, `Event::Key::code`).

A field is reached through its type (`o.Total`, `Order.Total`), so a name that also names a
function, a method or a type means those first: `locate_symbol` ranks the fields after them,
and `find_references` answers the others and lists the fields apart."""
from __future__ import annotations

from typing import Sequence

from .store import Symbol, symbols_by_id

# the kinds whose variables are fields
FIELD_OWNERS = frozenset(("struct", "class", "interface", "trait", "enum"))


def are_fields(gen, rows: Sequence[Symbol]) -> list[bool]:
    """Per row: whether it is a type's field (a read of the parents, and of the variants' enums;
    none without a variable)."""
    wanted = sorted({r.parent_symbol_id for r in rows if r.kind == "variable" and r.parent_symbol_id})
    parents = symbols_by_id(gen, wanted) if wanted else {}
    variants = sorted({p.parent_symbol_id for p in parents.values() if p.kind == "constant" and p.parent_symbol_id})
    enums = {i for i, s in symbols_by_id(gen, variants).items() if s.kind == "enum"} if variants else set()
    return [r.kind == "variable" and r.parent_symbol_id in parents
            and (parents[r.parent_symbol_id].kind in FIELD_OWNERS or parents[r.parent_symbol_id].parent_symbol_id in enums)
            for r in rows]

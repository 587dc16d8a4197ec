"""The resolver's dirty-name rule: which names a batch that replaces files makes worth
resolving again elsewhere (`store.writer` records them inside the batch's transaction;
`resolve.resolve_edges` reads them back)."""
from __future__ import annotations

from ..store import name_tail


def dirty_names(old_defs: set[tuple], new_defs: set[tuple], old_imports: set[tuple],
                new_imports: set[tuple]) -> set[str]:
    """The names whose definitions or imports really changed (added or removed, not merely
    moved: compared as (path, qualified name, name) and (path, name, module, alias) before and
    after): edges by those names elsewhere may now resolve differently. An import makes the
    last segment of its name dirty, and the alias it binds."""
    names = {n for _, _, n in old_defs ^ new_defs}
    for _, to_name, _, alias in old_imports ^ new_imports:
        names.add(name_tail(to_name))
        if alias:
            names.add(alias)
    return names

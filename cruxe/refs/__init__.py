"""References: import/call/use edges resolved to symbols, and `find_references`.

`resolve_edges` runs after every index job (index._index_into); `find_references` answers
the tool of the same name. See resolve.py for the bookkeeping that keeps resolution right
across incremental syncs and crashes, and common.py for what each confidence means.
"""
from .find import find_references, next_actions
from .resolve import RESOLVER_VERSION, resolve_edges

__all__ = ["find_references", "next_actions", "resolve_edges", "RESOLVER_VERSION"]

"""Fallback rules for a language without its own resolver: the file's own top-level
definition of the name, else the one definition of that name in the same language."""
from __future__ import annotations

from ..store import name_tail
from .common import SCOPE, LanguageResolver, Resolution, first, unique
from .graph import Edge


class GenericResolver(LanguageResolver):
    def resolve(self, e: Edge) -> Resolution:
        name = name_tail(e.to_name)
        if not e.receiver and e.edge_type != "imports":
            hit = first(self.g.top_level(e.path, name))
            if hit is not None:
                return hit.id, SCOPE
        lang = self.g.files().get(e.path, "")
        return unique([s for s in self.g.named(name) if s.language == lang])

"""Bodies before declarations in a ranked list (spec 04 departure): which definitions are
declarations is `cruxe.declarations`'; TypeScript module augmentations below the declaration
they merge with is here.
"""
from __future__ import annotations

from ..languages.typescript import AUGMENTING_KINDS, augments
from ..model import TS_FAMILY, Hit
from ..store import symbols_by_id
from . import signals as sig

MAX_BODY_CHECKS = 64  # definitions whose text is read to tell a body from a declaration


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

"""The query engine: `locate_symbol`, `search_code` and the pure retrieval `plan`.

Pure functions of a store Generation (no transport, no printing). They produce ranked hits
(`model.Hit` records); `cruxe.shape` turns hits into payloads.

Modules: `plan` (query -> plan, pure; the store runs its channels: `store.search_index`),
`search` (fusion and ranking), `messages` (a pasted message's steps that need the index: is a
sentence a message the code emits, whose message explains the paste), `locate` (definition
lookup), `signals` (spec 04 numbers), `context` (detail_level=context extras).
"""
from __future__ import annotations

from .locate import locate_symbol
from .planner import Plan, plan
from .search import plan_query, search_code

__all__ = ["Plan", "locate_symbol", "plan", "plan_query", "search_code"]

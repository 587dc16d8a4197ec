"""`locate_symbol`: definition-first lookup by name or qualified name (FR-009).

SQLite only (the `name_lower` index): every definition of the last segment's name (a name no
definition has while an ECMAScript private member has it with its `#`, `calculateWait` for
`#calculateWait`, means that member: `intent.private_spelling`), then
- a qualified query (`QuerySet.filter`, `auth::jwt::validate`, `http.Server.ListenAndServe`)
  keeps the rows whose qualified name ends with the given path at a segment boundary (`.`
  and `::` alike); when none does, the rows whose Rust crate name (its Cargo.toml's), path and
  qualifier contain the query's qualifier segments in order (`json.JSONDecoder` finds
  `json.decoder.JSONDecoder`, `crossbeam_channel::bounded` finds `bounded` in
  `crossbeam-channel/src/channel.rs`, `hashbrown::HashMap::insert` finds `map::HashMap::insert`
  in a repository whose root Cargo.toml names `hashbrown`):
  `intent.qualified_matches`, the rule find_references reads its target by too; a Python
  package's public name (`attr.evolve`, `httpx.get`) also finds, and lists first, the
  definition the package re-exports (`reexports.reexported`: its imports, star imports);
  when none of these matches, a Python class's member it inherits from a repository base
  (`HttpResponse.set_cookie` is `HttpResponseBase.set_cookie`: `inherited.inherited_members`),
  else the overrides of that member in the class's subclasses (cachetools' `Cache.popitem`,
  which `Cache` inherits from `collections.abc`: `inherited.overriding_members`);
- kind / role / language filters with spec 04 intersection semantics;
- exact case first: when some of the remaining rows match the name's case exactly, only
  those are kept, otherwise the lookup is case-insensitive. For a qualified query the scope's
  case is a ranking tier instead: rows whose qualified path matches as written
  (`formatError.Error`) come before the case-insensitive ones (`FormatError.Error`), which stay
  listed;
- a method whose type the qualified query does not name is a tier after the rest: it is
  reached through its type (`serde_json::from_str` is the crate's function, re-exported at its
  root, before `Deserializer::from_str`);
- a name written as a Rust macro call (`select!`) is a tier too: the `macro_rules!`
  definitions first, the same-named functions and methods after.
Then the spec 04 signals (bm25_score is 0.0: there is no full-text base), a TypeScript module
augmentation just below the declaration it merges with (`bodies.augmentations_below_originals`),
and a full tie-break.
"""
from __future__ import annotations


from .. import intent as intent_mod
from ..errors import CruxeError
from ..model import KIND_VALUES, ROLE_KINDS, Hit, is_test_path, normalize_kind
from ..crates import CrateNames
from ..declarations import declarations
from ..fields import are_fields
from ..inherited import inherited_members, overriding_members
from ..reexports import reexported
from ..impls import impl_trait
from ..languages.rust_traits import STD_TRAIT_METHODS, impl_owner
from ..store import Symbol, outline_rows, symbols_named
from . import signals as sig
from .bodies import MAX_BODY_CHECKS, augmentations_below_originals
from .context import enrich
from .planner import PATH_AFFINITY_MIN_LEN, asks_for_tests, validate_filters, validate_limit
from .hits import symbol_hit, take



def locate_symbol(gen, repo: str, ref: str, name: str, *, kind: str | None = None, role: str | None = None,
                  language: str | None = None, limit: int = 10,
                  detail_level: str = "signature") -> tuple[list[Hit], int]:
    """Definitions of `name`, best first: (hits, total_candidates)."""
    role, language = validate_filters(role, language)
    kinds = _allowed_kinds(kind, role)
    limit = validate_limit(limit)
    impl = intent_mod.rust_impl(name)
    members = _impl_members(gen, repo, ref, *impl) if impl else []
    members = [r for r in members if (kinds is None or r.kind in kinds) and language in (None, r.language)]
    if members:  # `impl Display for Point`: Point's `fmt`, where that impl is
        hits = take([_hit(r, r.name, f"{impl[1]}.{r.name}", None, False) for r in members], limit)
        if detail_level == "context":
            enrich(gen, repo, ref, hits)
        return hits, len(members)
    segments = intent_mod.private_spelling(intent_mod.parse_name(name, "name"),
                                           lambda n: bool(symbols_named(gen, n.lower())))
    target = segments[-1]
    rows = symbols_named(gen, target.lower())
    located = intent_mod.file_and_name(name)
    if located:  # `tests/test_items.py::test_x`: that file's definitions (its path or a tail of it)
        rows = [r for r in rows if intent_mod.in_file(r.path, located[0])]
    qualified = len(segments) > 1
    home = CrateNames(gen, repo, ref)  # reads a Cargo.toml only when asked about a Rust file
    exported: list[Symbol] = []
    if qualified:
        exported = reexported(gen, repo, ref, rows, segments)
        rows = exported + [r for r in intent_mod.qualified_matches(rows, segments, home) if r not in exported]
        # `LRUCache.maxsize`: its base `Cache`'s; `Cache.popitem`: its subclasses' overrides
        rows = rows or inherited_members(gen, segments) or overriding_members(gen, segments)
    # filters before the case tier: `config` with kind=class must still find `class Config`
    rows = [r for r in rows if (kinds is None or r.kind in kinds) and (not language or r.language == language)]
    rows = _case_tier(rows, target)
    kind_intent = intent_mod.query_kind_intent(name)
    query_path = ".".join(segments)
    # only when there is an order to decide, and not for a name defined hundreds of times
    stubs = declarations(gen, repo, ref, rows) if 1 < len(rows) <= MAX_BODY_CHECKS else set()
    hits = [_hit(r, target, query_path, kind_intent, r.symbol_id in stubs) for r in rows]
    augmentations_below_originals(gen, hits)
    # the scope's case outranks every signal: a qualified name is typed as it is spelled, and
    # the same-named methods of other-case types must not push the one asked for past the limit
    other_case = [qualified and not intent_mod.scope_as_written(r, segments, home) for r in rows]
    # a method is reached through its type: `serde_json::from_str` names the crate's function
    # (re-exported at its root), not `Deserializer::from_str`, which the query does not name
    through_type = [qualified and _owner_unnamed(r, segments) for r in rows]
    # `name!` is a Rust macro call: the macro it names comes before same-named functions
    macro = intent_mod.is_macro_call(name)
    not_macro = [macro and not (r.signature or "").startswith("macro_rules!") for r in rows]
    # a package's re-export is what its qualified name means (`attr.evolve` is the function
    # `attr/__init__.py` imports): before the stub declaring it and other same-named classes
    not_exported = [r not in exported for r in rows]
    # a type's field is reached through its type: the function, method or type of its name first
    # (`Errors` names govalidator's type and gojsonschema's method before jwt-go's field)
    field = are_fields(gen, rows) if len(rows) > 1 else [False] * len(rows)
    ranked = sorted(zip(not_exported, other_case, through_type, not_macro, field, hits),
                    key=lambda t: (*t[:5], *_sort_key(t[5])))
    hits = _bodies_first([(tuple(t[:5]), t[5]) for t in ranked], stubs)
    hits = take(hits, limit)
    if detail_level == "context":
        enrich(gen, repo, ref, hits)
    return hits, len(rows)


def _owner_unnamed(row: Symbol, segments: list[str]) -> bool:
    """A method whose type (the segment of its qualified name before its own) is none of the
    qualified query's scope segments."""
    if row.kind != "method":
        return False
    scope = [s for s in intent_mod.NAME_SEPARATORS.split(row.qualified_name) if s][:-1]
    return bool(scope) and scope[-1].lower() not in {s.lower() for s in segments[:-1]}


def _impl_members(gen, repo: str, ref: str, trait: str, owner: str) -> list[Symbol]:
    """The Rust methods of type `owner` named like a method of `trait` (its methods as the
    repository's trait of that name declares them, or the standard library's): those whose impl
    header names the trait first, then those whose header is not in sight, each in file order;
    an inherent impl's or another trait's left out."""
    methods = set(STD_TRAIT_METHODS.get(trait, ()))
    for t in symbols_named(gen, trait.lower()):
        if t.kind == "trait" and t.name == trait and t.language == "rust":
            methods.update(r.name for r in outline_rows(gen, repo, ref, t.path, top_only=False)
                           if r.parent_symbol_id == t.symbol_id)
    found = [r for m in sorted(methods) for r in symbols_named(gen, m.lower())
             if r.name == m and r.kind == "method" and r.language == "rust"
             and impl_owner(r.qualified_name) == owner]
    # the index keeps no impl block: the header above a method says which trait it is for
    # (Display's `fmt` and Debug's `fmt` are both Point's `fmt`); one not seen keeps its place
    said = [impl_trait(gen, repo, ref, r) for r in found]
    return [r for r, t in sorted(zip(found, said), key=lambda x: (x[1] is None, is_test_path(x[0].path), x[0].path,
                                                                   x[0].line_start, x[0].symbol_id))
            if t in (None, trait)]


def _bodies_first(ranked: list[tuple[tuple, Hit]], stubs: set[str]) -> list[Hit]:
    """The declarations ranked above the first definition with a body of their tier and of the
    source (not tests), moved just below it whatever their kinds weigh: a `declare class Signal`
    (types only) after the `function Signal` implementing it. The −1 declaration penalty
    decides among same-kind definitions; a class's kind weight and intent outweigh it."""
    hits = [h for _, h in ranked]
    for i, (tier, h) in enumerate(ranked):
        if h.symbol_id in stubs or is_test_path(h.path):
            continue
        above = [j for j in range(i) if ranked[j][0] == tier and hits[j].symbol_id in stubs
                 and not is_test_path(hits[j].path)]
        if above:
            moved = [hits[j] for j in above]
            rest = [x for j, x in enumerate(hits[:i + 1]) if j not in above]
            hits = rest + moved + hits[i + 1:]
        break
    return hits


def _allowed_kinds(kind: str | None, role: str | None) -> frozenset[str] | None:
    """None = any kind. Both given: the intersection (possibly empty, never an error)."""
    allowed: frozenset[str] | None = None
    if kind is not None:
        k = normalize_kind(kind)
        if k is None:
            raise CruxeError("invalid_input", f"unknown kind {kind!r}",
                             {"field": "kind", "allowed": list(KIND_VALUES)})
        allowed = frozenset({k})
    if role is not None:  # already validated and canonical
        allowed = ROLE_KINDS[role] if allowed is None else allowed & ROLE_KINDS[role]
    return allowed


def _case_tier(rows: list[Symbol], target: str) -> list[Symbol]:
    exact = [r for r in rows if r.name == target]
    return exact or rows


def _hit(row: Symbol, target: str, query_path: str, kind_intent: str | None,
         declaration: bool) -> Hit:
    hit = symbol_hit(row)
    path_terms = (target.lower(),) if len(target) >= PATH_AFFINITY_MIN_LEN else ()
    boosts = sig.symbol_boosts(name=row.name, qualified_name=row.qualified_name, kind=row.kind,
                               path=row.path, target=target, query_path=query_path,
                               kind_intent=kind_intent, path_terms=path_terms, declaration=declaration,
                               wants_tests=asks_for_tests(target))
    hit.signals = sig.compose(0.0, **boosts)
    hit.score = hit.signals["final_score"]
    return hit


# Among definitions the signals cannot tell apart, the one other modules can use is the one an
# agent means: tokio's `pub fn spawn_blocking` before the `pub(crate)` helpers of the same name.
_VISIBILITY_ORDER = {"public": 0, "": 0, "protected": 1, "internal": 1, "private": 2}


def _sort_key(hit: Hit) -> tuple:
    """Score, then non-test, then wider visibility, then shorter paths (the main definition
    tends to live nearer the root), then a total order on identity."""
    return (-hit.score, is_test_path(hit.path), _VISIBILITY_ORDER.get(hit.visibility, 1), hit.path.count("/"),
            len(hit.path), hit.path, hit.line_start, hit.kind, hit.symbol_id)

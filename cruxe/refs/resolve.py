"""`resolve_edges`: tie `symbol_edges` rows to the symbols they name, after each index job.

Which edges are (re)resolved is read from the index itself, so an interrupted job leaves
nothing behind: extraction inserts edges pending (`confidence IS NULL`); the batch
transaction that replaces a file also sends edges resolved into its old symbols back to
pending and records in `edge_dirty_names` the names whose definitions (with their signatures) or
imports it changed (the rule of `refs.dirty`). This function resolves the pending edges and
the edges the dirty names can change, then clears the dirty names and records the rules'
version in `meta`, all in one transaction. When that version is missing (first index, or
a job killed before its first resolution) or another (older rules, or another configuration
the resolvers read: go.mod module paths, Cargo.toml crate names, tsconfig.json paths), every
edge is resolved. A bulk build's edges, kept out of the table until then, go through
`resolve_spool` instead and are inserted already resolved. Every full resolution runs a
source's chunks on an executor: here (`_Here`) or in resolution processes (`_Workers`).

Which edges the dirty names bring back is `refs.dirty`'s rule: every edge by such a name (an
`opaque` one too: its receiver's type may now hold the method), by a member name of a type so named or of its ancestors, and every edge whose
receiver writes one of those names; so an edge that went through a changed file's type
information (an annotation, a return type, a base list, an import) is resolved again, as a
whole index would resolve it.
"""
from __future__ import annotations

import gc
import hashlib
import logging
import os
import pickle
import sqlite3
import time
import weakref
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol

from ..config import default_workers
from ..errors import CruxeError
from ..procs import worker_pool
from ..model import EdgeBlock
from ..store import CONFIDENCE_CODES, EDGE_TYPE_CODES, Generation, id_blob, transaction
from ..store.edges import (dirty_types, edge_count, edge_rowid_range, edges_at, edges_named, finish_resolution,
                           label_pending, next_edge_rowid, pending_edges, receivers_containing, requeue_into,
                           resolved_shadow, resolver_version, stored_edges_between, variables_writing,
                           write_resolutions)
from ..store.basefix import dirty_names, drop_fixes, fixed_names, write_fixes
from ..store.writer import FileEdges, build_symbol_indexes, file_ids, insert_edges
from .common import RESOLVED, TYPE_KINDS, UNKNOWN, LanguageResolver, Resolution
from .dirty import dirty_names as dirty_rule
from .dirty import receiver_names, type_members
from .generic import GenericResolver
from .golang import GoResolver
from .graph import Edge, Graph, LayeredGraph, Sym
from .python import PythonResolver
from .rust import RustResolver
from ..filetext import file_text
from .typescript import TypeScriptResolver

log = logging.getLogger(__name__)

# Bump when the rules change what an edge resolves to: the next sync re-resolves all edges.
# (10: the incremental rule retries the edges through changed type information, so a
# generation synced under 9 may hold such edges stale and re-resolving it once mends them; and
# Python's scoping rules: a function-local import, a closure's reads of enclosing bindings, a
# class body's reads before its own definitions.) (11: a Python receiver that is a builtin value
# (a literal, `list()`) is external, and a read (not a call) through an unknown receiver names no
# unique method that takes arguments or that some class also binds as a data attribute.) (12: a
# Rust call on a tuple struct's field, `self.0.f()`, through the field's declared type.) (13: a
# Python variable annotated `Optional[T]`, `"T"` or `T | None` is a T; a regular expression
# match's own methods (`m.span()`) name no unique method.) (14: a Go call on a method's receiver
# reaches the methods its struct promotes from the types it embeds, and a call on a parameter
# declared with a named type reaches that type's methods, or is external.) (15: a Go call on a
# typed local (receiver `T{}`, `pkg.T{}`, `f()`, `pkg.F()`) reaches T's methods, or the methods of
# the first result f's signature declares; external when that type is from outside; a typed
# parameter comes the same way, scoped, no longer from the enclosing function's signature.) (16: a
# Rust call on a parameter of a generic type (`<R: RngCore>(rng: &mut R)`, `where R: Rng`, `impl
# Rng`) reaches the bounding traits' methods, their supertraits' included.)
# (17: a TypeScript bare specifier goes through tsconfig `extends` chains, jsconfig.json, and a
# repository package.json of that name: a self-import or a workspace package; a `#name`
# through the nearest package.json `imports`.)
# (18: a Go call through an interface reaches the method specs of the interfaces it embeds, and a call on
# a struct those of the interfaces the struct embeds; a Go receiver chaining methods, `T{}.M()`,
# `f().M()`, `r.M()` on the method's receiver, reaches the type of the last one's first result.)
# (19: a Python `super().m()` in a class deriving from outside code whose repository bases lack `m` is
# external; `import m` and `from m import m` told apart by extraction's alias, not guessed; a
# `.pyi` stub's method is no rival of its implementation for an unknown receiver.)
# (20: a TypeScript receiver typed by a type alias of an object type reaches the alias's members.)
# (21: a Python receiver of known class that lacks the name reaches the repository's one method so
# named when its class derives from that class: a receiver narrowed by `isinstance`.)
# (22: a Rust `self.field.f()` resolves through the named field's declared type (a struct's or a
# union's), as `self.0.f()` did through a tuple struct's, also from an impl in another module.)
# (23: a Rust field of a generic type bounded only in an impl header: the one trait method of the name.)
# (24: a Go call on a field's value (`Server{}.conn`) resolves through the field's type that the
# struct's signature declares, in any file of the package; a type's field names are its members.)
# (25: a Go call on a package-level variable of another file (`x=`) resolves through the type of its
# own package that the variable's declaration writes.)
# (26: a Python attribute annotated with a generic class (`self.pools: Pool[K, V]`) is of that class;
# a call's result of unknown class (a repository function's without a return annotation, the last call
# of a chain) reaches the repository's one method of the name, another library's result (a local
# assigned from a call rooted at an import) none.) (27: so does a Python property's value without a
# return annotation: `self._current.is_ws()`.)
# (28: a Rust `self.a.b.f()` through a chain of fields' declared types; `use krate as k; k::f()`.)
# (29: a Rust type alias without the method: the aliased type's.)
# (30: a Rust `extern crate x;` the repository does not hold makes a path through its module external.)
# (31: `crate::k::f()` / `use crate::k::{self}` through a module's renamed crate of the repository.)
# (32: a TypeScript `export { a as b }` binds `b` to the file's `a`; a field typed by an indexed
# access type, `Options<T>['form']`, reaches the members of the type that `form` declares.)
# (33: a TypeScript parameter shadows the file's and the imports' definitions of its name.)
# (34: a TypeScript value typed `Required<X>` / `Partial<X>` / `Readonly<X>` reaches X's members.)
# (35: a TypeScript receiver whose declared type is imported from outside the repository is external.)
# (36: ... and so is a member a class lacks when its base is from outside, or what an outside
# function returns; a constructor's parameter property types `this.x`; `class A<T extends X>
# extends B` extends B.)
# (37: not when the package's name is a directory of the repository: it may be that directory.)
# (38: a Python call on an untyped `self.attr` whose one candidate is a method of the calling
# class or its bases is unknown, not that method: a wrapper delegating to the object it holds.)
# (39: a Rust call on a local given a call's result goes to the callee's exact return type.)
# (40: a Rust `#[path]` module's name reaches the items of the file it names.)
# (41: ... and a call on a field of a typed Rust local goes through the local's struct.)
# (42: ... a Rust std value method name on an unknown receiver is no guess of the repository's
# method; an inline module's `use super::x` naming nothing does not hide the file's `x`.)
# (43: a TypeScript name imported from a package that is a directory of the repository is the one
# top-level definition of that name under the
# directory; a TypeScript value typed by an inline object type or by a type no repository file
# declares (`HTMLElement`) reaches no repository method of the member's name; a member of a value
# whose declaration writes no type, `const m = createManager()`, goes by name as any unknown one.)
# (44: a Go call on another file's package-level variable is typed through what its declaration
# writes: another package's type, or the first result of the call that is its value.)
# (46: a TypeScript receiver chain goes through ES private members (`this.#cache.build()`) and
# through each call's written return type (`this.getCache().build(k).fetch()`).)
# (47: ... and a value declared `= new X()` has type X.)
# (48: a callback's parameter given by a collection's own method is the collection's element.)
# (49: a Python `from pkg import sub` that the package binds no name for, or binds by this very
# import in its own `__init__`, is the submodule `pkg.sub`. 50: a Python class with no bases calling
# `self.f()` that it lacks (a mixin) calls the repository's one method `f`.)
# (51: a TypeScript class's or interface's bases are read from its header outside every bracket, so
# type arguments nested three deep, or a header the extractor cut short, still name them.)
# (52: a member of what a TypeScript function returns when its signature writes no type is the
# function's own inner function of that name: a factory returning its inner functions.)
# (53: an indexed Go field whose type is a named slice or map type, `type Matchers []Matcher`,
# holds the element that declaration writes.)
# (54: a Go method a type lacks while it, or a type of the repository it embeds, embeds an outside
# package's type is external: promoted from there, no guess by the name.)
# (55: a TypeScript import from a package that is a directory of the repository, by its package
# name, resolves as its calls do.)
# (56: a Python package's `__init__` that imports from its own submodule binds the submodule's
# name: `functoolz._sigs` after `from .functoolz import *`.)
# (57: a Rust call on a constant, a static or an enum's variant, `PrimitiveDateTime::MIN.f()`, goes to
# the type its declaration writes (`Self`: the type whose impl holds it; a variant: its enum).)
# (58: a Python method called on what a repository function returns is the method of the class
# its return annotation names: `catalog = read_po(f); catalog.update()`.)
# (59: a Go local given a later result of a call, `_, res, ok := parseAny(s, i)`, has the type
# the function's signature declares at that position.)
# (60: a TypeScript call's result written `Promise<T>` is T's (read once awaited); a result type no
# repository file declares, or one from outside the repository, has no repository member; and a
# TypeScript value's member is first its object literal's own method: `http.get` of
# `const http = { get: createHttpHandler('GET') }`.)
# (61: a Go project without a go.mod importing its own root package from inside its directory
# resolves to that directory; 62: a Go struct whose signature the length limit cut is read whole
# from its text for its fields.)
# (63: a TypeScript type alias of one named type (`type CmdKey<T> = SliceType<Cmd<T>>`) has that
# type's members: a receiver typed by the alias reaches the class's method.)
# (64: a TypeScript subpath import no package.json maps (`#core/x`) is the package directory its
# first segment names, as an unmapped workspace package's name is; never an outside package.)
# (65: a Rust call written `<S as StateID>::f()`, or on a generic parameter extraction gave its
# bounds, is `f` of the first of those traits that has one; a call ending a chain of calls
# (`Builder::new().a(x).build()`) is the method of the type the chain's last call returns; a
# generic field's method, of several traits' of that name, is its own crate's trait's.)
# (66: a Rust field read (`x.f`, extraction's FIELD_READ edges) is the field of the struct its receiver
# is typed as, as for a method call's receiver, else the one field of that name; a field is reached by
# no path, so `S::len` means the method beside a `len` field.)
# (67, pyattr, renumbered from 66 on merge: a Python instance attribute whose assignment shows no
# class is a member found only when no base defines the name, types no chain through it, and is no
# name of its class body.)
# (68, gofield, renumbered from 66 on merge: a Go field's use, or a call of a field holding a
# function, goes to the field of the receiver's type (its own, else a promoted one, as Go selects
# it); an untyped receiver's use of a name no call calls is unknown: no guess by the name.)
RESOLVER_VERSION = "68"
# An incremental resolution touching more edges than this loads the whole graph at once
# (one scan per table beats thousands of small indexed queries).
PRELOAD_EDGES = 20_000
# A full resolution reads, resolves and writes this many edges at a time.
STREAM_EDGES = 50_000
# ... except a bulk build's first chunk per worker: the inserts wait for the first one back
FIRST_EDGES = 10_000
# A full resolution of more edges than this runs in worker processes when there are cores
# for them (resolution is Python rules: below this, starting workers costs more than it saves).
PARALLEL_EDGES = 150_000
# How much lower than the job's the resolution workers' scheduling priority is (`os.nice`).
RESOLVER_NICENESS = 10


_RESOLVERS: dict[str, type[LanguageResolver]] = {
    "python": PythonResolver,
    "go": GoResolver,
    "rust": RustResolver,
    "typescript": TypeScriptResolver,
    "tsx": TypeScriptResolver,
    "javascript": TypeScriptResolver,
}


@dataclass(frozen=True, slots=True)
class Under:
    """The base an overlay's edges are resolved over (`LayeredGraph`): the base's generation
    (opened read only), its ref, the paths the overlay holds or tombstones, and the base state
    (generation, commit, when indexed) the resolution holds for: another state re-resolves every
    edge of the overlay (its base's ids and definitions may have changed under it)."""

    gen: Generation
    ref: str
    shadow: frozenset[str]
    state: str


def _graph(gen: Generation, repo: str, ref: str, under: Under | None) -> Graph:
    g = Graph(gen.db, repo, ref, lambda path: file_text(gen, repo, ref, path))
    if under is None:
        return g
    b = under.gen
    return LayeredGraph(g, Graph(b.db, repo, under.ref, lambda path: file_text(b, repo, under.ref, path)),
                        under.shadow, under.state)


def _version(g: Graph) -> str:
    """The version recorded for a resolution: the rules' own, an overlay's base state, and a
    digest of the configuration the resolvers read (`_configuration`)."""
    version = f"{RESOLVER_VERSION}+{g.state}" if isinstance(g, LayeredGraph) else RESOLVER_VERSION
    configuration = _configuration(g)
    return f"{version}+{configuration}" if configuration else version


# per graph, the digest of its resolvers' configuration (read once: a resolution asks twice)
_CONFIGURATIONS: weakref.WeakKeyDictionary[Graph, str] = weakref.WeakKeyDictionary()


def _configuration(g: Graph) -> str:
    """A digest of what the resolvers of the graph's languages read from files that are not
    code (`configuration()`: Go's go.mod module paths, Rust's Cargo.toml crate names,
    TypeScript's tsconfig/jsconfig baseUrl and paths, package.json names and entry points),
    "" when none. Such a file maps import
    paths to directories for every file at once, and no dirty name follows an edit of it:
    so a resolution holds for one configuration, and another resolves every edge again, as
    a whole index would."""
    got = _CONFIGURATIONS.get(g)
    if got is None:
        classes = {_RESOLVERS[lang] for lang in set(g.files().values()) if lang in _RESOLVERS}
        facts = [(cls.__name__, read(cls(g))) for cls in sorted(classes, key=lambda c: c.__name__)
                 if (read := getattr(cls, "configuration", None)) is not None]
        facts = [f for f in facts if f[1]]
        got = hashlib.blake2b(repr(facts).encode(), digest_size=8).hexdigest() if facts else ""
        _CONFIGURATIONS[g] = got
    return got


def resolve_edges(gen: Generation, repo: str, ref: str, build_indexes: bool = False, workers: int | None = None,
                  under: Under | None = None) -> None:
    """Resolve what the last index job left pending in the table (see the module docstring):
    every edge when the rules' version is missing or older, else the pending edges and those
    of the dirty names. `build_indexes`: a bulk build left the edge indexes out; create them
    in the same transaction, after the rows are final. `workers`: at most this many
    resolution processes (`config.default_workers`; 1 resolves in this process, with the
    least memory). `under`: the generation is an overlay, resolved over that base (in this
    process: a worker loads a graph of one generation)."""
    t0 = time.monotonic()
    try:
        g = _graph(gen, repo, ref, under)
        if resolver_version(gen.db) != _version(g) or (isinstance(g, LayeredGraph) and not _follow_shadow(gen.db, g)):
            mode, (edges, resolved) = "full", _resolve_full(gen, g, build_indexes, 1 if under else workers)
        else:
            mode, (edges, resolved) = "incremental", _resolve_incremental(gen.db, g, build_indexes)
    except sqlite3.DatabaseError as e:
        raise CruxeError("internal_error", f"edge resolution failed: {e}") from e
    log.debug("edges resolved (%s): %d, %d of them to a symbol, in %d ms", mode, edges, resolved,
              int((time.monotonic() - t0) * 1000))


def resolve_spool(gen: Generation, repo: str, ref: str, spool: list[FileEdges], workers: int | None = None,
                  under: Under | None = None) -> None:
    """Resolve a bulk build's edges, kept out of the table until now (`store.defer_edge_indexes`),
    and insert them resolved, in the order the batches would have inserted them, then build
    the edge indexes; in worker processes when resolution is parallel (`workers`; an overlay's,
    `under` its base, in this process)."""
    t0 = time.monotonic()
    try:
        g = _graph(gen, repo, ref, under)
        edges, resolved = _resolve_spool(gen, g, spool, 1 if under else workers, True)
    except sqlite3.DatabaseError as e:
        raise CruxeError("internal_error", f"edge resolution failed: {e}") from e
    log.debug("edges resolved (spool): %d, %d of them to a symbol, in %d ms", edges, resolved,
              int((time.monotonic() - t0) * 1000))


def _resolve_full(gen: Generation, g: Graph, build_indexes: bool, workers: int | None) -> tuple[int, int]:
    """Every edge of the table, by rowid ranges (`_range_outcomes`), here or in `_workers`
    processes that each load the graph once; they read the last committed state (WAL), which
    is what extraction left: the transaction below writes nothing they read before its
    commit. The outcomes come back in rowid order, so the writes, and the bulk label, are the
    same either way."""
    db = gen.db
    n = _workers(edge_count(db), workers)
    with ExitStack() as stack:
        # _Here loads the graph before the transaction: reads see the edges as extraction left them
        run: _Executor = _Here(g) if n < 2 else _Workers(
            stack.enter_context(worker_pool(n, "reference-resolution")), gen, g.key)
        with transaction(db):
            counts = _resolve_streaming(db, run.map(_range_outcomes, _rowid_ranges(db)))
            _finish(db, g, build_indexes)
    return counts


def _resolve_incremental(db: sqlite3.Connection, g: Graph, build_indexes: bool) -> tuple[int, int]:
    """The pending edges and those a dirty name can change (`_work`)."""
    resolvers: dict[type, LanguageResolver] = {}
    edges_todo = _work(db, g, resolvers)
    if len(edges_todo) > PRELOAD_EDGES:
        g.preload()
    else:
        g.warm([e.path for e in edges_todo])
    results = _resolve_all(g, edges_todo, resolvers)
    with transaction(db):
        _write(db, results)
        _finish(db, g, build_indexes, full=False)
    return len(results), sum(1 for r in results if r[3] in RESOLVED)


def _finish(db: sqlite3.Connection, g: Graph, build_indexes: bool, full: bool = True) -> None:
    """Inside the resolution's transaction, after its writes; `full`: every edge was resolved."""
    if isinstance(g, LayeredGraph):
        _fix_base_edges(db, g, full)
        finish_resolution(db, *g.key, _version(g), build_indexes, sorted(g.shadow))
    else:
        drop_fixes(db)
        finish_resolution(db, *g.key, _version(g), build_indexes)


def _fix_base_edges(db: sqlite3.Connection, g: LayeredGraph, full: bool) -> None:
    """An overlay's resolutions of base edges (`store.basefix`): the base files' edges (files the
    ref left alone) that the ref's definitions and imports can change (`_redefined`: the rule of
    `refs.dirty`, the ref's shadowed paths against the base's), resolved over both layers; those
    whose answer differs from the base's (and not merely by the overlay's counterpart of the same
    definition) are written as the overlay's fixes. A `full` resolution does every such edge; an
    incremental one those of the names whose definitions this job changed (its dirty names and
    their types' members, as a whole index's incremental resolution widens them) or that the ref
    redefines since the last one or no longer does, and drops the fixes of the edges it retried."""
    t0 = time.monotonic()
    resolvers: dict[type, LanguageResolver] = {}
    names = _redefined(g, resolvers)
    before = None if full else fixed_names(db)
    redo = None
    if before is not None:
        dirty = dirty_names(db, *g.key)
        dirty |= type_members(g, sorted(dirty_types(db, *g.key)), *_hierarchy(g, resolvers))
        redo = (dirty | (names ^ before)) & (names | before)
    found = _named_or_through(g.base.db, _with_values(g, db, names if redo is None else redo))
    todo = sorted((e for e in found.values() if e.path not in g.shadow), key=lambda e: (e.path, e.rowid))
    g.warm([e.path for e in todo])  # a file's edges together: `_resolutions` memoises per file
    codes = CONFIDENCE_CODES
    fixes = [(e.rowid, e.path, e.line, e.edge_type, e.from_id, e.to_name, to, codes[conf])
             for e, (to, conf) in zip(todo, _resolutions(g, todo, resolvers))
             if (to, conf) != (e.to_id, e.confidence) and not _counterpart(g, e, to, conf)]
    write_fixes(db, fixes, names, redo, [e.rowid for e in todo])
    log.debug("base edges of %d names the ref redefines (%s): %d resolved again, %d fixes, in %d ms", len(names),
              "all" if redo is None else f"{len(redo)} again", len(todo), len(fixes),
              int((time.monotonic() - t0) * 1000))


def _counterpart(g: LayeredGraph, e: Edge, to: str | None, conf: str) -> bool:
    """The new answer is the overlay's counterpart of the base's (same path, qualified name and
    kind, found so at read time: `store.layers`): no fix needed."""
    if conf != e.confidence or to is None or e.to_id is None:
        return False
    new, old = g.top.get(to), g.base.get(e.to_id)
    return new is not None and old is not None and (new.path, new.qname, new.kind) == (old.path, old.qname, old.kind)


def _redefined(g: LayeredGraph, resolvers: dict[type, LanguageResolver]) -> set[str]:
    """The names whose definitions or imports the ref changes, read from the shadowed paths in
    both layers: those `refs.dirty.dirty_names` finds (definitions with their kind and signature,
    imports; a definition only moved, a line or an id, is left out: base edges into it reach it
    through its counterpart, `store.layers`), those defined a different number of times (one
    more definition of a name makes a unique one ambiguous), and the members of the types the
    rule names and of the changed types themselves, and their ancestors'."""
    paths = sorted(g.shadow)
    g.top.warm(paths)
    g.base.warm(paths)
    mine, theirs = Counter(), Counter()
    layers = ((g.top, mine, set(), set()), (g.base, theirs, set(), set()))
    for layer, count, defs, imports in layers:
        for p in paths:
            syms = layer.in_file(p)
            count.update((s.name, s.path, s.qname, s.kind) for s in syms)
            defs.update((s.path, s.qname, s.name, s.kind, s.signature) for s in syms)
            imports.update((p, e.to_name, e.module, e.alias) for e in layer.imports(p))
    changed, types = dirty_rule(layers[1][2], layers[0][2], layers[1][3], layers[0][3])
    changed |= {key[0] for key in (mine - theirs) + (theirs - mine)}
    # and a changed type's own name: base edges into its members (its own and inherited) were
    # never sent back to pending, as a whole index's edges into a replaced file's are
    types |= {d[2] for d in layers[0][2] ^ layers[1][2] if d[3] in TYPE_KINDS}
    return changed | type_members(g, sorted(types), *_hierarchy(g, resolvers))


def _follow_shadow(db: sqlite3.Connection, g: LayeredGraph) -> bool:
    """Before an overlay's incremental resolution on the base state its edges were resolved
    on: when the paths it shadows changed since (a file the ref changes now, or one back to the
    base's content), the edges resolved into the base's definitions of the newly shadowed
    paths go back to pending, and every name the base defines in a path that changed sides is
    dirty (it may now fit, or no longer be unique). False when no shadow was recorded: the
    caller resolves every edge."""
    before = resolved_shadow(db)
    if before is None:
        return False
    moved = sorted(before ^ g.shadow)
    if moved:
        base = g.base
        base.warm(moved)
        gone = [s.id for p in moved if p in g.shadow for s in base.in_file(p)]
        requeue_into(db, *g.key, gone, {s.name for p in moved for s in base.in_file(p)})
    return True


# What resolution decided for one edge: (current to_symbol_id, current confidence,
# new to_symbol_id, new confidence, rowid).
Outcome = tuple[str | None, str | None, str | None, str, int]


def _workers(edges: int, cap: int | None) -> int:
    """How many worker processes a full resolution of `edges` uses (1: in this process).
    Each holds its own copy of the graph (docs/BENCHMARKS.md), so `cruxe index --workers 1`
    is also the way to the least memory."""
    n = default_workers(cap)
    return n if n >= 2 and edges > PARALLEL_EDGES else 1


def _resolve_streaming(db: sqlite3.Connection, chunks: Iterator[list[Outcome]]) -> tuple[int, int]:
    """Full resolution, written chunk by chunk (STREAM_EDGES edges in rowid order; a file's
    edges are contiguous, so the per-function memo loses almost nothing at chunk
    boundaries): memory stays at the graph plus a chunk or two instead of every edge and
    outcome at once. Runs inside the caller's transaction. Returns (edges, resolved)."""
    total, resolved = 0, 0
    bulk: str | None = None
    for outcomes in chunks:
        if bulk is None:
            bulk = _bulk_label(outcomes)
        _write(db, outcomes, bulk)
        total += len(outcomes)
        resolved += sum(1 for o in outcomes if o[3] in RESOLVED)
    if bulk is not None:
        label_pending(db, CONFIDENCE_CODES[bulk])
    return total, resolved


# ---- where edges resolve: an executor runs a source's chunks, here or in worker processes ----
# A source is its chunks and a module-level function `fn(g, resolvers, chunk)` that resolves one
# (pickled by reference to reach a worker): the table's rowid ranges (`_range_outcomes`) or a
# bulk build's spooled file blocks (`_resolve_chunk`).

class _Executor(Protocol):
    def map(self, fn: Callable[[Graph, dict, Any], Any], chunks: list) -> Iterator[Any]: ...


class _Here:
    """Resolve the chunks in this process, on `g` loaded whole first (`imports`: the import
    edges when they are not in the table), one set of resolvers for all (their caches)."""

    def __init__(self, g: Graph, imports: list[Edge] | None = None):
        g.preload(imports)
        self.g = g
        self.resolvers: dict[type, LanguageResolver] = {}

    def map(self, fn: Callable[[Graph, dict, Any], Any], chunks: list) -> Iterator[Any]:
        return (fn(self.g, self.resolvers, chunk) for chunk in chunks)


class _Workers:
    """Resolve the chunks in the processes of `pool`, each loading its own graph of `gen`
    once (`shipped`: the import edges, pickled, when they are not in the table); results
    come back in the chunks' order. All tasks are submitted at once: the workers start."""

    def __init__(self, pool: ProcessPoolExecutor, gen: Generation, key: tuple[str, str], shipped: bytes | None = None):
        self.pool, self.where, self.shipped = pool, (str(gen.path), gen.number, *key), shipped

    def map(self, fn: Callable[[Graph, dict, Any], Any], chunks: list) -> Iterator[Any]:
        return self.pool.map(_in_worker, [(*self.where, fn, chunk, self.shipped) for chunk in chunks])


def _in_worker(task: tuple) -> Any:
    """Worker side of `_Workers`: this process's graph (loaded on first use), then `fn`."""
    path, number, repo, ref, fn, chunk, shipped = task
    imports = None if shipped is None else (lambda: _as_edges(pickle.loads(shipped)))
    g, resolvers = _worker_graph(path, number, repo, ref, imports)
    return fn(g, resolvers, chunk)


def _rowid_ranges(db: sqlite3.Connection) -> list[tuple[int, int]]:
    """The edge table as STREAM_EDGES-wide rowid ranges [lo, hi)."""
    lo, hi = edge_rowid_range(db)
    return [] if lo is None else [(a, min(a + STREAM_EDGES, hi + 1)) for a in range(lo, hi + 1, STREAM_EDGES)]


def _range_outcomes(g: Graph, resolvers: dict[type, LanguageResolver], rowids: tuple[int, int]) -> list[Outcome]:
    """The outcomes of the edges with lo <= rowid < hi."""
    return _resolve_all(g, g.edges(stored_edges_between(g.db, *rowids)), resolvers)


# per worker process: the graph of the generation it resolves, and its resolvers
_worker_state: dict[str, tuple[Graph, dict[type, LanguageResolver]]] = {}


def _worker_graph(path: str, number: int, repo: str, ref: str, imports: Callable[[], list[Edge]] | None = None
                  ) -> tuple[Graph, dict[type, LanguageResolver]]:
    """This worker's graph of generation `path` and its resolvers, loaded on first use
    (`imports`: the import edges, when they are not in the table)."""
    state = _worker_state.get(path)
    if state is None:
        g = _resolution_worker_graph(path, number, repo, ref)
        g.preload(imports() if imports is not None else None)
        _worker_state.clear()
        state = _worker_state[path] = (g, {})
    return state


def _resolution_worker_graph(path: str, number: int, repo: str, ref: str) -> Graph:
    """This process becomes a resolution worker: an empty graph of generation `path`."""
    # The graph is a million long-lived objects and every chunk adds STREAM_EDGES edges and
    # outcomes: the cyclic collector's passes over them were a large share of a worker's
    # time (docs/BENCHMARKS.md), and resolution makes no cycles worth collecting. The
    # worker ends with the resolution.
    gc.disable()
    # This process only feeds the one that writes the outcomes, which has the job's
    # last, serial steps to run after them (inserts, edge indexes, commit): on 2 cores
    # shared by three processes it gets a core whenever it has work, and the inserts keep
    # up with the resolution (docs/BENCHMARKS.md).
    try:
        os.nice(RESOLVER_NICENESS)
    except (AttributeError, OSError):  # no os.nice (Windows), or a sandbox that refuses it
        log.debug("resolution worker keeps its scheduling priority", exc_info=True)
    gen = Generation(Path(path), number)
    return Graph(gen.db, repo, ref, lambda p: file_text(gen, repo, ref, p))


_TYPE_LABELS = {code: label for label, code in EDGE_TYPE_CODES.items()}
# A bulk build's edges as resolution tasks: (path, rowid its first edge will have, its edges)
SpoolChunk = list[tuple[str, int, EdgeBlock]]
# what a chunk resolves to, per file: (to_symbol_id blobs, confidence codes)
SpoolOutcome = list[tuple[list[bytes | None], bytes]]


def _resolve_spool(gen: Generation, g: Graph, spool: list[FileEdges], workers: int | None,
                   build_indexes: bool) -> tuple[int, int]:
    """Resolve a bulk build's spooled edges and insert them, resolved, chunk by chunk as the
    chunks come back: no pending row is written, read back and rewritten. The build's symbol
    indexes (`store.defer_symbol_indexes`) are built here too, while the resolution workers
    load their graphs (a table scan, which needs no index). The first chunks are smaller, so that the inserts start as
    soon as a worker has its graph. Returns (edges, resolved)."""
    db = gen.db
    parallel = _workers(sum(len(b.types) for _, b in spool), workers)
    chunks: list[SpoolChunk] = [[]]
    size, rowid = 0, next_edge_rowid(db)
    for path, block in spool:
        if size >= (STREAM_EDGES if len(chunks) > parallel else FIRST_EDGES):
            chunks.append([])
            size = 0
        chunks[-1].append((path, rowid, block))
        size += len(block.types)
        rowid += len(block.types)
    total = rowid - chunks[0][0][1] if spool else 0
    imports = [e for chunk in chunks for f in chunk for e in _block_imports(*f)]
    with ExitStack() as stack:
        if parallel >= 2:
            # every task carries the import edges (for the graph of whichever worker takes it
            # first), pickled once here: a bytes object is copied, not walked, per task
            shipped = pickle.dumps(imports, protocol=pickle.HIGHEST_PROTOCOL)
            pool = stack.enter_context(worker_pool(parallel, "reference-resolution"))
            # (and so the blocks go without their own import rows: fewer tuples to pickle)
            results: Iterator[SpoolOutcome] = _Workers(pool, gen, g.key, shipped).map(
                _resolve_chunk, [[(p, r, b._replace(imports=()) if b.imports else b) for p, r, b in chunk]
                                 for chunk in chunks])
        build_symbol_indexes(db)
        if parallel < 2:
            results = _Here(g, _as_edges(imports)).map(_resolve_chunk, chunks)
        ids = file_ids(db, [path for path, _ in spool])  # registered by the batches: a lookup
        resolved = 0
        codes = frozenset(CONFIDENCE_CODES[c] for c in RESOLVED)
        # A transaction per chunk: its pages go to the WAL while the workers resolve the next
        # ones, where one transaction for all wrote them after the last, with nothing else
        # to run beside it (docs/BENCHMARKS.md). The generation keeps
        # its EDGES_DEFERRED_KEY mark until `_finish`: a job killed in between leaves part of
        # the edges, which the next job finds marked and starts over (`index._start_over`), and
        # find_references answers no_edges_available until then (no resolver version yet).
        for chunk, outcome in zip(chunks, results):
            with transaction(db):
                insert_edges(db, [(path, block) for path, _, block in chunk], ids, outcome)
            resolved += sum(conf.count(c) for _, conf in outcome for c in codes)
        with transaction(db):
            _finish(db, g, build_indexes)
    return total, resolved


def _block_edges(path: str, first_rowid: int, b: EdgeBlock) -> list[Edge]:
    """A file's spooled edges as the resolver reads them (what `Graph.stored_edges` would make
    of their pending rows)."""
    types, new = _TYPE_LABELS, tuple.__new__  # tuple.__new__: Edge._make without its length check
    # the trailing None is what a `froms` of -1 (no enclosing symbol) indexes: no test per edge
    ids = [i.hex() for i in b.symbol_ids]
    ids.append(None)
    return [new(Edge, (rowid, path, line, ids[src], name, types[kind], module, receiver, alias, None, None))
            for rowid, kind, line, src, name, module, receiver, alias
            in zip(range(first_rowid, first_rowid + len(b.types)), b.types, b.lines, b.froms,
                   b.column(b.names), b.column(b.modules), b.column(b.receivers), b.column(b.aliases))]


_IMPORT_CODE = EDGE_TYPE_CODES["imports"]


def _block_imports(path: str, first_rowid: int, b: EdgeBlock) -> list[tuple]:
    """A file's spooled import edges (`EdgeBlock.imports`, picked out by the parser workers), as
    plain tuples of Edge's fields (`Edge` values are what `_block_edges` makes of them): plain
    tuples pickle faster than named tuples, and the imports are read before the resolution
    workers can start (docs/BENCHMARKS.md)."""
    if not b.imports:
        return []
    ids, label = b.symbol_ids, _TYPE_LABELS[_IMPORT_CODE]
    return [(first_rowid + i, path, line, ids[src].hex() if src >= 0 else None, name, label, module, "", alias,
             None, None) for i, line, src, name, module, alias in b.imports]


def _as_edges(rows: list[tuple]) -> list[Edge]:
    new = tuple.__new__
    return [new(Edge, r) for r in rows]


def _resolve_chunk(g: Graph, resolvers: dict[type, LanguageResolver], chunk: SpoolChunk) -> SpoolOutcome:
    codes, out = CONFIDENCE_CODES, []
    for path, first, block in chunk:
        res = _resolutions(g, _block_edges(path, first, block), resolvers)
        out.append(([id_blob(r[0]) for r in res], bytes([codes[r[1]] for r in res])))
    return out


def _bulk_label(outcomes: list[Outcome]) -> str | None:
    """The most common unresolved label of pending rows (first chunk): those rows are not
    written one by one but by one set-wide statement at the end (row writes are most of the
    cost of a full resolution). Ties break by label, so the choice is deterministic."""
    labels = Counter(o[3] for o in outcomes if o[2] is None and o[1] is None)
    return min(labels, key=lambda k: (-labels[k], k)) if labels else None


def _write(db: sqlite3.Connection, outcomes: list[Outcome], bulk: str | None = None) -> None:
    """Write what changed; pending rows whose answer is the `bulk` label are left pending
    for the caller's one set-wide statement."""
    codes = CONFIDENCE_CODES
    changed = [(id_blob(o[2]), codes[o[3]], o[4]) for o in outcomes if (o[0], o[1]) != (o[2], o[3])
               and not (bulk is not None and o[2] is None and o[3] == bulk and o[1] is None)]
    write_resolutions(db, changed)


def _work(db: sqlite3.Connection, g: Graph, resolvers: dict[type, LanguageResolver]) -> list[Edge]:
    """Edges an incremental resolution must (re)consider: the pending ones and those a dirty
    name can change (the rule of `refs.dirty`): by the dirty names and the member names of
    the dirty types, every edge, and the edges whose receivers name them. `resolvers`:
    the resolution's own (a type's bases are read as the language resolves them)."""
    found = {e.rowid: e for e in map(Edge._make, pending_edges(db))}
    names = dirty_names(db, *g.key)
    if names:
        names |= type_members(g, sorted(dirty_types(db, *g.key)), *_hierarchy(g, resolvers))
        for rowid, e in _named_or_through(db, _with_values(g, db, names)).items():
            found.setdefault(rowid, e)
    return [found[k] for k in sorted(found)]


def _named_or_through(db: sqlite3.Connection, names: set[str]) -> dict[int, Edge]:
    """rowid -> edge, of the edges of `db` that `names` can change: every edge by one of them,
    and every edge whose receiver names one."""
    if not names:
        return {}
    found = {e.rowid: e for e in map(Edge._make, edges_named(db, sorted(names)))}
    for e in _through_receivers(db, names):
        found.setdefault(e.rowid, e)
    return found


def _with_values(g: Graph, db: sqlite3.Connection, names: set[str]) -> set[str]:
    """`names` and the names of the top-level variables (of `db` and, over a base, of the base
    too) whose signature writes one of them: a call on a variable of another file is resolved
    through what its declaration names (Go's `var d = b.New()`: `b`'s directory, `New`'s
    result; `refs.golang.GoResolver.var_type`), and its receiver names only the variable."""
    out = set(names)
    for layer in (db, g.base.db) if isinstance(g, LayeredGraph) else (db,):
        for name, signature in variables_writing(layer, sorted(names)):
            if name not in out and not names.isdisjoint(receiver_names(signature)):
                out.add(name)
    return out


def _hierarchy(g: Graph, resolvers: dict[type, LanguageResolver]) -> tuple[Callable, Callable]:
    """(bases, members) of a type as its language's resolver reads them, for
    `refs.dirty.type_members`: its bases (none where the resolver reads none), and the names
    of its members that are no children of it (Go's methods, declared outside their type)."""
    return (lambda sym: _ask(g, resolvers, sym, "bases")), (lambda sym: _ask(g, resolvers, sym, "members"))


def _ask(g: Graph, resolvers: dict[type, LanguageResolver], sym: Sym, what: str) -> list:
    cls = _RESOLVERS.get(sym.language, GenericResolver)
    r = resolvers.get(cls)
    if r is None:
        r = resolvers[cls] = cls(g)
    read = getattr(r, what, None)
    return read(sym) if read is not None else []


def _through_receivers(db: sqlite3.Connection, names: set[str]) -> list[Edge]:
    """The edges whose receiver names one of `names` (`self.loader.graph` names `graph`)."""
    memo: dict[str, bool] = {}
    hits = []
    for rowid, receiver in receivers_containing(db, sorted(names)):
        hit = memo.get(receiver)
        if hit is None:
            hit = memo[receiver] = not names.isdisjoint(receiver_names(receiver))
        if hit:
            hits.append(rowid)
    return list(map(Edge._make, edges_at(db, hits)))


def _resolve_all(g: Graph, edges: list[Edge], resolvers: dict[type, LanguageResolver] | None = None
                 ) -> list[Outcome]:
    """Resolve every edge. Resolution is a pure function of what an edge says and where it
    stands, so edges alike in all that (the same name used again in the same function)
    share one answer: about a third of them in real code. The memo and the resolver are
    picked per file: a file's edges come together (rowid order), so the memo holds one
    file's answers and its key leaves the path out. `resolvers` (one per class: a language
    family shares caches) may be kept across calls on the same graph: their caches (the
    module table, each file's import bindings) cost a tenth of a second or more to rebuild
    for every chunk of a full resolution."""
    return [(e.to_id, e.confidence, res[0], res[1], e.rowid) for e, res in zip(edges, _resolutions(g, edges, resolvers))]


def _resolutions(g: Graph, edges: list[Edge], resolvers: dict[type, LanguageResolver] | None = None
                 ) -> list[Resolution]:
    """What each edge resolves to (see `_resolve_all`)."""
    languages = g.files()
    resolvers = {} if resolvers is None else resolvers
    memo: dict[tuple, Resolution] = {}
    out: list[Resolution] = []
    append = out.append
    path = resolve = None
    for e in edges:
        if e.path != path:
            path, memo = e.path, {}
            cls = _RESOLVERS.get(languages.get(path, ""), GenericResolver)
            r = resolvers.get(cls)
            if r is None:
                r = resolvers[cls] = cls(g)
            resolve = r.resolve
        key = e[3:9]  # from_id, to_name, edge_type, module, receiver, alias
        res = memo.get(key)
        if res is None:
            # the try block is inline (it costs nothing until it catches), not a wrapper
            # function: a call per resolved edge, hundreds of thousands in a large repository
            try:
                res = resolve(e)
            except Exception:  # noqa: BLE001 - a resolver bug costs one edge, not the index
                res = _failed(e)
            memo[key] = res
        append(res)
    return out


def _failed(e: Edge) -> Resolution:
    """One odd edge must not fail a whole index job: it stays unresolved (`unknown`, which
    find_references counts), and the log says which edge it was."""
    log.warning("could not resolve %s:%s %r; left unresolved", e.path, e.line, e.to_name, exc_info=True)
    return None, UNKNOWN

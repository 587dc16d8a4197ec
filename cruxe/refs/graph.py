"""What the resolver reads: symbols, files and import edges of one generation, loaded lazily.

A one-file sync resolves a few hundred edges and must not read the whole index, while a
full resolution touches everything: so every lookup goes through a memo that is filled
either on demand (one small indexed query per file or name) or, with `preload()`, by one
scan per table. Rows are plain frozen records; nothing here writes.
"""
from __future__ import annotations

import sqlite3
import sys
from collections import defaultdict
from typing import Callable, Iterable, NamedTuple

from ..store import CONFIDENCE_CODES, EDGE_TYPE_CODES
from ..store.edges import (few_symbols_named, file_languages, imports_in_paths, imports_of_file, path_names,
                           stored_import_edges, stored_symbols_after, symbol_by_id, symbols_in_file, symbols_in_paths,
                           symbols_named)

_TYPE_LABELS = {code: label for label, code in EDGE_TYPE_CODES.items()}
_CONFIDENCE_LABELS = {None: None, **{code: label for label, code in CONFIDENCE_CODES.items()}}


# Named tuples, not dataclasses: a full resolution builds one per row of two whole tables,
# and `_make` over plain-tuple rows is several times cheaper.
class Sym(NamedTuple):
    id: str
    name: str
    qname: str
    kind: str
    language: str
    path: str
    line: int
    end: int
    parent: str | None
    signature: str


class Edge(NamedTuple):
    rowid: int
    path: str
    line: int
    from_id: str | None
    to_name: str
    edge_type: str
    module: str  # imports: the module as written
    receiver: str  # calls/references: receiver text
    alias: str  # imports: the local name bound, when renamed
    to_id: str | None = None  # the resolution it has now (None, None: pending)
    confidence: str | None = None


def _line_id(s: Sym) -> tuple:
    return s.line, s.id or ""


def _path_line_id(s: Sym) -> tuple:
    return s.path, s.line, s.id or ""


def _reorder(by_path: dict[str, list[Sym]], by_name: dict[str, list[Sym]], by_id: dict[str, Sym],
             paths: set[str], names: set[str], repeated_ids: bool) -> None:
    """Put `Graph.preload`'s lists of `paths` and `names`, and of the names defined in
    `paths`, in (path, line, id) order (hex ids sort as their bytes do; the sorts are stable: rows equal
    in key keep the table's order). With an id on two rows, `by_id` keeps the last in that
    order, as a read in order does."""
    for p in paths:
        by_path[p].sort(key=_line_id)
        names.update(s.name for s in by_path[p])
    for name in names:
        by_name[name].sort(key=_path_line_id)
    if repeated_ids:
        by_id.clear()
        for p in sorted(by_path):
            for s in by_path[p]:
                by_id[s.id] = s


class _SymbolLoad:
    """`Graph.preload`'s reading of the symbols table.

    Every list must come out in (path, line, id) order. A bulk build inserts files in path order, so
    the table's own order is that but for definitions that share a line (`a = b = 1`); a
    sync appends a file's rows at the end. So the rows are read in the table's order, which
    costs no sort (ORDER BY in SQL costs more: docs/BENCHMARKS.md),
    and only what is out of order is sorted in Python (`finish`): a file read in two runs or
    out of line order, and the names of files read after the first one out of path order
    (and of files with ties)."""

    def __init__(self) -> None:
        self.by_path: dict[str, list[Sym]] = defaultdict(list)
        self.by_name: dict[str, list[Sym]] = defaultdict(list)
        self.by_id: dict[str, Sym] = {}
        self.last, self.last_key, self.late = "", (0, b""), False
        self.seen: set[str] = set()
        self.unsorted: set[str] = set()  # files whose lists need sorting
        self.names: set[str] = set()  # names whose lists need sorting
        self.rows = 0
        self.top = 0  # the largest rowid read

    def read(self, db: sqlite3.Connection) -> None:
        """Read the rows after those read so far."""
        intern = sys.intern  # kind, language and path repeat on every row: a large share of the graph's memory
        new = tuple.__new__  # Sym's constructor without its Python frame
        by_path, by_name, by_id, seen, unsorted, names = (self.by_path, self.by_name, self.by_id, self.seen,
                                                          self.unsorted, self.names)
        last, last_key, late, n, top = self.last, self.last_key, self.late, self.rows, self.top
        paths = {i: intern(p) for i, p in path_names(db).items()}
        for rowid, sid, name, qname, kind, language, file_id, line, end, parent, signature in stored_symbols_after(
                db, top):
            n += 1
            top = rowid
            path = paths[file_id]
            if path is not last:
                if path in seen:
                    unsorted.add(path)
                seen.add(path)
                late = late or path < last
                last, last_key = path, (line, sid)
            else:
                key = (line, sid)
                if key < last_key:
                    unsorted.add(path)
                last_key = key
            if late:
                names.add(name)
            # `x.hex() if x else None`: id_sql's nullif(lower(hex(x)), '')
            s = new(Sym, (sid.hex() if sid else None, name, qname, intern(kind), intern(language), path,
                          line, end, parent.hex() if parent else None, signature))
            by_path[path].append(s)
            by_name[name].append(s)
            by_id[s.id] = s
        self.last, self.last_key, self.late, self.rows, self.top = last, last_key, late, n, top

    def finish(self, by_id: dict[str, Sym]) -> tuple[dict[str, list[Sym]], dict[str, list[Sym]]]:
        """(by_path, by_name) in (path, line, id) order; `by_id` gets every symbol by id."""
        if self.unsorted or self.names:
            _reorder(self.by_path, self.by_name, self.by_id, self.unsorted, self.names, len(self.by_id) < self.rows)
        by_id.update(self.by_id)
        return dict(self.by_path), dict(self.by_name)


class Graph:
    """Read access to one generation's symbols and edges for resolution."""

    def __init__(self, db: sqlite3.Connection, repo: str, ref: str,
                 read_text: Callable[[str], str | None] | None = None):
        self.db = db
        self.key = (repo, ref)
        # an indexed file's text (from the snippet store), for manifests such as go.mod
        self.read_text = read_text or (lambda path: None)
        self._files: dict[str, str] | None = None
        self._by_path: dict[str, list[Sym]] = {}
        self._by_name: dict[str, list[Sym]] = {}
        self._by_id: dict[str, Sym] = {}
        self._children: dict[str, dict[str, dict[str, list[Sym]]]] = {}
        self._firsts: dict[str, dict[str, dict[str, Sym]]] = {}
        self._local: dict[str, tuple[frozenset[str], frozenset[str]] | None] = {}
        self._imports: dict[str, list[Edge]] = {}
        self._complete = False  # preloaded: a missing key means "none", no query needed
        self._few: dict[tuple, list[Sym]] = {}
        self._paths: dict[int, str] | None = None  # paths.id -> path, for `edges`

    # -- bulk loading for a full resolution
    def preload(self, imports: list[Edge] | None = None) -> None:
        """Load every symbol and import edge; `imports`: the import edges, when they are not
        in the table yet (a bulk build's spool)."""
        load = _SymbolLoad()
        load.read(self.db)
        self._by_path, self._by_name = load.finish(self._by_id)
        by_file: dict[str, list[Edge]] = defaultdict(list)
        if imports is None:
            imports = self.edges(stored_import_edges(self.db))
        for e in sorted(imports, key=lambda e: (e.path, e.line, e.rowid)):
            by_file[e.path].append(e)
        self._imports = dict(by_file)
        self._complete = True

    @property
    def complete(self) -> bool:
        """Preloaded: everything is in memory."""
        return self._complete

    def edges(self, stored: Iterable[tuple]) -> list[Edge]:
        """Edge rows as stored (`store.edges.stored_edges_*`) as Edge values with what the
        `edges` view shows (path, hex ids, labels). A full resolution reads every edge: the
        view's join, label CASEs and hex() per row cost more than these conversions
        (docs/BENCHMARKS.md)."""
        if self._paths is None:
            self._paths = path_names(self.db)
        paths, types, labels, new = self._paths, _TYPE_LABELS, _CONFIDENCE_LABELS, tuple.__new__
        # `x.hex() if x else None`: the view's nullif(lower(hex(x)), '') (NULL and empty blobs: None)
        return [new(Edge, (rowid, paths[file_id], line, src.hex() if src else None, name, types[kind],
                           module or "", receiver or "", alias or "", to.hex() if to else None, labels[conf]))
                for rowid, file_id, line, src, name, kind, module, receiver, alias, to, conf
                in stored]

    def warm(self, paths: list[str]) -> None:
        """Load the symbols and import edges of many files in a few queries (an incremental
        resolution touches the files that use what changed: hundreds of small reads else)."""
        todo = sorted({p for p in paths if p not in self._by_path})
        for i in range(0, len(todo), 500):
            chunk = todo[i:i + 500]
            syms: dict[str, list[Sym]] = {p: [] for p in chunk}
            for s in map(Sym._make, symbols_in_paths(self.db, chunk)):
                syms[s.path].append(s)
            for p, got in syms.items():
                self._by_path[p] = got
                self._remember(got)
            imps: dict[str, list[Edge]] = {p: [] for p in chunk if p not in self._imports}
            for e in map(Edge._make, imports_in_paths(self.db, chunk)):
                if e.path in imps:
                    imps[e.path].append(e)
            self._imports.update(imps)

    # -- files
    def files(self) -> dict[str, str]:
        """path -> language of every indexed file."""
        if self._files is None:
            self._files = file_languages(self.db, *self.key)
        return self._files

    # -- symbols
    def in_file(self, path: str) -> list[Sym]:
        """Symbols of one file, in line order."""
        return self._memo(self._by_path, path, symbols_in_file, Sym._make, self._remember)

    def _remember(self, syms: list[Sym]) -> None:
        for s in syms:
            self._by_id[s.id] = s

    def _memo(self, memo: dict, key: str, read: Callable[[sqlite3.Connection, str], Iterable[tuple]], convert,
              loaded=None) -> list:
        """memo[key], loaded with `read(db, key)` on first use; after preload() a missing key
        simply means nothing."""
        got = memo.get(key)
        if got is None:
            if self._complete:
                return []
            got = list(map(convert, read(self.db, key)))
            memo[key] = got
            if loaded is not None:
                loaded(got)
        return got

    def named(self, name: str) -> list[Sym]:
        """Every symbol with exactly this name, in (path, line) order."""
        got = self._by_name.get(name)
        if got is None:
            if self._complete:
                return []
            got = [s for s in map(Sym._make, symbols_named(self.db, name)) if s.name == name]
            self._by_name[name] = got
            for s in got:
                self._by_id.setdefault(s.id, s)
        return got

    def few_named(self, name: str, kinds: tuple[str, ...], languages: tuple[str, ...]) -> list[Sym]:
        """Up to two symbols with exactly this name, one of `kinds`, in one of `languages`:
        enough to tell none, one and several apart without reading a popular name's hundreds."""
        key = (name, kinds, languages)
        got = self._few.get(key)
        if got is None:
            if self._complete or name in self._by_name:
                # remembered too: a popular name's hundreds are filtered once, not per question
                got = [s for s in self.named(name) if s.kind in kinds and s.language in languages][:2]
            else:
                got = list(map(Sym._make, few_symbols_named(self.db, name, kinds, languages)))
            self._few[key] = got
        return got

    def get(self, symbol_id: str | None) -> Sym | None:
        if symbol_id is None:
            return None
        s = self._by_id.get(symbol_id)
        if s is None and not self._complete:
            row = symbol_by_id(self.db, symbol_id)
            if row is not None:
                s = Sym._make(row)
                self._by_id[s.id] = s
        return s

    def top_level(self, path: str, name: str) -> list[Sym]:
        return self.children_of(path, None).get(name, [])

    def children(self, sym: Sym, name: str) -> list[Sym]:
        return self.children_of(sym.path, sym.id).get(name, [])

    def children_of(self, path: str, parent: str | None) -> dict[str, list[Sym]]:
        """name -> symbols directly inside `parent` (None: the file's top level)."""
        tree = self._children.get(path)
        if tree is None:
            tree = {}
            for s in self.in_file(path):
                tree.setdefault(s.parent or "", {}).setdefault(s.name, []).append(s)
            self._children[path] = tree
        return tree.get(parent or "", {})

    def firsts_of(self, path: str, parent: str | None) -> dict[str, Sym]:
        """name -> the first definition (by line, then id: `common.first`) of that name directly
        inside `parent`: what a class member lookup asks (tens of thousands of times in a full
        resolution), without a min() per question."""
        tree = self._firsts.get(path)
        if tree is None:
            tree = self._firsts[path] = {}
        got = tree.get(parent or "")
        if got is None:
            got = tree[parent or ""] = {
                name: syms[0] if len(syms) == 1 else min(syms, key=lambda s: (s.line, s.id))
                for name, syms in self.children_of(path, parent).items()}
        return got

    def local_names(self, path: str) -> tuple[frozenset[str], frozenset[str]] | None:
        """(names, ids) of the symbols of `path` when the file is closed (every parent link
        of its symbols points inside it, so a walk up the scopes from one of its symbols
        sees only its names; ids are unique, so an id of the file is a symbol of the file),
        else None. Most bare names a file uses are defined nowhere in it (docs/BENCHMARKS.md):
        this answers them at once."""
        if path in self._local:
            return self._local[path]
        syms = self.in_file(path)
        ids = frozenset(s.id for s in syms)
        got = None
        if all(s.parent is None or s.parent in ids for s in syms):
            got = (frozenset(s.name for s in syms), ids)
        self._local[path] = got
        return got

    # -- import edges
    def imports(self, path: str) -> list[Edge]:
        """Import edges of one file, in line order."""
        return self._memo(self._imports, path, imports_of_file, Edge._make)


class LayeredGraph(Graph):
    """An overlay's graph over its base's, for resolving the overlay's edges: the overlay's
    symbols and imports for every path it shadows (changed, added or deleted on the ref), the
    base's for the rest, so a use in a changed file of a definition only the base holds is
    resolved to that base definition, and never to one of a path the ref changed or deleted.

    The derived lookups (`top_level`, `children_of`, `firsts_of`, `local_names`) are Graph's,
    built on the routed primitives below. `preload` loads the overlay only: the base is read
    on demand (a few indexed queries per name or file the overlay's edges ask about), as an
    overlay's sync must not cost a read of the whole base."""

    def __init__(self, top: Graph, base: Graph, shadow: frozenset[str], state: str):
        super().__init__(top.db, *top.key, self._text)
        self.top, self.base, self.shadow = top, base, shadow
        self.state = state  # the base state this resolution holds for (`refs.resolve`)
        self._merged: dict[str, str] | None = None

    def _layer(self, path: str) -> Graph:
        return self.top if path in self.shadow else self.base

    def _text(self, path: str) -> str | None:
        return self._layer(path).read_text(path)

    def preload(self, imports: list[Edge] | None = None) -> None:
        self.top.preload(imports)

    def edges(self, stored: Iterable[tuple]) -> list[Edge]:
        return self.top.edges(stored)

    def warm(self, paths: list[str]) -> None:
        self.top.warm([p for p in paths if p in self.shadow])
        self.base.warm([p for p in paths if p not in self.shadow])

    def files(self) -> dict[str, str]:
        if self._merged is None:
            merged = {p: lang for p, lang in self.base.files().items() if p not in self.shadow}
            merged.update(self.top.files())
            self._merged = merged
        return self._merged

    def in_file(self, path: str) -> list[Sym]:
        return self._layer(path).in_file(path)

    def imports(self, path: str) -> list[Edge]:
        return self._layer(path).imports(path)

    def named(self, name: str) -> list[Sym]:
        got = self._by_name.get(name)
        if got is None:
            got = self._by_name[name] = sorted(
                self.top.named(name) + [s for s in self.base.named(name) if s.path not in self.shadow],
                key=_path_line_id)
        return got

    def few_named(self, name: str, kinds: tuple[str, ...], languages: tuple[str, ...]) -> list[Sym]:
        key = (name, kinds, languages)
        got = self._few.get(key)
        if got is None:
            base = self.base.few_named(name, kinds, languages)
            if any(s.path in self.shadow for s in base):  # two shadowed ones may hide a visible third
                base = [s for s in self.base.named(name) if s.kind in kinds and s.language in languages]
            visible = [s for s in base if s.path not in self.shadow]
            got = self._few[key] = sorted(self.top.few_named(name, kinds, languages) + visible,
                                          key=_path_line_id)[:2]
        return got

    def get(self, symbol_id: str | None) -> Sym | None:
        s = self.top.get(symbol_id)
        if s is None:
            s = self.base.get(symbol_id)
            if s is not None and s.path in self.shadow:
                return None
        return s

"""Storage: the only module that knows disk formats (SQLite and Tantivy).

Layout under `$CRUXE_HOME/data/<project_id>/`:

    state.db                         control plane: projects, known_workspaces, index_jobs,
                                     branch_tombstones
    locks/<ref>.lock                 one writer per project+ref (flock; dies with its process)
    refs/<ref>/CURRENT               the published generation number (atomic rename)
    refs/<ref>/gen-<n>/index.db      data plane: file_manifest, symbol_relations, symbol_edges,
                                     branch_state, meta (schema version)
    refs/<ref>/gen-<n>/{symbols,snippets,files}/   the three Tantivy indices

A generation is a complete, self-consistent index of one ref. Incremental syncs write into
the published generation (Tantivy commit first, then one SQLite transaction ending with the
manifest); `--force` and schema upgrades build a new generation beside the live one and
publish it by rewriting CURRENT, so readers keep the old data until the new data is whole.
SQLite in WAL mode cannot make a transaction atomic across two database files, which is why
everything one sync must change together lives in the generation's own `index.db`.
"""
from __future__ import annotations

import atexit
import errno
import fcntl
import json
import logging
import os
import re
import shutil
import sqlite3
import stat
import tempfile
import threading
import time
import urllib.parse
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import tantivy

from ..errors import CruxeError
from ..codetokens import IDENT_PATTERN, PARTS_PATTERN, code_terms  # noqa: F401 - re-exported

log = logging.getLogger(__name__)

SCHEMA_VERSION = 21  # bump when any table or Tantivy field changes meaning; forces reindex
# Tantivy writer heaps, per index, sized to what each holds (a full heap flushes a segment):
# snippets carry the source text, symbols a row per definition, files a head per file. 64 MB
# each measured 192 MB of the indexer's peak for no speed gained on go-5k.
WRITER_HEAP_BYTES = {"snippets": 40_000_000, "symbols": 24_000_000, "files": 15_000_000}  # 15 MB: minimum
SQLITE_BUSY_TIMEOUT_MS = 5_000

# Analyzers (not persisted by Tantivy: registered at every open).
# cruxe_ws: terms pre-split in Python (`codetokens.code_terms`, in the parser workers),
# separated by whitespace; lower-cased by Tantivy. Every searched field uses it.
_STATE_SCHEMA = """
CREATE TABLE IF NOT EXISTS projects (
  project_id TEXT PRIMARY KEY, repo_root TEXT NOT NULL, vcs_mode INTEGER NOT NULL,
  default_ref TEXT NOT NULL, schema_version INTEGER NOT NULL, parser_version TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS known_workspaces (
  workspace_path TEXT PRIMARY KEY, project_id TEXT NOT NULL,
  registered_at TEXT NOT NULL, last_used_at TEXT);
CREATE TABLE IF NOT EXISTS index_jobs (
  job_id TEXT PRIMARY KEY, repo TEXT NOT NULL, "ref" TEXT NOT NULL, mode TEXT NOT NULL,
  status TEXT NOT NULL, pid INTEGER, generation INTEGER,
  changed_files INTEGER DEFAULT 0, deleted_files INTEGER DEFAULT 0,
  files_total INTEGER DEFAULT 0, files_done INTEGER DEFAULT 0,
  symbol_count INTEGER DEFAULT 0, warning_count INTEGER DEFAULT 0,
  created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT, duration_ms INTEGER,
  error TEXT, recovered_at TEXT);
CREATE INDEX IF NOT EXISTS index_jobs_ref ON index_jobs(repo, "ref", created_at);
CREATE TABLE IF NOT EXISTS branch_tombstones (
  repo TEXT NOT NULL, "ref" TEXT NOT NULL, path TEXT NOT NULL, deleted_at TEXT NOT NULL,
  PRIMARY KEY (repo, "ref", path));
"""

# Edge types and resolution labels are stored as small integers (most rows are edges: text
# labels were 13 of their ~70 bytes); the codes of the commonest are 0 and 1, which SQLite
# stores in no bytes at all. The `edges` view and `edge_type_sql`/`confidence_sql` give the
# labels back; writers go through EDGE_TYPE_CODES / CONFIDENCE_CODES.
EDGE_TYPE_CODES = {"calls": 0, "references": 1, "imports": 2}
CONFIDENCE_CODES = {"ambiguous": 0, "scope": 1, "import": 2, "unique_name": 3, "unknown": 4, "external": 5,
                    "receiver": 6, "opaque": 7, "module": 8}

# The edges a changed definition elsewhere can re-resolve: unresolved ones and those resolved
# by unique name (`refs.resolve._work`); se_tail holds only these (~half the rows). A query
# reaches it only when its WHERE repeats this text exactly.
RETRY_SQL = f"(e.to_symbol_id IS NULL OR e.confidence = {CONFIDENCE_CODES['unique_name']})"
EDGES_RESOLVER_KEY = "edges_resolver"  # meta key: version of the rules that resolved the edges
EDGES_DEFERRED_KEY = "edges_deferred"  # meta key: a bulk build holds its edges (defer_edge_indexes)


def tail_sql(alias: str | None = None) -> str:
    """The last segment of a `symbol_edges` row's to_name (`os.path` -> `path`, `crate::a::B` ->
    `B`; `name_tail` in Python), in SQL: the `edges` view's `to_tail` and the se_tail index's
    expression, which a query must spell to use the index. An expression, not a generated
    column: SQLite computes a table's virtual columns on every insert and update of a row,
    which cost ~1.5 CPU-s of a Django+Salt index (655k edges inserted, then resolved). Most
    names have no separator and are their own tail: `instr` says so before the rtrim, whose
    character set is the name itself (Django+Salt, the expression over 655k rows 0.65 -> 0.05
    CPU-s, and se_tail's CREATE INDEX 0.64 -> ~0.1)."""
    col = f"{alias}.to_name" if alias else "to_name"
    last = f"substr({col}, length(rtrim({col}, replace(replace(replace({col}, '.', ''), ':', ''), '/', ''))) + 1)"
    return f"CASE WHEN instr({col}, '.') OR instr({col}, ':') OR instr({col}, '/') THEN {last} ELSE {col} END"


# One generation holds one repo and ref: edge indexes need no prefix (smaller, faster);
# unresolved edges (most of them) stay out of se_to. A bulk build leaves them out until its
# edges are written and resolved (see `defer_edge_indexes`).
_EDGE_INDEXES = f"""
CREATE INDEX IF NOT EXISTS se_to ON symbol_edges(to_symbol_id) WHERE to_symbol_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS se_tail ON symbol_edges({tail_sql()}) WHERE {RETRY_SQL.replace("e.", "")};
CREATE INDEX IF NOT EXISTS se_pending ON symbol_edges(file_id) WHERE confidence IS NULL;
"""
_EDGE_INDEX_NAMES = ("se_to", "se_tail", "se_pending")

def _labels_sql(column: str, codes: dict[str, int]) -> str:
    return f"CASE {column} " + " ".join(f"WHEN {c} THEN '{label}'" for label, c in codes.items()) + " END"


def edge_type_sql(alias: str) -> str:
    """The edge type label of `symbol_edges` row `alias`, in SQL."""
    return _labels_sql(f"{alias}.edge_type", EDGE_TYPE_CODES)


def confidence_sql(alias: str) -> str:
    """The confidence label (NULL: pending) of `symbol_edges` row `alias`, in SQL."""
    return _labels_sql(f"{alias}.confidence", CONFIDENCE_CODES)


def name_lower_sql(alias: str | None = None) -> str:
    """The lower-cased name of a `symbols` row (named `alias` in a query), as the sr_name index
    computes it: a query must spell the index's expression to use it, so both come from here."""
    col = f"{alias}." if alias else ""
    return f"coalesce({col}name_folded, lower({col}name))"


# A bulk build leaves these out too until its symbols are written (`defer_symbol_indexes`).
_SYMBOL_INDEXES = f"""
CREATE INDEX IF NOT EXISTS sr_name ON symbols({name_lower_sql()});
CREATE INDEX IF NOT EXISTS sr_path ON symbols(file_id, line_start);
CREATE INDEX IF NOT EXISTS sr_id ON symbols(symbol_id);
"""
_SYMBOL_INDEX_NAMES = ("sr_name", "sr_path", "sr_id")


def id_sql(column: str) -> str:
    """A stored 8-byte id (symbol_id, parent_symbol_id, from/to_symbol_id) as its 16 hex digits."""
    return f"nullif(lower(hex({column})), '')"  # hex(NULL) is ''; NULL stays NULL


def id_blob(symbol_id: str | None) -> bytes | None:
    """The stored form of a hex id or hash (its 8 bytes: half the text's size). Not an id at
    all (no id Cruxe made is anything but 16 hex digits) -> a value no row holds."""
    if symbol_id is None:
        return None
    try:
        return bytes.fromhex(symbol_id)
    except ValueError:
        return b""


# The `symbol_relations` view's columns, for readers that must go to the tables (an id lookup:
# the view's hex ids are expressions no index serves); `s` is `symbols`, `f` is `paths`.
SYMBOL_VIEW_COLUMNS = (
    f'{id_sql("s.symbol_id")} AS symbol_id, {id_sql("s.symbol_stable_id")} AS symbol_stable_id, s.name, '
    "s.qualified_name, s.kind, s.language, f.path AS path, s.line_start, s.line_end, s.signature, s.visibility, "
    f'{id_sql("s.parent_symbol_id")} AS parent_symbol_id, {id_sql("s.content_hash")} AS content_hash, '
    f'{name_lower_sql("s")} AS name_lower')


_INDEX_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS file_manifest (
  repo TEXT NOT NULL, "ref" TEXT NOT NULL, path TEXT NOT NULL, content_hash TEXT NOT NULL,
  size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, language TEXT, indexed_at TEXT NOT NULL,
  symbol_count INTEGER NOT NULL DEFAULT 0, warnings TEXT,
  PRIMARY KEY (repo, "ref", path));
-- A generation holds one repo and one ref: its rows carry neither, and a file's path once
-- (`paths`), referred to by a small integer. Readers use the views `symbol_relations` and
-- `edges`, which have the contract's columns (repo and ref from the one branch_state row).
-- A file's edges are inserted together, so they hold the consecutive rowids edge_lo..edge_hi
-- (NULL: none): a file's edges are found by that range, with no index on file_id.
CREATE TABLE IF NOT EXISTS paths (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
  edge_lo INTEGER, edge_hi INTEGER);
-- name_folded: Python's lower() of a name where SQLite's (ASCII-only) differs, else NULL;
-- ids and hashes as their 8 bytes (`id_blob`; the views show hex: `id_sql`)
CREATE TABLE IF NOT EXISTS symbols (
  symbol_id BLOB NOT NULL, symbol_stable_id BLOB NOT NULL, name TEXT NOT NULL,
  qualified_name TEXT NOT NULL, kind TEXT NOT NULL, language TEXT NOT NULL, file_id INTEGER NOT NULL,
  line_start INTEGER NOT NULL, line_end INTEGER NOT NULL, signature TEXT, visibility TEXT,
  parent_symbol_id BLOB, content_hash BLOB, name_folded TEXT);
{_SYMBOL_INDEXES}
CREATE VIEW IF NOT EXISTS symbol_relations AS SELECT k.repo AS repo, k."ref" AS "ref", {SYMBOL_VIEW_COLUMNS}
  FROM branch_state k CROSS JOIN symbols s JOIN paths f ON f.id = s.file_id;
CREATE TABLE IF NOT EXISTS symbol_edges (
  from_symbol_id BLOB, to_symbol_id BLOB, to_name TEXT NOT NULL, edge_type INTEGER NOT NULL,
  file_id INTEGER NOT NULL, source_line INTEGER NOT NULL, confidence INTEGER, module TEXT, receiver TEXT,
  alias TEXT);
CREATE VIEW IF NOT EXISTS edges AS SELECT e.rowid AS rowid, {id_sql("e.from_symbol_id")} AS from_symbol_id,
  {id_sql("e.to_symbol_id")} AS to_symbol_id, e.to_name,
  {edge_type_sql("e")} AS edge_type, f.path AS source_file, e.source_line,
  {confidence_sql("e")} AS confidence, e.module, e.receiver, {tail_sql("e")} AS to_tail
  FROM symbol_edges e JOIN paths f ON f.id = e.file_id;
{_EDGE_INDEXES}
CREATE TABLE IF NOT EXISTS edge_dirty_names (
  repo TEXT NOT NULL, "ref" TEXT NOT NULL, name TEXT NOT NULL,
  PRIMARY KEY (repo, "ref", name)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS branch_state (
  repo TEXT NOT NULL, "ref" TEXT NOT NULL, last_indexed_commit TEXT, file_count INTEGER,
  symbol_count INTEGER, last_indexed_at TEXT, cursor INTEGER NOT NULL DEFAULT 0,
  complete INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (repo, "ref"));
"""
# created in one transaction: a kill leaves all of the schema or none of it
_STATE_SCHEMA_TX = f"BEGIN IMMEDIATE;{_STATE_SCHEMA}COMMIT;"


def is_engine_panic(e: BaseException) -> bool:
    """A Rust panic inside Tantivy (e.g. on a damaged segment file) reaches Python as pyo3's
    PanicException, a BaseException that `except Exception` does not catch; the class is
    not importable, so it is known by name."""
    return type(e).__name__ == "PanicException"


def is_corruption(e: sqlite3.DatabaseError) -> bool:
    """SQLite says the file is damaged (not busy, locked or missing a table), or a stored text
    is not UTF-8 (we only ever write UTF-8: damaged bytes inside an intact page)."""
    return (getattr(e, "sqlite_errorname", "").startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB"))
            or "Could not decode to UTF-8" in str(e))


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _set_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. Two processes creating the same new database at once can get
    SQLITE_BUSY here without SQLite calling the busy handler (the switch needs an
    exclusive lock), so the switch is retried within the usual busy timeout."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    delay = 0.005
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if ("locked" not in str(e) and "busy" not in str(e)) or time.monotonic() > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


def connect(path: Path) -> sqlite3.Connection:
    """A SQLite connection with the FR-017 pragmas. When the file exists but its directory
    takes no writes (a read-only or full disk: WAL needs its `-shm` file), it is opened as it
    is, for reading: queries still answer, and a write says what is wrong (`storage_error`)."""
    try:
        return _configure(sqlite3.connect(str(path), timeout=SQLITE_BUSY_TIMEOUT_MS / 1000,
                                          isolation_level=None, check_same_thread=False), wal=True)
    except sqlite3.DatabaseError as e:
        kind = None if is_corruption(e) else storage_kind(e, path)
        if kind is None:
            raise CruxeError("index_incompatible", f"cannot open {path.name}: {e}",
                             {"remediation": "cruxe index --force"}) from e
        if not path.is_file():
            raise storage_error(e, path, f"cannot create {path.name}") from e
        log.warning("%s: %s; reading it as it is", path, STORAGE_PROBLEMS[kind])
        try:
            return _configure(sqlite3.connect(f"file:{urllib.parse.quote(str(path))}?immutable=1", uri=True,
                                              isolation_level=None, check_same_thread=False), wal=False)
        except sqlite3.DatabaseError:
            raise storage_error(e, path, f"cannot open {path.name}") from e


def _configure(conn: sqlite3.Connection, wal: bool) -> sqlite3.Connection:
    if wal:
        _set_wal(conn)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA cache_size=-65536")  # 64 MB
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    conn.row_factory = sqlite3.Row
    return conn


# ---- the disk under $CRUXE_HOME ------------------------------------------------------------

STORAGE_PROBLEMS = {"full": "no space left", "read-only": "not writable", "not-a-directory": "not a directory"}
LOW_SPACE_BYTES = 1 << 20  # less free than this where a write failed: the disk is full


def storage_kind(e: BaseException, where: Path) -> str | None:
    """What a failed open or write under `where` says about the disk: "full", "read-only",
    "not-a-directory", or None when it is something else. SQLite's and Tantivy's vaguer
    reports ("disk I/O error", "unable to open database file", "readonly database", "An
    index writer was killed") are settled by asking the disk itself."""
    code, text = getattr(e, "errno", None), str(e)
    if code in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in text or "os error 28" in text:
        return "full"
    if code in (errno.ENOTDIR, errno.EEXIST, errno.EISDIR):
        return "not-a-directory"
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or "os error 30" in text or "os error 13" in text:
        return _disk_state(where) or "read-only"
    if isinstance(e, (sqlite3.OperationalError, ValueError)):
        return _disk_state(where)
    return None


def _disk_state(where: Path) -> str | None:
    p = where
    while not p.exists() and p != p.parent:
        p = p.parent
    if p.is_file():
        p = p.parent
    try:
        st = os.statvfs(p)
    except OSError:
        return None
    if st.f_bavail * st.f_frsize < LOW_SPACE_BYTES:
        return "full"
    return None if os.access(p, os.W_OK) else "read-only"


def storage_error(e: BaseException, where: Path, doing: str) -> CruxeError:
    """The CruxeError for a failed open or write under $CRUXE_HOME (`storage_kind`), with a
    remedy that works; something else is reported as it is."""
    kind = storage_kind(e, where)
    if kind == "full":
        return CruxeError("internal_error", f"{doing}: no space left under $CRUXE_HOME ({where})",
                          {"remedy": "Free space on the disk that holds $CRUXE_HOME (or point CRUXE_HOME at another "
                                     "disk), then run `cruxe sync`: it finishes what was interrupted."})
    if kind == "read-only":
        return CruxeError("internal_error", f"{doing}: $CRUXE_HOME is not writable ({where})",
                          {"remedy": "Make $CRUXE_HOME writable, or point CRUXE_HOME at a writable directory "
                                     "(queries still answer from a read-only one; index and sync cannot)."})
    if kind == "not-a-directory":
        culprit = Path(getattr(e, "filename", None) or where)
        culprit = next((p for p in reversed([culprit, *culprit.parents]) if p.exists() and not p.is_dir()), culprit)
        return CruxeError("internal_error", f"{doing}: {culprit} is in the way (a file where a directory belongs, "
                          "or the reverse)", {"remedy": "Point CRUXE_HOME at a directory; inside a project's data "
                                              "directory, `cruxe index --force` moves aside what is in the way."})
    return CruxeError("internal_error", f"{doing}: {type(e).__name__}: {e}"[:500])


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def ref_slug(ref: str) -> str:
    """A file-system-safe, collision-free directory name for a ref."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", ref)[:60]
    if safe == ref and safe not in (".", ".."):
        return safe
    import blake3
    return f"{safe}-{blake3.blake3(ref.encode()).hexdigest()[:8]}"


# ---- Tantivy schemas ----------------------------------------------------------------------

def _common_fields(sb: tantivy.SchemaBuilder, stored: bool = True) -> None:
    for name in ("repo", "ref", "file_key"):
        sb.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("path", stored=stored, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("path_tokens", stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field("language", stored=stored, tokenizer_name="raw", index_option="basic")
    if stored:
        sb.add_integer_field("line_start", stored=True, indexed=False)
        sb.add_integer_field("line_end", stored=True, indexed=False)


# Fields stored as UTF-8 bytes, which Tantivy keeps without indexing (a stored text field is
# always indexed). The parser workers encode them (`index.build_documents`) and `read_doc`
# decodes them.
# A symbol document stores only its `symbol_id`: what a hit shows (path, lines, name,
# signature...) is read from the `symbols` table by that id (`retrieve.run_channel`), so the
# symbols index keeps no second copy of the table (go-5k: 29.5 -> 18.2 MB). A snippet
# stores its text as `source`; what is searched is its `code_terms`.
STORED_ONLY: dict[str, tuple[str, ...]] = {"symbols": ("symbol_id",), "snippets": ("source",), "files": ()}


def _symbols_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    _common_fields(sb, stored=False)
    for name in STORED_ONLY["symbols"]:
        sb.add_bytes_field(name, stored=True, indexed=False)
    sb.add_text_field("symbol_exact", stored=False, tokenizer_name="raw", index_option="freq")
    sb.add_text_field("name_tokens", stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field("qualified_tokens", stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field("signature_tokens", stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field("doc_tokens", stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field("kind", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("parent_name", stored=False, tokenizer_name="raw", index_option="basic")
    return sb.build()


def _snippets_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    _common_fields(sb)
    for name in STORED_ONLY["snippets"]:
        sb.add_bytes_field(name, stored=True, indexed=False)
    sb.add_text_field("content", stored=False, tokenizer_name="cruxe_ws", index_option="position")
    sb.add_text_field("content_parts", stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    # the constant segments of the messages the chunk's raise/panic/log calls emit (literals.py)
    sb.add_text_field("error_literals", stored=False, tokenizer_name="cruxe_ws", index_option="position")
    sb.add_text_field("chunk_kind", stored=True, tokenizer_name="raw", index_option="basic")
    return sb.build()


def _files_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    _common_fields(sb)
    sb.add_text_field("filename", stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field("content_head", stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_integer_field("size", stored=True, indexed=False)
    return sb.build()


SCHEMAS = {"symbols": _symbols_schema, "snippets": _snippets_schema, "files": _files_schema}
INDEX_NAMES = tuple(SCHEMAS)


def _register_analyzers(index: tantivy.Index) -> None:
    ws = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.lowercase()).build()
    index.register_tokenizer("cruxe_ws", ws)


def _open_tantivy(path: Path, name: str, create: bool) -> tantivy.Index:
    schema = SCHEMAS[name]()
    try:
        if create:
            path.mkdir(parents=True, exist_ok=True)
            index = tantivy.Index(schema, path=str(path), reuse=True)
        else:
            if not (path / "meta.json").is_file():
                raise CruxeError("index_incompatible", f"Tantivy index '{name}' is missing",
                                 {"remediation": "cruxe index --force"})
            index = tantivy.Index.open(str(path))
    except ValueError as e:
        kind = storage_kind(e, path)
        if kind == "read-only" and not create:
            index = _open_snapshot(path, name)
        elif kind:
            raise storage_error(e, path, f"cannot open the Tantivy index '{name}'") from e
        else:
            raise CruxeError("index_incompatible", f"Tantivy index '{name}' cannot be opened: {e}",
                             {"remediation": "cruxe index --force"}) from e
    _register_analyzers(index)
    return index


def _open_snapshot(path: Path, name: str) -> tantivy.Index:
    """A Tantivy index under a read-only $CRUXE_HOME, opened from a private copy: Tantivy
    takes a lock file even to read, which a read-only disk refuses. Nothing under a read-only
    home changes, so the copy is the index; it is removed when the process exits."""
    copy = Path(tempfile.mkdtemp(prefix=f"cruxe-ro-{name}-"))
    atexit.register(shutil.rmtree, copy, True)
    shutil.copytree(path, copy, dirs_exist_ok=True)
    log.warning("$CRUXE_HOME is read-only: the '%s' index is read from a copy in %s", name, copy)
    try:
        return tantivy.Index.open(str(copy))
    except ValueError as e:
        raise CruxeError("index_incompatible", f"Tantivy index '{name}' cannot be opened: {e}",
                         {"remediation": "cruxe index --force"}) from e


# ---- one generation of one ref ---------------------------------------------------------------

class Generation:
    """A complete index of one ref: index.db plus the three Tantivy indices.

    Thread-safe for readers: one SQLite connection per thread; Tantivy searchers are
    shareable and reloaded only when the index's meta.json changes (a stat per check).
    """

    def __init__(self, path: Path, number: int, create: bool = False):
        self.path = path
        self.number = number
        if create:
            path.mkdir(parents=True, exist_ok=True)
        elif not (path / "index.db").is_file():
            raise CruxeError("index_incompatible", f"generation {number} has no index.db",
                             {"remediation": "cruxe index --force"})
        self._local = threading.local()
        self._lock = threading.Lock()
        # every thread's connection, with its thread: a connection is a reference cycle (its
        # statement cache calls it), so dropping one frees it only at the next cyclic garbage
        # collection, and a server kept the files of replaced generations open (deleted, on
        # disk still) for as long. They are closed when the generation is freed, that is when
        # the last query holding it is done (`weakref.finalize`), and a dead thread's when the
        # next thread opens one.
        self._conns: list[tuple[threading.Thread, sqlite3.Connection]] = []
        weakref.finalize(self, _close_connections, self._conns)
        self._tantivy: dict[str, tantivy.Index] | None = None
        try:
            self._tantivy = {n: _open_tantivy(path / n, n, create) for n in INDEX_NAMES}
        except CruxeError as e:
            # a disk problem (a full one, say) is raised at first use instead: index.db needs
            # no Tantivy, so status still answers
            if create or e.code == "index_incompatible":
                raise
        self._meta_mtime: dict[str, int] = {}
        if create:  # one transaction: a kill leaves all of the schema or none of it
            self.db.executescript(f"BEGIN IMMEDIATE;{_INDEX_SCHEMA}INSERT OR REPLACE INTO meta "
                                  f"VALUES ('schema_version', '{SCHEMA_VERSION}');COMMIT;")

    @property
    def tantivy(self) -> dict[str, tantivy.Index]:
        indices = self._tantivy
        if indices is None:
            with self._lock:
                if self._tantivy is None:
                    self._tantivy = {n: _open_tantivy(self.path / n, n, False) for n in INDEX_NAMES}
                indices = self._tantivy
        return indices

    @property
    def db(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.path / "index.db")
            self._local.conn = conn
            with self._lock:
                _close_connections(self._conns, dead_threads_only=True)
                self._conns.append((threading.current_thread(), conn))
        return conn

    def schema_version(self) -> int | None:
        try:
            row = self.db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        except (sqlite3.DatabaseError, CruxeError):  # unreadable, or could not even be opened
            return None
        return int(row[0]) if row else None

    def searcher(self, name: str) -> tantivy.Searcher:
        """A searcher that sees the latest commit of that index."""
        index = self.tantivy[name]
        try:
            mtime = (self.path / name / "meta.json").stat().st_mtime_ns
        except OSError:
            mtime = -1
        if self._meta_mtime.get(name) != mtime:
            with self._lock:
                index.reload()
                self._meta_mtime[name] = mtime
        return index.searcher()

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            with self._lock:
                self._conns[:] = [(t, c) for t, c in self._conns if c is not conn]
            conn.close()
            self._local.conn = None


def _close_connections(conns: list[tuple[threading.Thread, sqlite3.Connection]],
                       dead_threads_only: bool = False) -> None:
    """Close the connections in `conns` (those of threads that ended) and drop them from it."""
    keep = []
    for thread, conn in conns:
        if dead_threads_only and thread.is_alive():
            keep.append((thread, conn))
        else:
            conn.close()
    conns[:] = keep


# ---- the project ---------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ProjectInfo:
    project_id: str
    repo_root: str
    vcs_mode: bool
    default_ref: str
    schema_version: int


def _heal_state_schema(conn: sqlite3.Connection) -> None:
    """A process killed while creating state.db leaves a database without its tables (the
    file exists from the first pragma on): that is a project not registered yet, not a
    corrupt one, so the tables are created on open. A database SQLite cannot read is left
    as it is, for the readers to report (`state_error`, doctor, --force)."""
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='projects'").fetchone() is None:
            conn.executescript(_STATE_SCHEMA_TX)
    except sqlite3.DatabaseError:
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.DatabaseError:
            pass


class ProjectStore:
    """Everything Cruxe keeps for one repository under `$CRUXE_HOME/data/<project_id>`."""

    def __init__(self, home: Path, project_id: str):
        self.home = Path(home)
        self.project_id = project_id
        self.dir = self.home / "data" / project_id
        self._local = threading.local()
        self._gens: dict[tuple[str, int], Generation] = {}
        self._gens_lock = threading.Lock()
        self.state_error: str | None = None  # set when state.db could not be read

    # -- state.db
    @property
    def state(self) -> sqlite3.Connection:
        conn = getattr(self._local, "state", None)
        if conn is None:
            if not self.dir.is_dir():
                try:
                    self.dir.mkdir(parents=True, exist_ok=True)
                except OSError as e:
                    raise storage_error(e, self.dir, "cannot create the project's data directory") from e
            conn = connect(self.dir / "state.db")
            _heal_state_schema(conn)
            self._local.state = conn
        return conn

    def exists(self) -> bool:
        """The project has a state.db. Raises when $CRUXE_HOME or its `data` directory is
        not a directory (a project's own directory in the way is `index --force`'s to move)."""
        if (self.dir / "state.db").is_file():
            return True
        for p in (self.home, self.home / "data"):
            if p.exists() and not p.is_dir():
                raise storage_error(NotADirectoryError(errno.ENOTDIR, "Not a directory", str(p)), p,
                                    "cannot use $CRUXE_HOME")
        return False

    def ensure_schema(self) -> None:
        try:
            self.state.executescript(_STATE_SCHEMA_TX)
        except sqlite3.DatabaseError as e:
            if not is_corruption(e) and storage_kind(e, self.dir):
                raise storage_error(e, self.dir, "cannot write state.db") from e
            raise CruxeError("index_incompatible", f"state.db is unreadable: {e}",
                             {"remediation": "cruxe index --force"}) from e

    def project(self) -> ProjectInfo | None:
        """The registration, or None. A corrupt state.db reads as None with `state_error`
        set, so a server still starts and answers index_incompatible with the remedy."""
        try:
            row = self.state.execute(
                "SELECT project_id, repo_root, vcs_mode, default_ref, schema_version FROM projects "
                "WHERE project_id=?", (self.project_id,)).fetchone()
        except (sqlite3.DatabaseError, CruxeError) as e:
            self.state_error = e.message if isinstance(e, CruxeError) else f"state.db is unreadable: {e}"
            return None
        if row is None:
            return None
        return ProjectInfo(row[0], row[1], bool(row[2]), row[3], row[4])

    def upsert_project(self, repo_root: str, vcs_mode: bool, default_ref: str, parser_version: str) -> None:
        ts = now_iso()
        with transaction(self.state) as c:
            c.execute(
                "INSERT INTO projects VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(project_id) DO UPDATE SET "
                "repo_root=excluded.repo_root, vcs_mode=excluded.vcs_mode, default_ref=excluded.default_ref, "
                "parser_version=excluded.parser_version, updated_at=excluded.updated_at",
                (self.project_id, repo_root, int(vcs_mode), default_ref, SCHEMA_VERSION, parser_version, ts, ts))
            c.execute(
                "INSERT INTO known_workspaces VALUES (?,?,?,?) ON CONFLICT(workspace_path) DO UPDATE SET "
                "last_used_at=excluded.last_used_at", (repo_root, self.project_id, ts, ts))

    # -- generations
    def ref_dir(self, ref: str) -> Path:
        return self.dir / "refs" / ref_slug(ref)

    def current_generation_number(self, ref: str) -> int | None:
        """The published generation of a ref, or None when the ref was never indexed.
        Raises CruxeError(index_incompatible) when CURRENT is unreadable."""
        try:
            raw = (self.ref_dir(ref) / "CURRENT").read_text().strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as e:
            raise CruxeError("index_incompatible", f"CURRENT pointer unreadable: {e}",
                             {"remediation": "cruxe index --force"}) from e
        if not raw.isdigit():
            raise CruxeError("index_incompatible", "CURRENT pointer is corrupt",
                             {"remediation": "cruxe index --force"})
        return int(raw)

    def generation(self, ref: str, number: int) -> Generation:
        """Open (cached) a generation for reading/writing."""
        key = (ref, number)
        with self._gens_lock:
            gen = self._gens.get(key)
            if gen is None:
                gen = Generation(self.ref_dir(ref) / f"gen-{number}", number)
                # a newer generation was published: forget older ones of that ref (a query
                # already running on one keeps its object; only the cache lets go)
                for old in [k for k in self._gens if k[0] == ref and k[1] < number]:
                    del self._gens[old]
                self._gens[key] = gen
            return gen

    def current_generation(self, ref: str) -> Generation | None:
        n = self.current_generation_number(ref)
        return None if n is None else self.generation(ref, n)

    def create_generation(self, ref: str) -> Generation:
        ref_dir = self.ref_dir(ref)
        ref_dir.mkdir(parents=True, exist_ok=True)
        existing = [int(p.name[4:]) for p in ref_dir.glob("gen-*") if p.name[4:].isdigit()]
        number = max(existing, default=0) + 1
        gen = Generation(ref_dir / f"gen-{number}", number, create=True)
        with self._gens_lock:
            self._gens[(ref, number)] = gen
        return gen

    def publish_generation(self, ref: str, number: int) -> None:
        """Atomically make `number` the generation readers see, then drop older ones."""
        ref_dir = self.ref_dir(ref)
        tmp = ref_dir / f"CURRENT.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(f"{number}\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, ref_dir / "CURRENT")
        self.gc_generations(ref, keep=number)

    def gc_generations(self, ref: str, keep: int) -> None:
        """Remove generation directories other than `keep` (open readers keep their
        unlinked files on POSIX, so a server still serving an old one is unaffected)."""
        for p in self.ref_dir(ref).glob("gen-*"):
            if p.name != f"gen-{keep}":
                with self._gens_lock:
                    key = (ref, int(p.name[4:])) if p.name[4:].isdigit() else None
                    if key and key in self._gens:
                        self._gens.pop(key).close()
                shutil.rmtree(p, ignore_errors=True)

    def remove_unpublished(self, ref: str) -> None:
        """Remove the generations a killed `--force` (or first index) left half-built: every
        one but CURRENT's. Only the holder of the ref's writer lock may call this (no live
        writer is building one then); with CURRENT unreadable, nothing is known to be spare."""
        try:
            keep = self.current_generation_number(ref)
        except CruxeError:
            return
        if self.ref_dir(ref).is_dir():
            self.gc_generations(ref, keep=-1 if keep is None else keep)

    def _layout(self, ref: str) -> list[tuple[Path, bool]]:
        """(path, must be a directory) for what Cruxe keeps of a ref, parents first."""
        ref_dir = self.ref_dir(ref)
        gens = sorted(ref_dir.glob("gen-*")) if ref_dir.is_dir() else []
        return [(self.dir, True), (self.dir / "state.db", False), (self.dir / "locks", True),
                (self.dir / "locks" / f"{ref_slug(ref)}.lock", False), (self.dir / "refs", True), (ref_dir, True),
                (ref_dir / "CURRENT", False), *((g, True) for g in gens if ".broken-" not in g.name)]

    def _misplaced(self, path: Path, is_dir: bool) -> str | None:
        try:
            mode = os.stat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):  # absent, or a parent is the problem
            return None
        except OSError as e:
            return f"{path}: {e.strerror}"
        if stat.S_ISDIR(mode) == is_dir and (is_dir or stat.S_ISREG(mode)):
            return None
        what = "a directory" if stat.S_ISDIR(mode) else "a file" if stat.S_ISREG(mode) else "a special file"
        return f"{path} is {what} where a {'directory' if is_dir else 'regular file'} belongs"

    def layout_problems(self, ref: str) -> list[str]:
        """What is in the way of the files and directories Cruxe keeps for `ref` (a directory
        where CURRENT or a lock file belongs, a file where `locks/` or `refs/` does)."""
        return [p for path, is_dir in self._layout(ref) if (p := self._misplaced(path, is_dir))]

    def clear_the_way(self, ref: str) -> list[str]:
        """Move aside (`<name>.broken-<time>`) whatever `layout_problems` names, so that
        `index --force` can rebuild; returns what was moved."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        moved = []
        for path, is_dir in self._layout(ref):
            problem = self._misplaced(path, is_dir)
            if problem is None:
                continue
            if path == self.dir / "state.db":
                self.close()
            try:
                os.replace(path, path.with_name(f"{path.name}.broken-{stamp}"))
            except OSError as e:
                raise CruxeError("internal_error", f"cannot move aside {path}: {e.strerror}",
                                 {"remedy": f"Remove {path} and run `cruxe index --force` again."}) from e
            log.warning("%s; moved aside as %s.broken-%s", problem, path.name, stamp)
            moved.append(problem)
        return moved

    # -- writer lock
    @contextmanager
    def writer_lock(self, ref: str) -> Iterator[None]:
        """Hold the single-writer lock for project+ref, or raise index_in_progress."""
        lock_dir = self.dir / "locks"
        try:
            lock_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_dir / f"{ref_slug(ref)}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise storage_error(e, lock_dir, f"cannot open the writer lock of ref {ref!r}") from e
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EACCES):
                    raise CruxeError("index_in_progress",
                                     f"another index job is running for ref {ref!r}",
                                     {"ref": ref}) from None
                raise
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode())
            yield
        finally:
            os.close(fd)  # closing releases the flock

    def writer_active(self, ref: str) -> bool:
        """True when some process holds the writer lock for that ref (non-blocking probe)."""
        path = self.dir / "locks" / f"{ref_slug(ref)}.lock"
        if not path.exists():
            return False
        fd = os.open(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        else:
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False
        finally:
            os.close(fd)

    # -- jobs
    def create_job(self, job_id: str, ref: str, mode: str, generation: int) -> None:
        ts = now_iso()
        with transaction(self.state) as c:
            # counts are NULL until known (files_total after the scan, changed_files at the end):
            # a 0 would read as "nothing to do" to a caller that looks while the job runs
            c.execute('INSERT INTO index_jobs (job_id, repo, "ref", mode, status, pid, generation, '
                      "created_at, started_at, files_total, changed_files) VALUES (?,?,?,?,?,?,?,?,?,NULL,NULL)",
                      (job_id, self.project_id, ref, mode, "running", os.getpid(), generation, ts, ts))

    def update_job(self, job_id: str, **fields: Any) -> None:
        if not fields:
            return
        cols = ", ".join(f"{k}=?" for k in fields)
        with transaction(self.state) as c:
            c.execute(f"UPDATE index_jobs SET {cols} WHERE job_id=?", (*fields.values(), job_id))

    def jobs(self, ref: str | None = None, limit: int = 10) -> list[dict[str, Any]]:
        sql = "SELECT * FROM index_jobs WHERE repo=?"
        args: list[Any] = [self.project_id]
        if ref is not None:
            sql += ' AND "ref"=?'
            args.append(ref)
        sql += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
        args.append(limit)
        try:
            return [dict(r) for r in self.state.execute(sql, args)]
        except (sqlite3.DatabaseError, CruxeError):
            return []

    def active_job(self, ref: str | None = None) -> dict[str, Any] | None:
        for job in self.jobs(ref, limit=20):
            if job["status"] in ("queued", "running", "validating") and self.writer_active(job["ref"]):
                return job
        return None

    def recover_interrupted(self, ref: str | None = None, holding_lock: bool = False) -> list[dict[str, Any]]:
        """Mark jobs left `running` by a dead process as `interrupted`; return them.
        Safe to call from readers: a job counts as dead only when no one holds its lock.
        The holder of a ref's writer lock knows every other unfinished job there is dead."""
        try:
            rows = [dict(r) for r in self.state.execute(
                "SELECT * FROM index_jobs WHERE repo=? AND status IN ('queued','running','validating')",
                (self.project_id,))]
        except (sqlite3.DatabaseError, CruxeError):
            return []
        dead = [r for r in rows if (ref is None or r["ref"] == ref)
                and ((holding_lock and r["ref"] == ref) or not self.writer_active(r["ref"]))]
        for r in dead:
            r["status"] = "interrupted"
            try:
                self.update_job(r["job_id"], status="interrupted", recovered_at=now_iso(),
                                error="process ended before the job finished")
            except sqlite3.OperationalError as e:  # a full or read-only disk: readers still answer
                log.info("could not record job %s as interrupted: %s", r["job_id"], e)
        return dead

    def interrupted_jobs(self, limit: int = 5) -> list[dict[str, Any]]:
        try:
            return [dict(r) for r in self.state.execute(
                "SELECT job_id, \"ref\", mode, started_at, recovered_at, files_done, files_total FROM index_jobs "
                "WHERE repo=? AND status='interrupted' ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (self.project_id, limit))]
        except (sqlite3.DatabaseError, CruxeError):
            return []

    def state_problem(self) -> str | None:
        """Why state.db is corrupt (unreadable, or failing quick_check), or None. A busy or
        locked database is not corrupt: only SQLite's corruption errors count."""
        path = self.dir / "state.db"
        if not path.is_file():
            return None
        try:
            conn = sqlite3.connect(str(path), timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)
            try:
                res = conn.execute("PRAGMA quick_check").fetchone()[0]
            finally:
                conn.close()
        except sqlite3.DatabaseError as e:
            if is_corruption(e):
                return f"state.db: {e}"
            return None  # busy, locked, permissions: not a reason to replace it
        return None if res == "ok" else f"state.db: {res}"

    def quarantine_state(self) -> str | None:
        """Move a corrupt state.db (with its WAL) aside so that a fresh one is created; it
        holds only the registration and job history (the index data is in the generations,
        checked on their own). Returns the problem found, or None when state.db is sound."""
        problem = self.state_problem()
        if problem is None:
            return None
        self.close()
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        for suffix in ("", "-wal", "-shm"):
            p = self.dir / f"state.db{suffix}"
            if p.exists():
                os.replace(p, self.dir / f"state.db{suffix}.corrupt-{stamp}")
        self.state_error = None
        log.warning("%s; moved aside as state.db.corrupt-%s and starting a fresh one", problem, stamp)
        return problem

    def close(self) -> None:
        with self._gens_lock:
            for gen in self._gens.values():
                gen.close()
            self._gens.clear()
        conn = getattr(self._local, "state", None)
        if conn is not None:
            conn.close()
            self._local.state = None


_TAIL_SEPARATORS = re.compile(r"[.:/]")


def name_tail(name: str) -> str:
    """The last segment of a written name, as `tail_sql` computes it:
    `os.path` -> `path`, `crate::a::B` -> `B`, `net/http` -> `http`."""
    parts = _TAIL_SEPARATORS.split(name)
    return parts[-1]


def damaged(what: str, e: BaseException) -> CruxeError:
    """A Tantivy read failure. Cruxe builds its queries itself, so a ValueError from a search
    or a stored-document read means damaged index files, not bad input."""
    return CruxeError("index_incompatible", f"{what}: the index is damaged ({e})",
                      {"schema_status": "corrupt_manifest", "remediation": "cruxe index --force"})


def read_doc(searcher: tantivy.Searcher, addr: tantivy.DocAddress) -> dict[str, Any]:
    """A stored document as {field: first value}, empty fields left out."""
    try:
        return {k: v[0].decode("utf-8") if isinstance(v[0], bytes) else v[0]
                for k, v in searcher.doc(addr).to_dict().items() if v and v[0] != b""}
    except ValueError as e:
        raise damaged("reading a stored document", e) from e


def manifest(gen: Generation, repo: str, ref: str) -> dict[str, tuple[str, int, int]]:
    """path -> (content_hash, size, mtime_ns) for every file of the generation."""
    rows = gen.db.execute('SELECT path, content_hash, size, mtime_ns FROM file_manifest '
                          'WHERE repo=? AND "ref"=?', (repo, ref))
    return {r[0]: (r[1], r[2], r[3]) for r in rows}


def document_counts(gen: Generation, name: str) -> dict[str, int]:
    """Live documents per path in one Tantivy index: the `path` terms, each counted over the
    documents an all-query matches (deleted ones are not, though their terms stay until a
    merge drops them)."""
    searcher = gen.searcher(name)
    if not searcher.num_docs:
        return {}
    return {t: c for t, c in searcher.terms_with_prefix("path", "", filter_query=tantivy.Query.all_query()) if c}


def disagreeing_files(gen: Generation, repo: str, ref: str) -> dict[str, dict[str, tuple[int, int]]]:
    """path -> {index: (documents the manifest implies, documents found)} for every file whose
    documents disagree with the manifest: one file document and a symbol document per symbol
    for each manifest row; no document at all for a path with no row. (A file's snippet count
    is not recorded, so its snippets are checked for the second rule only.)"""
    expected = {p: n for p, n in gen.db.execute('SELECT path, symbol_count FROM file_manifest WHERE repo=? AND "ref"=?',
                                                (repo, ref))}
    out: dict[str, dict[str, tuple[int, int]]] = {}
    for name in INDEX_NAMES:
        found = document_counts(gen, name)
        for path in set(found) if name == "snippets" else set(found) | set(expected):
            if path not in expected:
                want = 0
            elif name == "snippets":
                continue
            else:
                want = 1 if name == "files" else expected[path]
            if found.get(path, 0) != want:
                out.setdefault(path, {})[name] = (want, found.get(path, 0))
    return dict(sorted(out.items()))


def branch_state(gen: Generation, repo: str, ref: str) -> dict[str, Any] | None:
    try:
        row = gen.db.execute('SELECT * FROM branch_state WHERE repo=? AND "ref"=?', (repo, ref)).fetchone()
    except sqlite3.DatabaseError as e:
        raise CruxeError("index_incompatible", f"index.db is unreadable: {e}",
                         {"remediation": "cruxe index --force"}) from e
    return dict(row) if row else None


def save_skipped_files(gen: Generation, warnings: list[str]) -> None:
    """The last job's problems that no manifest row can carry (files it did not index: too
    large, binary, unreadable, links out of the tree; invalid ignore lines), for `doctor`."""
    with transaction(gen.db) as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('skipped_files', ?)", (to_json(warnings),))


def save_tree_state(gen: Generation, dir_mtimes: dict[str, int]) -> None:
    """The mtime of every directory the last job's scan walked, as it was when listed."""
    with transaction(gen.db) as c:
        c.execute("INSERT OR REPLACE INTO meta VALUES ('dir_mtimes', ?)", (to_json(dir_mtimes),))


def tree_state(gen: Generation) -> dict[str, int] | None:
    """`save_tree_state`'s directories, or None for an index built before it was kept."""
    row = gen.db.execute("SELECT value FROM meta WHERE key='dir_mtimes'").fetchone()
    return json.loads(row[0]) if row else None


def skipped_files(gen: Generation) -> list[str]:
    row = gen.db.execute("SELECT value FROM meta WHERE key='skipped_files'").fetchone()
    return json.loads(row[0]) if row else []


def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# The write side (`store.writer`), re-exported: imported last, as it builds on the above.
from .writer import (EDGE_ROWS, SYMBOL_FILE, SYMBOL_NAME, SYMBOL_QUALIFIED, FileEdges,  # noqa: E402,F401
                     GenerationWriter, build_edge_indexes, build_missing_indexes, build_symbol_indexes,
                     clear_generation, crash_point, defer_edge_indexes, defer_symbol_indexes, edges_deferred,
                     file_ids, flush_spool, folded_name, insert_edges, orphan_paths, record_unconfirmed)

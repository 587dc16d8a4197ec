"""The disk formats: index.db's and state.db's tables, views and indexes, and the three Tantivy
schemas with their analyzer. Bump SCHEMA_VERSION when any of them changes meaning.

The SQL fragments here (`tail_sql`, `name_lower_sql`, `RETRY_SQL`, ...) are the index
expressions a query must spell word for word to use an index: they are for the store's own
modules (reads, writes), never for callers outside `cruxe/store/`.
"""
from __future__ import annotations

import re

import tantivy

SCHEMA_VERSION = 21  # bump when any table or Tantivy field changes meaning; forces reindex

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


# ---- Tantivy schemas ----------------------------------------------------------------------

class Field:
    """The searched Tantivy fields, by name: what a query plan (`query.planner`) names when it
    says where its terms go. Every other field is the store's own business."""

    SYMBOL_EXACT = "symbol_exact"  # symbols: the whole name, lower-cased
    NAME_TOKENS = "name_tokens"  # symbols: the name's parts
    QUALIFIED_TOKENS = "qualified_tokens"
    SIGNATURE_TOKENS = "signature_tokens"
    DOC_TOKENS = "doc_tokens"
    PARENT_NAME = "parent_name"  # symbols: the enclosing definition's name
    PATH = "path"  # every index: the whole path, raw
    PATH_TOKENS = "path_tokens"  # every index: the path's words
    CONTENT = "content"  # snippets: whole identifiers, with positions (phrases)
    CONTENT_PARTS = "content_parts"  # snippets: identifier parts
    ERROR_LITERALS = "error_literals"  # snippets: the messages the chunk emits (literals.py)
    FILENAME = "filename"  # files: the base name, lower-cased
    CONTENT_HEAD = "content_head"  # files: identifiers of the file's head


# snippet fields whose terms are words of the chunk's lines (`error_literals`: its emitted messages)
LINE_FIELDS = (Field.CONTENT, Field.CONTENT_PARTS, Field.ERROR_LITERALS)


def _common_fields(sb: tantivy.SchemaBuilder, stored: bool = True) -> None:
    for name in ("repo", "ref", "file_key"):
        sb.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(Field.PATH, stored=stored, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(Field.PATH_TOKENS, stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field("language", stored=stored, tokenizer_name="raw", index_option="basic")
    if stored:
        sb.add_integer_field("line_start", stored=True, indexed=False)
        sb.add_integer_field("line_end", stored=True, indexed=False)


# Fields stored as UTF-8 bytes, which Tantivy keeps without indexing (a stored text field is
# always indexed). The parser workers encode them (`writer.build_documents`) and `read_doc`
# decodes them.
# A symbol document stores only its `symbol_id`: what a hit shows (path, lines, name,
# signature...) is read from the `symbols` table by that id (`fulltext.search_index`), so the
# symbols index keeps no second copy of the table (docs/BENCHMARKS.md). A snippet
# stores its text as `source`; what is searched is its `code_terms`.
STORED_ONLY: dict[str, tuple[str, ...]] = {"symbols": ("symbol_id",), "snippets": ("source",), "files": ()}


def _symbols_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    _common_fields(sb, stored=False)
    for name in STORED_ONLY["symbols"]:
        sb.add_bytes_field(name, stored=True, indexed=False)
    sb.add_text_field(Field.SYMBOL_EXACT, stored=False, tokenizer_name="raw", index_option="freq")
    sb.add_text_field(Field.NAME_TOKENS, stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field(Field.QUALIFIED_TOKENS, stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field(Field.SIGNATURE_TOKENS, stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field(Field.DOC_TOKENS, stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_text_field("kind", stored=False, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(Field.PARENT_NAME, stored=False, tokenizer_name="raw", index_option="basic")
    return sb.build()


def _snippets_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    _common_fields(sb)
    for name in STORED_ONLY["snippets"]:
        sb.add_bytes_field(name, stored=True, indexed=False)
    sb.add_text_field(Field.CONTENT, stored=False, tokenizer_name="cruxe_ws", index_option="position")
    sb.add_text_field(Field.CONTENT_PARTS, stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    # the constant segments of the messages the chunk's raise/panic/log calls emit (literals.py)
    sb.add_text_field(Field.ERROR_LITERALS, stored=False, tokenizer_name="cruxe_ws", index_option="position")
    sb.add_text_field("chunk_kind", stored=True, tokenizer_name="raw", index_option="basic")
    return sb.build()


def _files_schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    _common_fields(sb)
    sb.add_text_field(Field.FILENAME, stored=True, tokenizer_name="raw", index_option="basic")
    sb.add_text_field(Field.CONTENT_HEAD, stored=False, tokenizer_name="cruxe_ws", index_option="freq")
    sb.add_integer_field("size", stored=True, indexed=False)
    return sb.build()


SCHEMAS = {"symbols": _symbols_schema, "snippets": _snippets_schema, "files": _files_schema}
INDEX_NAMES = tuple(SCHEMAS)


def _register_analyzers(index: tantivy.Index) -> None:
    ws = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.lowercase()).build()
    index.register_tokenizer("cruxe_ws", ws)



# The indexed fields of each index that health's probe looks one term up in and doctor reads
# every posting list of (`reads.probe_indices`): the searched fields, then the filters.
PROBED_FIELDS = {
    "symbols": (Field.SYMBOL_EXACT, Field.NAME_TOKENS, Field.QUALIFIED_TOKENS, Field.SIGNATURE_TOKENS,
                Field.DOC_TOKENS, Field.PATH_TOKENS, "repo", "ref", "file_key", Field.PATH, "language", "kind",
                Field.PARENT_NAME),
    "snippets": (Field.CONTENT, Field.CONTENT_PARTS, Field.PATH_TOKENS, "repo", "ref", "file_key", Field.PATH,
                 "language", "chunk_kind"),
    "files": (Field.FILENAME, Field.CONTENT_HEAD, Field.PATH_TOKENS, "repo", "ref", "file_key", Field.PATH,
              "language"),
}
# The field of each index that serve's prewarm runs its warm-up terms through.
WARM_FIELDS = {"symbols": Field.NAME_TOKENS, "snippets": Field.CONTENT, "files": Field.PATH_TOKENS}


_TAIL_SEPARATORS = re.compile(r"[.:/]")


def name_tail(name: str) -> str:
    """The last segment of a written name, as `tail_sql` computes it:
    `os.path` -> `path`, `crate::a::B` -> `B`, `net/http` -> `http`."""
    parts = _TAIL_SEPARATORS.split(name)
    return parts[-1]

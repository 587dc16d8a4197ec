"""Storage: the package that knows the disk formats (SQLite and Tantivy). Outside
`cruxe/store/` no module runs SQL or names a Tantivy field (tests/test_store_wall.py).

    schema.py    the formats: tables, views, indexes, the Tantivy schemas and analyzer, codes
    layout.py    where data lives and how it is opened: generations, CURRENT, locks, jobs
    reads.py     named reads of a generation, returning records
    fulltext.py  the Tantivy channels of a query (term pruning, phrases, prewarm)
    layers.py    the reads of a ref stored as an overlay: its files merged with its base's
    writer.py    the write side: a generation's rows and documents, written in crash-safe order
    edges.py     the edge table's named reads and writes for reference resolution
    basefix.py   an overlay's resolutions of base edges its own definitions change (per-edge shadowing)

This module is the import surface for everything but the indexing wing: queries, tools and
health use `store.X`; `index` and `refs` import `store.writer` / `store.edges` by name.
"""
from __future__ import annotations

from .layout import (LOW_SPACE_BYTES, SQLITE_BUSY_TIMEOUT_MS, STORAGE_PROBLEMS, Generation, Overlay, ProjectInfo,
                     ProjectStore, Withheld, connect, is_corruption, is_engine_panic, now_iso, ref_slug, storage_error,
                     storage_kind, transaction)
from .fulltext import COMMON_TERM_MIN_DOCS, MAX_TERM_DOC_SHARE, prune_common_terms
from .reads import (Chunk, EdgeSite, FileDoc, OutlineRow, Symbol, branch_state, counts_in, damaged, disagreeing_files,
                    dirty_paths, document_counts, extraction_version, integrity_problem, overlay_info, paths_indexed_since, probe_index, read_doc,
                    skipped_files, storage_note, tree_clean, tree_state)
# the reads that merge an overlay with its base (`layers`); on a whole index, the plain reads
from .layers import (all_symbols, chunks, edges_to, file_language, file_warnings, innermost_symbols, layer_of,
                     manifest, outline_count, outline_rows, paths_by_name, probe_tables, search_index, siblings,
                     symbols_by_id,
                     symbols_named, unresolved_count, unresolved_edges, warm_indices, warm_tables)
from .schema import (_INDEX_SCHEMA, CONFIDENCE_CODES, name_tail, EDGE_TYPE_CODES, EDGES_DEFERRED_KEY, EDGES_RESOLVER_KEY, INDEX_NAMES,
                     LINE_FIELDS, SCHEMA_VERSION, SCHEMAS, STORED_ONLY, Field, id_blob)

__all__ = [
    "LOW_SPACE_BYTES", "SQLITE_BUSY_TIMEOUT_MS", "STORAGE_PROBLEMS", "Generation", "ProjectInfo", "ProjectStore",
    "Overlay", "Withheld", "overlay_info", "paths_indexed_since", "storage_note", "layer_of", "save_overlay", "connect", "is_corruption", "is_engine_panic", "now_iso", "ref_slug", "storage_error", "storage_kind",
    "transaction", "branch_state", "counts_in", "damaged", "disagreeing_files", "document_counts", "manifest", "read_doc",
    "skipped_files", "tree_state", "COMMON_TERM_MIN_DOCS", "MAX_TERM_DOC_SHARE", "prune_common_terms",
    "search_index", "warm_indices", "Chunk", "EdgeSite", "FileDoc", "OutlineRow", "Symbol", "all_symbols", "chunks",
    "edges_to", "file_language", "file_warnings", "innermost_symbols", "integrity_problem", "outline_count",
    "outline_rows", "paths_by_name", "probe_index", "probe_tables", "siblings", "symbols_by_id", "symbols_named", "unresolved_count",
    "unresolved_edges", "warm_tables", "LINE_FIELDS", "Field", "CONFIDENCE_CODES", "EDGE_TYPE_CODES", "EDGES_DEFERRED_KEY",
    "EDGES_RESOLVER_KEY", "INDEX_NAMES", "SCHEMA_VERSION", "SCHEMAS", "STORED_ONLY", "id_blob", "_INDEX_SCHEMA",
    "WRITER_HEAP_BYTES", "IDENT_PATTERN", "PARTS_PATTERN", "code_terms", "crash_point", "SymbolRow",
    "folded_name", "file_ids", "defer_edge_indexes", "edges_deferred",
    "flush_spool", "orphan_paths", "record_unconfirmed", "clear_generation", "build_edge_indexes",
    "build_missing_indexes", "defer_symbol_indexes", "build_symbol_indexes", "FileEdges", "EDGE_ROWS",
    "insert_edges", "GenerationWriter", "name_tail", "save_skipped_files", "save_tree_state", "forget_commit", "tree_clean",
    "extraction_version", "save_extraction_version", "dirty_paths",
]


# Terms are pre-split in Python (`codetokens.code_terms`, in the parser workers); the store
# names them for the modules that build documents.
from ..codetokens import IDENT_PATTERN, PARTS_PATTERN, code_terms  # noqa: E402,F401 - re-exported


# The write side (`store.writer`), re-exported: imported last, as it builds on the above.
from .writer import (EDGE_ROWS, WRITER_HEAP_BYTES, FileEdges, SymbolRow,  # noqa: E402,F401
                     GenerationWriter, forget_commit, save_extraction_version, save_overlay, save_skipped_files, save_tree_state, build_edge_indexes, build_missing_indexes, build_symbol_indexes,
                     clear_generation, crash_point, defer_edge_indexes, defer_symbol_indexes, edges_deferred,
                     file_ids, flush_spool, folded_name, insert_edges, orphan_paths, record_unconfirmed)

"""Plain data records and identity functions.

Coordinate convention, stated once: lines are 1-based and inclusive (`line_start`..`line_end`
cover the whole definition, decorators/attributes included); columns are byte offsets;
paths are relative to the repository root and `/`-separated, never starting with `/` or
containing `..` components.
"""
from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple

import blake3

from .errors import CruxeError


class Kind(str, Enum):
    FUNCTION = "function"
    METHOD = "method"
    CLASS = "class"
    STRUCT = "struct"
    ENUM = "enum"
    TRAIT = "trait"
    INTERFACE = "interface"
    TYPE_ALIAS = "type_alias"
    CONSTANT = "constant"
    VARIABLE = "variable"
    MODULE = "module"


class Role(str, Enum):
    TYPE = "type"
    CALLABLE = "callable"
    VALUE = "value"
    NAMESPACE = "namespace"
    ALIAS = "alias"


KIND_ALIASES: dict[str, str] = {
    "fn": "function", "func": "function", "def": "function",
    "const": "constant", "var": "variable", "type": "type_alias",
    "mod": "module", "namespace": "module",
}

ROLE_KINDS: dict[str, frozenset[str]] = {
    "type": frozenset({"struct", "class", "enum", "trait", "interface"}),
    "callable": frozenset({"function", "method"}),
    "value": frozenset({"constant", "variable"}),
    "namespace": frozenset({"module"}),
    "alias": frozenset({"type_alias"}),
}

KIND_VALUES: tuple[str, ...] = tuple(k.value for k in Kind)
ROLE_VALUES: tuple[str, ...] = tuple(r.value for r in Role)


def normalize_kind(value: str) -> str | None:
    """Canonical kind for an input spelling (aliases accepted), or None if unknown."""
    v = value.strip().lower()
    v = KIND_ALIASES.get(v, v)
    return v if v in KIND_VALUES else None


LANGUAGES: tuple[str, ...] = ("python", "rust", "go", "typescript", "tsx", "javascript")
# tsx is parsed with its own grammar but reported as its own language value.
TS_FAMILY = frozenset({"typescript", "tsx", "javascript"})  # the languages read by one set of rules

# The request vocabulary the tools' schemas and the CLI's choices share.
DETAIL_LEVELS: tuple[str, ...] = ("location", "signature", "context")
OUTLINE_DEPTHS: tuple[str, ...] = ("top", "all")
REFERENCE_KINDS: tuple[str, ...] = ("calls", "imports", "references")


# Symbol and Reference are named tuples, not frozen dataclasses: extraction makes one per
# definition and per reference (hundreds of thousands in a large repository), and a tuple is
# built several times faster (docs/BENCHMARKS.md).
class Symbol(NamedTuple):
    """One definition found in one file (output of extraction: no repo/ref yet)."""

    name: str
    qualified_name: str
    kind: str
    line_start: int
    line_end: int
    signature: str = ""
    visibility: str = ""  # "public" | "private" | "protected" | "internal" | ""
    parent: int | None = None  # index of the enclosing symbol in FileExtract.symbols
    doc: str = ""  # docstring / doc comment text, for search
    name_line: int = 0  # line of the identifier itself (0 = same as line_start)
    byte_start: int = 0  # the definition's bytes in FileExtract.source (for its content hash)
    byte_end: int = 0


class Reference(NamedTuple):
    """A use of a name inside a file: an import or a call/type reference, unresolved."""

    edge_type: str  # "imports" | "calls" | "references" (type and value uses of a name)
    to_name: str  # the name as written, e.g. "foo", "pkg.Foo", "crate::a::b"
    line: int
    from_symbol: int | None = None  # index into FileExtract.symbols of the enclosing symbol
    module: str = ""  # imports: the module path as written (e.g. "os.path", "./util")
    alias: str = ""  # imports: local name bound, when renamed
    receiver: str = ""  # calls/references: receiver expression text when syntactic (self, this, x)


_TEXT_SEP = "\0"  # between the texts of an EdgeBlock column: no identifier holds it


class EdgeBlock(NamedTuple):
    """One file's references on their way from a parser worker to the edge table, by column.
    A full build moves every reference from parser workers to the indexer and on to the
    resolution workers; a tuple per reference, or even a list of strings per
    column, is an object per field to pickle and unpickle at every hop, where a column of
    texts joined by NUL is one (`edge_block`; a NUL in a text, which no name holds, becomes
    U+FFFD). `froms` index the file's symbols, whose stored ids are `symbol_ids`."""

    types: bytes  # EDGE_TYPE_CODES of each reference
    lines: array  # array('I')
    froms: array  # array('i'): index into symbol_ids of the enclosing symbol, -1: none
    symbol_ids: list[bytes]  # the file's symbols' stored ids
    names: str  # to_name of each reference, joined by NUL
    modules: str  # ... module ("" when none)
    receivers: str  # ... receiver ("" when none)
    aliases: str  # ... alias ("" when none)
    # The import references again, each (its index, line, from, name, module, alias): a
    # bulk build's resolution needs them first and alone (`refs.resolve._block_imports`), and
    # picked out here, in the parser workers, they cost the indexer no pass over the columns.
    imports: tuple[tuple[int, int, int, str, str, str], ...] = ()

    @staticmethod
    def of(types: bytes, lines: list[int], froms: list[int], symbol_ids: list[bytes], names: tuple[str, ...],
           modules: tuple[str, ...], receivers: tuple[str, ...], aliases: tuple[str, ...],
           import_type: int | None = None) -> EdgeBlock:
        """`import_type`: the code in `types` of import references, to fill `imports`."""
        imports: tuple = ()
        if import_type is not None and import_type in types:
            imports = tuple((i, lines[i], froms[i], *(_clean(t) for t in (names[i], modules[i], aliases[i])))
                            for i, code in enumerate(types) if code == import_type)
        return EdgeBlock(types, array("I", lines), array("i", froms), symbol_ids,
                         *(_joined(column) for column in (names, modules, receivers, aliases)), imports)

    def column(self, texts: str) -> list[str]:
        """One of the text columns (names, modules, receivers, aliases) as a list."""
        return texts.split(_TEXT_SEP) if self.types else []


EMPTY_EDGES = EdgeBlock(b"", array("I"), array("i"), [], "", "", "", "")


def _clean(text: str) -> str:
    """A text as its column gives it back (see `_joined`)."""
    return text.replace(_TEXT_SEP, "\ufffd") if _TEXT_SEP in text else text


def _joined(texts: tuple[str, ...]) -> str:
    joined = _TEXT_SEP.join(texts)
    if joined.count(_TEXT_SEP) != len(texts) - 1:
        joined = _TEXT_SEP.join(t.replace(_TEXT_SEP, "\ufffd") for t in texts)
    return joined


# ---- one file's outcome, from a parser worker to the indexer (`index.process_file`) ----------

class Documents(NamedTuple):
    """Every Tantivy document and SQLite row of one parsed file (`store.writer.build_documents`)."""

    symbols: list[dict[str, Any]]  # symbols index documents
    symbol_rows: list  # `store.writer.SymbolRow`s: `symbols` rows, the path where the table has its id
    snippets: list[dict[str, Any]]  # snippets index documents
    file: dict[str, Any]  # the files index document
    edges: EdgeBlock
    warnings: list[str]
    symbol_count: int


class Skipped(NamedTuple):
    """A file left out (unreadable, binary, no longer a regular file inside the repository):
    its documents and rows go, and `warning` says why."""

    path: str
    warning: str


class Unchanged(NamedTuple):
    """A file whose content hash is the manifest's: only its size or mtime moved."""

    path: str
    size: int
    mtime_ns: int  # -1: too recent to trust (see index.RACY_NS)


class Parsed(NamedTuple):
    """A new or changed file, read, hashed and extracted."""

    path: str
    content_hash: str
    size: int
    mtime_ns: int  # -1: too recent to trust (see index.RACY_NS)
    language: str | None
    docs: Documents


FileResult = Skipped | Unchanged | Parsed


@dataclass(slots=True)
class FileExtract:
    path: str
    language: str
    symbols: list[Symbol] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    parse_errors: int = 0  # count of ERROR/MISSING regions tree-sitter recovered from
    source: bytes = b""  # the bytes the symbols' byte ranges index (as parsed: see extract.py)


# ---- identity -------------------------------------------------------------------------

# Ids are 64-bit (16 hex digits): collision-free in practice at repository scale (p ~ 3e-8 for a
# million symbols) and half the tokens of a 128-bit id in every result an agent pays for.
ID_HEX = 16


def _h(text: str, n: int = ID_HEX) -> str:
    # a shorter blake3 output is a prefix of the longer one: ask for the bytes needed only
    return blake3.blake3(text.encode()).hexdigest((n + 1) // 2)[:n]


def project_id(repo_root: str) -> str:
    return _h(repo_root, 16)


def file_key(repo: str, ref: str, path: str) -> str:
    return f"{repo}|{ref}|{path}"


def symbol_id(repo: str, ref: str, path: str, kind: str, line_start: int, name: str) -> str:
    return _h(f"{repo}|{ref}|{path}|{kind}|{line_start}|{name}")


def normalize_signature(signature: str) -> str:
    # str.split() and the regex `\s` agree on what whitespace is: `\s+` -> " ", stripped
    return " ".join(signature.split())


def symbol_stable_id(language: str, kind: str, qualified_name: str, signature: str) -> str:
    return _h(f"stable_id:v1|{language}|{kind}|{qualified_name}|{normalize_signature(signature)}")


def result_id(*parts: object) -> str:
    return "res_" + _h("|".join(str(p) for p in parts))


def content_hash(data: bytes) -> str:
    return blake3.blake3(data).hexdigest()


def symbol_content_hash(source: bytes, byte_start: int, byte_end: int) -> str:
    """A symbol's own content hash (symbol_relations.content_hash): blake3 of the bytes of its
    definition, ID_HEX wide. It changes when the definition's text does, not when the rest of
    the file does (the file's hash is in file_manifest). The bytes, not the lines: the lines of
    a minified one-line file are the whole file, hashed again for each of its symbols."""
    return blake3.blake3(source[byte_start:byte_end]).hexdigest((ID_HEX + 1) // 2)[:ID_HEX]


# ---- lines ----------------------------------------------------------------------------

# What a line is, stated once: text up to a `\n` (tree-sitter's rows count `\n` only), a
# trailing `\r` not part of it (CRLF). A `\r` not followed by `\n` (old Mac line ends) is a
# line end too: extraction turns each into `\n` before parsing (`lone_cr_to_lf`), byte for
# byte, so the rows it reports and the lines shown from the text agree. Python's
# `str.splitlines` also splits at \v, \f, \x1c-\x1e, NEL, U+2028 and U+2029; never use it
# for line numbers.
_LONE_CR = re.compile("\r(?!\n)")
_LONE_CR_BYTES = re.compile(b"\r(?!\n)")


def lone_cr_to_lf(source: bytes) -> bytes:
    """`source` with each `\r` not followed by `\n` made a `\n` (same length, same offsets)."""
    return _LONE_CR_BYTES.sub(b"\n", source) if b"\r" in source else source


def text_lines(text: str) -> list[str]:
    """The lines of a file's text, numbered as extraction numbers them (line n is item n - 1);
    no empty line after a final line end; none at all for an empty text."""
    if "\r" in text:
        lines = _LONE_CR.sub("\n", text).split("\n")
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    else:
        lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def is_test_path(path: str) -> bool:
    """Spec 04 test-file patterns, on the full relative path, case-insensitive."""
    p = "/" + path.lower()
    return any(s in p for s in ("_test.", ".test.", ".spec.", "/test/", "/tests/", "test_"))


# Beyond spec 04's test patterns: where tests' data, mocks, fixtures, snapshots and benchmarks
# live (test code), and docs and examples (listed after the implementation too, but no test
# code). (`/doc/` is left out: Go's `go/doc` is a package.)
_TEST_DIRS = ("/fixtures/", "/fixture/", "/testdata/", "/__tests__/", "/__mocks__/", "/benches/", "/__snapshots__/")
_NON_SOURCE_DIRS = ("/docs/", "/examples/", "/example/", *_TEST_DIRS)
_NON_SOURCE_SUFFIXES = (".md", ".rst", ".txt", ".adoc", ".min.js", ".pb.go", "_pb2.py", "_generated.rs", ".snap")


def is_test_file(path: str) -> bool:
    """A file of test code by its path: spec 04's test-file patterns or a test directory."""
    p = "/" + path.lower()
    return is_test_path(path) or any(d in p for d in _TEST_DIRS)


_DECLARATION_SUFFIXES = (".pyi", ".d.ts", ".d.mts", ".d.cts")


def is_declaration_file(path: str) -> bool:
    """A file of declarations only (a Python `.pyi` stub, a TypeScript `.d.ts`): types, no bodies;
    what it declares is implemented elsewhere."""
    return path.endswith(_DECLARATION_SUFFIXES)


def is_non_source_path(path: str) -> bool:
    """A test, doc, example, fixture, benchmark or generated file: below the implementation."""
    p = "/" + path.lower()
    return (is_test_path(path) or any(d in p for d in _NON_SOURCE_DIRS) or p.endswith(_NON_SOURCE_SUFFIXES)
            or ".generated." in p)


@dataclass(slots=True)
class Hit:
    """One ranked answer of `locate_symbol` / `search_code`, before shaping (`cruxe.shape`).

    `result_type` is "symbol" (a definition), "snippet" (matching lines outside any
    definition) or "file". A snippet or file result has no symbol identity: its `kind`,
    `qualified_name`, `signature`, `visibility` and ids are "". `signals` is the ranker's
    explanation (`query.signals.compose`) and `score` its `final_score`. The optional fields
    stay None unless set: `snippet` (a snippet's matching lines), `emits_at` (for a pasted
    message, the line inside the result that emits it), and with `detail_level: context`
    `body_preview`, `parent` and `related_symbols` (each a {kind, name, path, line} dict).
    """

    result_type: str
    path: str
    line_start: int
    line_end: int
    kind: str = ""
    name: str = ""
    qualified_name: str = ""
    signature: str = ""
    language: str = ""
    visibility: str = ""
    symbol_id: str = ""
    symbol_stable_id: str = ""
    score: float = 0.0
    signals: dict[str, float] = field(default_factory=dict)
    snippet: str | None = None
    emits_at: int | None = None
    body_preview: str | None = None
    parent: dict[str, Any] | None = None
    related_symbols: list[dict[str, Any]] | None = None


def endings(pasted: str, paths: dict[str, list[str]]) -> list[str]:
    """The indexed files whose paths are the longest ending of `pasted` by whole components."""
    parts = [p for p in pasted.split("/") if p and p != "."]
    if not parts:
        return []
    best: list[str] = []
    best_len = 0
    for candidate in paths.get(parts[-1], ()):
        cparts = candidate.split("/")
        n = 0
        while n < min(len(cparts), len(parts)) and cparts[-1 - n] == parts[-1 - n]:
            n += 1
        if n > best_len:
            best, best_len = [candidate], n
        elif n == best_len:
            best.append(candidate)
    return best


# ---- a repository path given in a request -----------------------------------------------------

MAX_PATH_CHARS = 4096  # longer than any real path; refuse instead of hashing megabytes


def normalize_repo_path(path: Any) -> str:
    """A repo-relative '/' path, or invalid_input. Paths can never reach outside the
    repository: absolute paths, `..` components and NUL bytes are refused."""
    if not isinstance(path, str) or not path.strip():
        raise CruxeError("invalid_input", "path must be a non-empty string", {"field": "path"})
    if len(path) > MAX_PATH_CHARS:
        raise CruxeError("invalid_input", f"path is longer than {MAX_PATH_CHARS} characters", {"field": "path"})
    if "\x00" in path:
        raise CruxeError("invalid_input", "path contains a NUL byte", {"field": "path"})
    p = path.strip().replace("\\", "/")
    if p.startswith("/") or (len(p) > 1 and p[1] == ":"):
        raise CruxeError("invalid_input", "path must be relative to the repository root", {"field": "path"})
    parts = [c for c in p.split("/") if c not in ("", ".")]
    if any(c == ".." for c in parts):
        raise CruxeError("invalid_input", "path must not contain '..'", {"field": "path"})
    if not parts:
        raise CruxeError("invalid_input", "path names no file", {"field": "path"})
    return "/".join(parts)

"""Query intent: what kind of thing an agent is looking for.

`classify(query)` returns one of `symbol | path | error | natural_language` with a confidence,
by ordered rules (first match wins, as CONTRACTS "Ranking" lists them):

1. error: a compiler/runtime message, a diagnostic code or a stack-trace line of Python, Rust,
   Go or TypeScript/JavaScript (`error[E0308]:`, `panic:`, `KeyError: 'x'`, `TS2345:`, ...), or a
   failure word with a quoted literal (`invalid character 'x' looking for beginning of value`);
2. a whole-query quote: a literal searched as written, so error intent (its plan searches
   snippets), unless what is quoted is itself one path;
3. path: the whole query is one path token (with `/` or `\\`, a file extension, a glob, a
   dotfile, or a well-known file name: `README`, `Makefile`, `go.mod`), framed at most by
   pointing words ("files in src/x", "the go.mod file"), or "<name> folder"; a path inside a
   sentence leaves it a sentence (`path_tokens` gives the planner that path as a boost);
4. symbol: one identifier-like token (`snake_case`, `camelCase`, `a::b`, `a.b`, `Foo.bar()`,
   `Vec<T>`, `println!`), a definition keyword with one name (`fn foo`, `class Config`,
   `func (b *Builder) Write`), or "where is <code name> defined";
5. natural_language: everything else.

The quote rule sits before the path rule (CONTRACTS lists it after) so that a quoted message
containing a path, e.g. `"cannot open /etc/x.toml"`, stays a message.

`query_kind_intent(query)` is spec 04's naming-convention hint for the ranker: `type` when the
named thing starts uppercase without underscores, `callable` when it starts lowercase or has an
underscore, else None.
"""
from __future__ import annotations

import re
from typing import Callable, Protocol, TypeVar

from .errors import CruxeError
from .literals import RUST_DEBUG_TUPLE

SYMBOL, PATH, ERROR, NATURAL_LANGUAGE = "symbol", "path", "error", "natural_language"
INTENTS: tuple[str, ...] = (SYMBOL, PATH, ERROR, NATURAL_LANGUAGE)

# ---- 1. error messages ----------------------------------------------------------------------

# Case-sensitive: exception class names and fixed tokens.
_ERROR_CS = [
    r"(?<!\w)_*[A-Z][A-Za-z0-9]*(?:Error|Exception|Warning|Exit|Interrupt)\b:(?!:)",  # KeyError: 'x', _Err: 'x'
    r"^Traceback\b", r"\bTraceback \(most recent", r"\bException in\b", r"\bUncaught\b",
    r"\bTS\d{4,5}\b",  # TypeScript diagnostics
    r"(?<![.\w])E(?:NOENT|ACCES|ADDRINUSE|CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|EXIST|ISDIR|NOTDIR|MFILE|PERM)\b",
    r"\bSIG(?:SEGV|ABRT|BUS|FPE|ILL)\b", r"\bMODULE_NOT_FOUND\b",
    r"^\s*File \"[^\"]+\", line \d+",  # Python stack frame
    r"^\s*at \S.*\(\S+:\d+:\d+\)\s*$", r"^\s*at \S+:\d+:\d+\s*$",  # JavaScript stack frames
    r"^\s*-->\s*\S+:\d+:\d+",  # rustc's location arrow
    r"^\s*goroutine \d+ \[",
    r"\bnpm ERR!", r"(?:^|\s)(?:--- )?FAIL(?:ED)?(?::|\s+\S)",  # npm, go test, pytest
]
# The texts of the POSIX errors a program passes on from the OS (strerror), as a paste ends with them.
_OS_ERRORS = (
    "operation not permitted", "no such process", "interrupted system call", "input/output error",
    "bad file descriptor", "resource temporarily unavailable", "cannot allocate memory", "file exists",
    "not a directory", "is a directory", "invalid argument", "too many open files", "no space left on device",
    "read-only file system", "broken pipe", "directory not empty", "file name too long", "device or resource busy",
    "text file busy", "network is unreachable", "no route to host", "connection timed out",
    "operation timed out", "host is down", "too many links", "invalid cross-device link",
)
# The operations Go's os and net packages name first in their errors.
_GO_OPS = ("open", "read", "write", "close", "seek", "stat", "lstat", "fstat", "mkdir", "remove", "rename",
           "chmod", "chown", "chdir", "chtimes", "truncate", "readlink", "symlink", "link", "unlinkat",
           "readdirent", "fork/exec", "dial tcp", "dial udp", "dial unix", "listen tcp", "listen udp",
           "listen unix", "accept tcp", "read tcp", "write tcp", "read udp", "write udp", "lookup")
# Case-insensitive: message phrases.
_ERROR_CI = [
    r"\b(?:fatal )?(?:error|warning|panic|fatal)(?:\[[a-z]?\d+\])?:(?!:)",  # error: / error[E0308]: / panic:
    r"\berror\[e\d{4}\]", r"\berror ts\d+", r"\bthread '[^']*' (?:panicked|has overflowed)", r"\bpanicked at\b",
    # Go
    r"\bruntime error\b", r"\bnil pointer dereference\b", r"\bindex out of range\b", r"\bundefined: \S",
    r"\ball goroutines are asleep\b", r"\bdeclared (?:and|but) not used\b", r"\bimported (?:and|but) not used\b",
    r"\bcannot use \S[^\n]{0,120} as \S[^\n]{0,120} (?:value|type)\b", r"\b(?:too many|not enough) arguments in call\b",
    # Rust
    r"\bmismatched types\b", r"\bcannot borrow\b", r"\b(?:borrow|use) of moved value\b",
    r"\bdoes not live long enough\b", r"\bthe trait bound [^\n]{1,160} is not satisfied\b", r"\bexpected [^\n]{1,160}, found\b",
    r"\bno method named\b", r"\bcannot find (?:value|type|function|macro|crate|struct|trait|module)\b",
    r"\bcould not compile\b", r"\bcalled `(?:option|result)::unwrap\(\)`",
    # Python
    r"\bno module named\b", r"\bcannot import name\b", r"\bobject has no attribute\b",
    r"\bobject is not (?:callable|subscriptable|iterable)\b", r"\bunsupported operand type",
    r"\bmaximum recursion depth exceeded\b", r"\bcodec can't (?:de|en)code\b", r"\bexception was never retrieved\b",
    # TypeScript / JavaScript
    r"\bcannot (?:find|read|set) (?:name|module|namespace|propert(?:y|ies))\b", r"\bis not assignable to\b",
    r"\bdoes not exist on type\b", r"\bobject is possibly\b", r"\bis not (?:a function|a constructor|defined|iterable)\b",
    r"\bunhandled ?(?:promise ?rejection|exception|rejection)",
    # anywhere
    r"\bsegmentation fault\b", r"\bsegfault\b", r"\bcore dumped\b", r"\bno such file or directory\b",
    r"\baddress already in use\b", r"\bconnection (?:refused|reset)\b", r"\bunexpected (?:eof|end of (?:file|input))\b",
    r"\bassertion failed\b", r"\bexit(?:ed with)? (?:status|code) -?\d+\b", r"\bline \d+,? column \d+\b",
    r"\bi/o timeout\b",
    # a diagnostic's position, then its message: "3:7: illegal char", "main.go:12:5: x declared"
    r"(?:^|[\s(])(?:[\w./\\-]+:)?\d+:\d+:\s+[a-z]",
    r"^[a-z][\w.]*: \S+ \S+",  # Go's "pkg: message" convention, e.g. "sql: no rows in result set"
    # Messages open with a failure verb; questions and descriptions do not.
    r"^(?:cannot|can't|could not|couldn't|failed to|unable to|refusing to) \S+ \S+",
    r"\b(?:size|depth|limit|deadline|quota|budget) exceeded\b", r"\b(?:not found|denied|failed|refused):",
    r"\b(?:permission|access) denied\b",
    # an operating system's error text after what failed (`open /tmp/x.lock: file exists`, `write
    # /dev/stdout: broken pipe`), or as the whole query: said inside a question ("check that the
    # file exists") it is prose
    rf"(?:^|:\s*)(?:{'|'.join(_OS_ERRORS)})\.?\s*$",
    # Go's *PathError / *OpError: "op path: message" (`mkdir /var/cache/app: permission denied`)
    rf"^(?:{'|'.join(_GO_OPS)}) \S+: \S",
    # a path or quoted name, then "already exists" (`/home/user/out.txt already exists`)
    r"^(?:\S*[/\\]\S*|\S+\.\w{1,5}|(['\"`])[^'\"`]+\1) already exists\b",
]
# Pasted logs can be long; the identifying part of a message or trace is at its start, and the
# bounded patterns above stay linear on this much text.
MAX_CLASSIFY_CHARS = 2000

_ERROR_RE = [re.compile(p) for p in _ERROR_CS] + [re.compile(p, re.IGNORECASE) for p in _ERROR_CI]
# A message that names what failed in quotes: "invalid character 'x' looking for beginning of value".
_FAILURE_WORD_RE = re.compile(
    r"\b(?:invalid|malformed|unexpected|expected|cannot|can't|could not|couldn't|failed|unable|missing|unknown|"
    r"unrecogni[sz]ed|unsupported|illegal|undefined|unresolved|not found|not set|no such|denied|refused|"
    r"is nil|is null)\b",
    re.IGNORECASE)
# A quote that opens at a word start, so the apostrophes of "doesn't ... isn't" never pair up.
_QUOTED_LITERAL_RE = re.compile(r"(?<!\w)(['\"`])[^'\"`]+\1(?!\w)")


# A message that names what failed and then, after a colon, the detail: "Hijack failed on
# protocol switch: 404", "error occurred: Environment variable TARGET not defined.". Questions
# put no colon after the failure.
_FAILURE_THEN_DETAIL_RE = re.compile(
    r"\b(?:failed|cannot|can't|could not|couldn't|unable to|invalid|malformed|unexpected|missing|unknown|"
    r"unsupported|unrecogni[sz]ed|error)\b"
    r"[^:?\n]{0,80}:\s+\S", re.IGNORECASE)


# A statement, then after a colon the one value it is about, as a command line tool reports a
# usage error (`flag needs an argument: --output`, `unknown command: "serve"`), or a value with
# no letters, a number or version as a program prints it (`improper constraint: >== 1.2.3`,
# `invalid port: 70000`); a path there is
# as often an instruction's object (`parse the config file: config.toml`). A question ends with
# `?` or opens with its word.
_STATEMENT_THEN_VALUE_RE = re.compile(
    r"^[a-z][a-z' -]{2,60}[a-z]: (?:--?[A-Za-z][\w-]*|'[^'\n]+'|\"[^\"\n]+\"|`[^`\n]+`|[^A-Za-z\s][^A-Za-z\n]*)$",
    re.IGNORECASE)
# Go's "pkg: message" wrapped with what was being done (`While parsing config: yaml: line 3:
# mapping values are not allowed`, fmt.Errorf's "%s: %w" habit): a prefix, then the convention.
_WRAPPED_MESSAGE_RE = re.compile(r"^[^:?\n]{1,80}: [a-z][\w.]*: \S+ \S+")
_QUESTION_OPENERS = frozenset("how what where which who whom whose why when does do did is are can could should".split())


def _is_error(q: str) -> bool:
    if any(r.search(q) for r in _ERROR_RE) or RUST_DEBUG_TUPLE.match(q):  # `Error("...", line: 3, column: 0)`
        return True
    if _FAILURE_THEN_DETAIL_RE.search(q) and not q.rstrip().endswith("?"):
        return True
    if _STATEMENT_THEN_VALUE_RE.match(q) and q.split()[0].lower() not in _QUESTION_OPENERS:
        return True
    if (_WRAPPED_MESSAGE_RE.match(q) and not q.rstrip().endswith("?")
            and q.split()[0].lower() not in _QUESTION_OPENERS):
        return True
    return bool(_FAILURE_WORD_RE.search(q) and _QUOTED_LITERAL_RE.search(q))


# ---- 2./3. quotes and paths -----------------------------------------------------------------

_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019"}

_FILE_EXTENSIONS = frozenset("""
py pyi rs go ts tsx mts cts js jsx mjs cjs c h cc cpp hpp java kt rb php swift cs scala sh bash zsh
toml json jsonc yaml yml md rst txt cfg ini conf lock xml html css scss proto sql gradle mod sum
""".split())
_FILE_NAMES = frozenset("""
readme license licence changelog contributing makefile dockerfile gemfile rakefile procfile justfile
codeowners vagrantfile jenkinsfile
""".split())
# Directory names that make `a/b` a path even inside a sentence (`read/write` and `I/O` are not).
_DIR_NAMES = frozenset("""
src lib libs pkg cmd internal test tests spec app apps docs doc scripts bin examples crates packages
include vendor config configs .github
""".split())
_DIR_WORDS = frozenset({"folder", "directory", "dir"})
# Words that frame a path without saying anything about its content ("where is the X file").
_PATH_FRAME_WORDS = frozenset("""
the a an file files folder folders directory directories dir dirs in under inside where is are find open show
list all test tests
""".split())
_URL_RE = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def is_url(token: str) -> bool:
    """`scheme://...`: a pasted value, never a word of the code nor a path in the repository."""
    return bool(_URL_RE.match(token))
_EXT_RE = re.compile(r"^[\w*.\-]*\.([A-Za-z0-9]+)$")
_DOTFILE_RE = re.compile(r"^\.[A-Za-z0-9][\w.\-]*$")
_EDGE_PUNCT = "\"'`()[]{},;:<>"


def _unquote(q: str) -> str | None:
    """The text inside a whole-query quote, or None when the query is not quoted as a whole."""
    close = _QUOTES.get(q[:1])
    if close is None or len(q) < 3 or not q.endswith(close):
        return None
    inner = q[1:-1]
    return None if q[0] in inner else inner


# Characters no file path an agent types holds, and code does: `buf.WriteString("</a>")`
# is a line of code whatever its slash (a glob's `{a,b}` stays a path).
_NOT_IN_PATHS = frozenset("()\"'<>;=|")
_CALL_RE = re.compile(r"\w\(")  # `bucket1.mutex.lock();` calls lock, whatever `.lock` files are


def _path_token(token: str, alone: bool) -> bool:
    t = token.strip(_EDGE_PUNCT)
    if not t or not _NOT_IN_PATHS.isdisjoint(t) or _CALL_RE.search(token):
        return False
    if "/" in t or "\\" in t:
        return alone or _slash_path(t)
    if "*" in t and ("." in t or "/" in t):
        return True  # a glob: *.proto
    m = _EXT_RE.match(t)
    if m and m.group(1).lower() in _FILE_EXTENSIONS:
        return True
    if _DOTFILE_RE.match(t):
        return True
    return t.lower() in _FILE_NAMES and (alone or t.isupper() or t[:1].isupper())


def _slash_path(t: str) -> bool:
    """`src/auth`, `./x`, `a/b/c`, `email/` are paths; `read/write`, `I/O`, `TCP/IP` are words."""
    parts = re.split(r"[/\\]", t)
    if t.startswith(("/", "./", "../", "~/", "\\")) or t.endswith(("/", "\\")) or len(parts) > 2:
        return True
    return any(p.lower() in _DIR_NAMES for p in parts) or bool(_EXT_RE.match(parts[-1]))


def _is_path(q: str, words: list[str]) -> bool:
    """The whole query names a file or folder: one path or glob, framed at most by words that
    only point at it ("files in internal/server", "the go.mod file", "migrations folder"). A
    path inside a sentence ("read the X.cfg config file", a ref in a git error, a URL in a log
    line) leaves the sentence a sentence; the planner boosts results on that path instead."""
    core = [w for w in words if w.lower().strip(_EDGE_PUNCT) not in _PATH_FRAME_WORDS]
    if not core:  # "the tests folder": the folder is named by the frame's own word
        core = [w for w in words if w.lower() in ("test", "tests")]
    if len(core) == 1:
        return _path_token(core[0], alone=True) or (len(core) < len(words) and words[-1].lower() in _DIR_WORDS)
    return False


def path_tokens(q: str) -> list[str]:
    """The path-like tokens of a query that is not itself a path (`X.cfg`, `src/auth`, `.env`),
    as written minus edge punctuation: evidence about where the answer lives."""
    return [t for t in (w.strip(_EDGE_PUNCT) for w in q.split())
            if t and not _URL_RE.match(t) and _path_token(t, alone=False)]


# ---- 4. symbols -----------------------------------------------------------------------------

_SEG = r"[A-Za-z_$][\w$]*"
_IDENT_RE = re.compile(rf"^(?:::)?{_SEG}(?:(?:::|\.|->|#){_SEG})*!?$")
_GENERIC_RE = re.compile(r"(?<=[\w>])<[^<>]*>")
_CALL_SUFFIX_RE = re.compile(r"\([^()\s]*\)$")
_GO_METHOD_RE = re.compile(rf"^func\s*\([^)]*\)\s*({_SEG})$")
_CAMEL_HUMP = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")

# Words that only ever write a definition in source code: the agent is quoting syntax.
_SYNTAX_KEYWORDS = frozenset("fn func def const let var mod macro".split())
# Words that name a kind in prose too ("type inference", "enum variants", "class hierarchy"), so the
# word after them must look like a name and not like a concept noun.
_KIND_WORDS = frozenset("""
class interface type method function module package namespace struct enum trait impl union
""".split())
_DEF_WORDS = _SYNTAX_KEYWORDS | _KIND_WORDS
_MODIFIERS = frozenset("pub async export default static abstract public private protected unsafe final".split())
_ARTICLES = frozenset({"the", "a", "an"})
_CONCEPT_SUFFIXES = ("tion", "sion", "ment", "ness", "ity", "ence", "ance", "ure")
# Filler words of "where is X defined" / "definition of X" lookups.
_LOOKUP_FILLERS = frozenset("""
where is are the a an defined declared implemented definition declaration of find locate show me go to jump
source for symbol look up lookup
""".split())
_QUESTION_MARKERS = frozenset("where is are defined declared implemented definition declaration find locate".split())


def _name_of(token: str) -> str | None:
    """The identifier a token writes (generics, call parens, `&`/`*`/`@` stripped), or None."""
    t = _CALL_SUFFIX_RE.sub("", _strip_generics(token)).lstrip("&*@").rstrip("?")
    return t if _IDENT_RE.match(t) else None


def _strip_generics(text: str) -> str:
    prev = None
    while prev != text:
        prev, text = text, _GENERIC_RE.sub("", text)
    return text


def _code_shaped(name: str) -> bool:
    """Looks like code rather than an English word: separators, underscores, humps, digits."""
    return (any(s in name for s in ("_", "::", ".", "->", "#", "!", "$"))
            or bool(_CAMEL_HUMP.search(name)) or any(c.isdigit() for c in name))


def _concept_word(word: str) -> bool:
    """A plain lowercase noun that names a concept (`variants`, `inference`), not a symbol."""
    if not word.isalpha() or not word.islower():
        return False
    plural = word.endswith("s") and not word.endswith(("ss", "us", "is"))
    return plural or word.endswith(_CONCEPT_SUFFIXES)


def _keyword_form(words: list[str]) -> tuple[str, str] | None:
    """(definition word, name) of `fn foo`, `pub async fn foo`, `impl Display for Point`,
    `Deserializer trait`, `func (b *Builder) Write`; None for anything else."""
    m = _GO_METHOD_RE.match(" ".join(words))
    if m:
        return "func", m.group(1)
    # "the make_scanner function", "type Props = {": articles and bare punctuation say nothing.
    ws = [w for w in words if w.lower() not in _MODIFIERS and w.lower() not in _ARTICLES
          and any(c.isalnum() for c in w)] or words
    lowered = [w.lower() for w in ws]
    if len(ws) == 4 and lowered[0] == "impl" and lowered[2] == "for":
        ws, lowered = ws[:2], lowered[:2]
    if len(ws) != 2:
        return None
    if lowered[0] in _DEF_WORDS:
        name = _name_of(ws[1])
        if name and not (lowered[0] in _KIND_WORDS and _concept_word(name)):
            return lowered[0], name
    if lowered[1] in _DEF_WORDS:
        # Name first ("Deserializer trait"): only when it is clearly a name, not "hash function".
        name = _name_of(ws[0])
        if name and (_code_shaped(name) or name[:1].isupper()):
            return lowered[1], name
    return None


def _symbol_name(q: str, words: list[str]) -> tuple[str, float] | None:
    """The name a symbol query asks for, with a confidence; None for anything else."""
    whole = _name_of(q.replace(", ", ","))  # `HashMap<String, Vec<u8>>` is one token
    if whole:
        # A plain word ("config") may as well be a concept; code shapes and capitals are names.
        return whole, 0.95 if _code_shaped(whole) else 0.85 if whole[:1].isupper() else 0.7
    form = _keyword_form(words)
    if form:
        return form[1], 0.9
    rest = [w for w in words if w.lower() not in _LOOKUP_FILLERS]
    if len(rest) == 1 and len(rest) < len(words) and any(w.lower() in _QUESTION_MARKERS for w in words):
        name = _name_of(rest[0])
        if name and (_code_shaped(name) or name[:1].isupper()):
            return name, 0.8
    return None


# ---- the classifier -------------------------------------------------------------------------

def classify(query: str) -> tuple[str, float]:
    """(intent, confidence in [0, 1]); deterministic, no I/O."""
    q = _normalise(query)
    if not q:
        return NATURAL_LANGUAGE, 0.0
    if _is_error(q):
        return ERROR, 0.95
    inner = _unquote(q)
    if inner is not None:
        inner_words = inner.split()
        if len(inner_words) == 1 and _path_token(inner, alone=True):
            return PATH, 0.85
        return ERROR, 0.75
    words = q.split()
    if _is_path(q, words):
        return PATH, 0.9 if len(words) == 1 else 0.75
    found = _symbol_name(q, words)
    if found:
        return SYMBOL, found[1]
    return NATURAL_LANGUAGE, 0.8 if len(words) >= 3 else 0.6


# Rust's Debug print of a value wrapped in Result or Option (`Err(NotEnoughData)`, `Some(Kind::Eof)`):
# the value is what was asked about, not std's variant
_RUST_WRAPPED = re.compile(r"^(?:Err|Ok|Some)\(\s*([A-Za-z_][\w:]*)\s*\)$")


# A definition named with its file, as pytest prints a test (`tests/test_items.py::TestItem::test_x`)
# and other tools a symbol (`src/view/index.ts:EditorView`): the file, then the name (`file.py:12`
# is a location, read as a trace's frame elsewhere)
_FILE_THEN_NAME = re.compile(r"^((?:[\w.@-]+/)*[\w.@-]+\.(?:py|pyi|go|rs|ts|tsx|mts|cts|js|jsx|mjs|cjs))"
                             r"(?:::|:)([A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)*)$")


# Python's entry-point notation, as pyproject scripts, uvicorn and gunicorn write a target:
# `pkg.cli:main`, `markdown.extensions.toc:TocExtension`, `myapp:create_app()`. The module
# part is lower case (PEP 8), and dotted or the target called: `ValueError:x` and `host:port`
# are not this.
_ENTRY_POINT = re.compile(r"^([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*):([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(\(\))?$")


def entry_point(text: str) -> str | None:
    """`pkg.cli:main` -> `pkg.cli.main`, None for anything else."""
    m = _ENTRY_POINT.match(text.strip().strip("`").strip())
    if m is None or ("." not in m.group(1) and not m.group(3)):
        return None
    return f"{m.group(1)}.{m.group(2)}"


def file_and_name(text: str) -> tuple[str, str] | None:
    """(file, name) of `path/file.ext::A::b` or `path/file.ext:A.b` (the name's segments joined
    by `.`), None for anything else."""
    m = _FILE_THEN_NAME.match(text.strip().strip("`").strip())
    return (m.group(1), m.group(2).replace("::", ".")) if m else None


def in_file(path: str, named: str) -> bool:
    """`path` is the file a name's file part names (`file_and_name`): the same path, or a tail
    of it at a `/` (`test_items.py`, `tests/test_items.py`)."""
    return path == named or path.endswith("/" + named)


def _normalise(query: str) -> str:
    q = query[:MAX_CLASSIFY_CHARS].strip()
    if len(q) > 2 and q[0] == q[-1] == "`" and "`" not in q[1:-1]:
        q = q[1:-1].strip()  # agents wrap names in markdown backticks
    located = file_and_name(q)
    if located:
        return located[1]
    q = entry_point(q) or q
    wrapped = _RUST_WRAPPED.match(q)
    return wrapped.group(1) if wrapped else q


# What separates the segments of a qualified name, in the supported languages and as agents
# write one: `a.b`, `a::b`, `a->b`, `A#b`.
NAME_SEPARATORS = re.compile(r"::|\.|->|#")


_PRIVATE_NAME = re.compile(r"(^|\.|::)#(?=[A-Za-z_$])")
_PATH_ANCHORS = frozenset({"crate", "self", "super", "this", "Self"})


_RUST_QUALIFIED_SELF = re.compile(r"^<\s*&?(?:mut\s+|dyn\s+)?([A-Za-z_][\w:]*)(?:<[^>]*>+)?\s+as\s+"
                                  r"([A-Za-z_][\w:]*)(?:<[^>]*>+)?\s*>\s*::\s*([A-Za-z_]\w*)")


# Go's method as stack traces, pprof and docs print it: `gin.(*Context).JSON`, `(*List[T]).Push`,
# `(Context).JSON`, or as declared, `(c *Context) JSON`: the method JSON of the type Context
_GO_METHOD_EXPRESSION = re.compile(r"\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*\)(?:\.|\s+)([A-Za-z_]\w*)")
# a pointer type's method written with the star: `*Client.ReadDir`
_GO_POINTER_OWNER = re.compile(r"^\*\s*(?=[A-Za-z_]\w*\.[A-Za-z_])")


# An impl header written as a question: `impl Display for Point`, `impl<'a, T> Parse for Wrapper<'a, T>`,
# `impl fmt::Debug for &mut Buf`: (the trait, the type), each its last path segment.
_RUST_IMPL_FOR = re.compile(r"^\s*(?:unsafe\s+)?impl\s*(?:<[^{]*?>\s*)?(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)\s*(?:<[^{]*?>)?"
                            r"\s+for\s+(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?(?:dyn\s+)?(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)"
                            r"\s*(?:<[^{]*>)?\s*\{?\s*\}?\s*$")


MAX_IMPL_HEADER_CHARS = 300  # an impl header is a line; the pattern's lazy brackets backtrack on more


def rust_impl(text: str) -> tuple[str, str] | None:
    """(trait, type) of a query written as a Rust impl header, else None."""
    if len(text) > MAX_IMPL_HEADER_CHARS:
        return None
    m = _RUST_IMPL_FOR.match(text.strip().strip("`"))
    return (m.group(1), m.group(2)) if m else None


def _impl_method(m: re.Match[str]) -> str:
    """`Type::method` of a fully qualified Rust path; `Trait::method` when the type is a generic
    parameter (`<T as Default>::default`: no type of that name)."""
    own, trait, method = m.groups()
    return f"{trait if re.fullmatch(r'[A-Z]', own) else own}::{method}"


_TURBOFISH = re.compile(r"::<")


def _without_turbofish(raw: str) -> str:
    """Rust's turbofish taken out of a path: `Punctuated::<T, P>::push` -> `Punctuated::push`
    (generic arguments name no definition; nested brackets are matched)."""
    m = _TURBOFISH.search(raw)
    while m is not None:
        depth, end = 0, None
        for i in range(m.start() + 2, len(raw)):
            depth += {"<": 1, ">": -1}.get(raw[i], 0)
            if depth == 0:
                end = i + 1
                break
        if end is None:
            return raw
        raw = raw[:m.start()] + raw[end:]
        m = _TURBOFISH.search(raw)
    return raw


def private_spelling(segments: list[str], defined: Callable[[str], bool]) -> list[str]:
    """`calculateWait` meaning the ECMAScript private member `#calculateWait`, as an agent writes
    the name it read in `this.#calculateWait()`: the segments with the name's `#` when no
    definition (`defined`, by name) has the name as written and one has it with the `#`."""
    name = segments[-1]
    if name.startswith("#") or defined(name) or not defined(f"#{name}"):
        return segments
    return [*segments[:-1], f"#{name}"]


def parse_name(text: str, field: str) -> list[str]:
    """A symbol name as an agent writes it, as segments: `auth::jwt::validate_token` ->
    [auth, jwt, validate_token]; `fn foo`, `foo()`, `Vec<T>`, `println!` -> [the name]; Go's
    `gin.(*Context).JSON`, `(c *Context) JSON`, `*Context.JSON` -> [gin, Context, JSON]. The
    one parser of locate_symbol's `name` and find_references' `symbol_name` (`field`, named
    in the invalid_input error when nothing of the text is a name)."""
    raw = text.strip().strip("`").strip()
    if not raw:
        raise CruxeError("invalid_input", f"{field} must not be empty", {"field": field})
    located = file_and_name(raw)
    if located:  # the file is the caller's to use (`locate_symbol`, `find_references`)
        raw = located[1]
    raw = entry_point(raw) or raw
    # Rust's fully qualified form, as compilers and docs print it: `<Span as Drop>::drop` is the
    # method of Span's impl (`Span::drop`), `<Vec<T> as IntoIterator>::into_iter` Vec's
    raw = _RUST_QUALIFIED_SELF.sub(_impl_method, raw)
    raw = _GO_POINTER_OWNER.sub("", _GO_METHOD_EXPRESSION.sub(r"\1.\2", raw))
    raw = _without_turbofish(raw)
    if " " in raw or "(" in raw or "<" in raw:
        raw = symbol_name(raw) or raw
    raw = raw.rstrip("!")
    # an ECMAScript private name keeps its `#` (`QueryObserver.#notify`, `#notify`): only a `#`
    # right after a name separates (`Virtualizer#scrollToIndex`, as docs write a method)
    raw = _PRIVATE_NAME.sub("\\1\x00", raw)
    segments = [s.replace("\x00", "#") for s in NAME_SEPARATORS.split(raw) if s]
    if not segments:
        raise CruxeError("invalid_input", f"not a symbol name: {text!r}", {"field": field})
    # a path's anchors name no definition: Rust's `crate::`/`self::`/`super::`, `self.`/`this.`
    while len(segments) > 1 and segments[0] in _PATH_ANCHORS:
        segments = segments[1:]
    # JavaScript's way of naming a method, as docs and stack traces print it: `FormApi.prototype.validate`
    # is FormApi's `validate` (no definition is named `prototype`)
    return [s for i, s in enumerate(segments) if s != "prototype" or i in (0, len(segments) - 1)]


_MACRO_CALL = re.compile(r"\w!\s*(?:\(\s*\))?[\s`]*$")


def is_macro_call(name: str) -> bool:
    """`select!`, `vec!()`: a Rust macro is asked for, not a same-named function or module."""
    return _MACRO_CALL.search(name) is not None


def symbol_name(query: str) -> str | None:
    """The identifier a symbol-intent query names (`fn foo` -> `foo`), or None."""
    if classify(query)[0] != SYMBOL:
        return None
    q = _normalise(query)
    found = _symbol_name(q, q.split())
    return found[0] if found else None


_TYPE_WORDS = frozenset("class interface type struct enum trait impl union".split())
_CALLABLE_WORDS = frozenset("fn func def method function".split())


def query_kind_intent(query: str) -> str | None:
    """Spec 04 naming-convention hint for symbol queries: "type", "callable" or None (no boost).

    The rule reads the name the query asks for, and for a qualified name its last segment
    (`http.Server` -> `Server`). A definition word says the kind outright (`class foo` -> type,
    `fn Foo` -> callable). Queries of other intents name no convention and get None.
    """
    name = symbol_name(query)
    if name is None:
        return None
    form = _keyword_form(_normalise(query).split())
    if form and form[0] in _TYPE_WORDS:
        return "type"
    if form and form[0] in _CALLABLE_WORDS:
        return "callable"
    return _convention(NAME_SEPARATORS.split(name)[-1] or name)


def _convention(name: str) -> str | None:
    first = name[:1]
    if "_" in name or first.islower():
        return "callable"  # underscore presence overrides an uppercase start (spec 04)
    if first.isupper():
        return "type"
    return None


# ---- a qualified name against definitions (locate_symbol and find_references alike) -------------

_PATH_PARTS = re.compile(r"[/\\.]")


class Named(Protocol):
    name: str
    qualified_name: str
    path: str


N = TypeVar("N", bound=Named)
Home = Callable[[str], list[str]]  # a file's path -> names it lives under that the path does not say


def qualified_matches(rows: list[N], segments: list[str], home: Home | None = None) -> list[N]:
    """The definitions (named `segments[-1]`, any case) a qualified name may mean, case-
    insensitively: those whose qualified name ends with the segments at a segment boundary
    (`.` and `::` alike); when none does, those whose home (`home`: a Rust crate's package
    name, which no path need say), path and qualifier contain the query's qualifier segments
    in order (`json.JSONDecoder` finds `json.decoder.JSONDecoder`, `crossbeam_channel::bounded`
    finds `bounded` in `crossbeam-channel/src/channel.rs`, `hashbrown::HashMap::insert` finds
    `map::HashMap::insert` in the crate named `hashbrown`)."""
    want = [s.lower() for s in segments]
    suffix = [r for r in rows if _seg(r.qualified_name)[-len(want):] == want]
    if suffix:
        return suffix
    qualifier = want[:-1]
    return [r for r in rows if _in_order(qualifier, _context_segments(r, home))]


def scope_as_written(row: Named, segments: list[str], home: Home | None = None) -> bool:
    """The row matches the qualified name in its case, by the rule of `qualified_matches`
    applied case-sensitively (suffix of the qualified name, else qualifier in order)."""
    if _seg(row.qualified_name, fold=False)[-len(segments):] == segments:
        return True
    return row.name == segments[-1] and _in_order(segments[:-1], _context_segments(row, home, fold=False))


def _seg(qualified_name: str, *, fold: bool = True) -> list[str]:
    text = qualified_name.lower() if fold else qualified_name
    return [s for s in NAME_SEPARATORS.split(text) if s]


def _context_segments(row: Named, home: Home | None, *, fold: bool = True) -> list[str]:
    """Where a symbol lives, as segments: its home's, its path's components, then its qualifier."""
    text = row.path.lower() if fold else row.path
    path = [p for p in _PATH_PARTS.split(text) if p]
    if home is not None:
        path = [h.lower() if fold else h for h in home(row.path)] + path
    return path + _seg(row.qualified_name, fold=fold)[:-1]


def _in_order(needles: list[str], hay: list[str]) -> bool:
    """`needles` appear in `hay` in this order; `-` and `_` alike (the package `crossbeam-channel`
    is the crate `crossbeam_channel` in Rust paths)."""
    it = iter(h.replace("-", "_") for h in hay)
    return all(any(n.replace("-", "_") == h for h in it) for n in needles)

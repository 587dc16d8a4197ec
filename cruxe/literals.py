"""Messages as literals with holes: what a raise/panic/log call would print, and a pasted one.

Indexing: every string literal of a file (a Python file scanned whole, others definition by definition: `field_texts`) that sits inside an
emitting call (`raise`, `throw`, `panic`, `Errorf`, `errors.New`, `bail!`, `format!`, `.expect(`,
an `...Error(` constructor, a logger method or Rust log macro (`info!`), `fail(`, `abort(` and their
printf-style kin (`failf(`), a panicking helper (`encPanic(`), a helper with `error` among its snake-case words
(`yaml_parser_set_scanner_error(`), Go's `fmt.Fprintf(os.Stderr, ...)`, or gettext's `_(` and kin), or that is the whole
value of a constant named in capitals (`CONTEXT_MISSING_ERROR = "..."`, which the emitting call
names instead), or that is given to a variable named for a message (`msg = f"..."` then
`raise ValueError(msg)`, the style linters ask of Python; `message.append(...)`) or returned by a
function named for one (`def _undefined_message(self): return f"..."`) or by a function whose
body is that one `return` (a locale's `func (l Locale) Required() string { return "..." }`) or by a Python exception
class's `__str__` (what a traceback prints after the exception's name), or, in Rust, that a `fn fmt`
writes (a `Display` impl: what `{}` prints of an error), that a `match` arm of an error's variant
gives (`Error::UNSUPPORTED => Some("...")`) or that thiserror's `#[error("...")]` holds, is cut at
its holes (`{}`, `{name}`, `%s`, `%(x)s`, `${...}`, `%v`, escapes) into constant
segments; each segment's words (the identifiers of IDENT_PATTERN, lower-cased, as the `content`
field holds them) go to the snippets' `error_literals` field, segments separated by SEGMENT_BREAK
so that no phrase matches across a hole. A Rust `assert!(cond)` without a message emits
`assertion failed: cond`, the condition's own text (what `stringify!` prints). Literals merely
mentioned elsewhere (a test asserting the same text) are not in that field: the emitting site is
what it finds.

Querying: a pasted message loses the wrapper its runtime printed around it (`ValueError: `,
`panic: `, Rust's `thread 'main' panicked at '...', src/main.rs:1:2` and std's ``called
`Result::unwrap()` on an `Err` value: ``, a Rust logger's `[TIME LEVEL target] `) and the words that
are filled-in values (numbers, paths, URLs, addresses, quoted values, `<...>` reprs, std's
`... (os error N)`); the runs of words between them are the candidate
constant segments, searched as phrases.

Literals are found by a lexical scan, the same for every language (quotes, triple quotes, Go and
TypeScript backticks; single quotes only where they delimit strings): no grammar is needed to
find what a message says, and a scan stays linear on any input.
"""
from __future__ import annotations

import bisect
import re
from typing import Callable, Iterator

from . import pyparse
from .model import TS_FAMILY

SEGMENT_BREAK = "|"  # a token no query term can be (queries keep identifier characters only)
MIN_LITERAL_WORDS = 2  # shorter literals are keys, names and separators, not messages
MAX_LITERAL_CHARS = 2000  # a message longer than this is a template or data, not a message
EMIT_WINDOW = 400  # chars before a literal searched for the call that emits it
MAX_FIELD_TERMS = 4000  # bounds the field for a chunk full of messages

_WORD = re.compile(r"[A-Za-z0-9_$]+")  # store.IDENT_PATTERN, the `content` field's terms
_DOUBLE = r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"'
_SINGLE = r"'''(?:[^'\\]|\\.|'(?!''))*'''|'(?:[^'\\\n]|\\.)*'"
# A template's hole may hold code with a nested template or one level of braces (redux's
# `${type ? `"${String(type)}"` : '(unknown type)'}`, `${fn({ a: 1 })}`): the hole is read whole, not
# ended at the nested backtick. Atomic groups and possessive repeats keep the scan linear.
_NESTED_TEMPLATE = r"`(?:[^`\\]|\\.)*+`"
_TEMPLATE_HOLE = rf"\$\{{(?:[^{{}}`]|{_NESTED_TEMPLATE}|\{{[^{{}}`]*+\}})*+\}}"
_TEMPLATE = rf"`(?>{_TEMPLATE_HOLE}|[^`\\]|\\.)*+`"
_BACKTICK = r"`(?:[^`\\]|\\.)*`"
# Go and Rust use single quotes for characters (and Rust for lifetimes); Go's backticks are raw strings.
_LITERAL = {
    "python": re.compile(f"{_DOUBLE}|{_SINGLE}", re.S),
    "typescript": re.compile(f"{_DOUBLE}|{_SINGLE}|{_TEMPLATE}", re.S),
    "go": re.compile(f"{_DOUBLE}|{_BACKTICK}", re.S),
    "rust": re.compile(_DOUBLE, re.S),
}
_LITERAL["tsx"] = _LITERAL["javascript"] = _LITERAL["typescript"]
# The scan of the languages with `//` and `/* */` comments reads a comment as a whole, so a quote
# in it opens no literal: an apostrophe or a code span in prose (`// A group's layout keeps
# `''` here`) turned the rest of a definition inside out and lost its messages. Go's runes and
# Rust's chars are read whole too (`'`'`, `'"'`): not a lifetime (`'a`), which has no closing quote.
_COMMENT = r"//[^\n]*|/\*(?:[^*]|\*(?!/))*+\*/"
_CHAR = r"'(?:[^'\\\n]|\\[^\n][^'\n]{0,9})'"
_SCAN = {lang: re.compile(f"{_COMMENT}|{_CHAR}|{p.pattern}" if lang in ("go", "rust") else f"{_COMMENT}|{p.pattern}",
                          re.S) for lang, p in _LITERAL.items() if lang != "python"}
_SCAN["python"] = _LITERAL["python"]
# The quotes that open a string spanning lines (a Rust string may too, but the scan reads Rust
# strings one line at a time).
_MULTILINE_QUOTE = {"python": re.compile(r'"""|\'\'\''), "go": re.compile("`"), "typescript": re.compile("`")}
_MULTILINE_QUOTE["tsx"] = _MULTILINE_QUOTE["javascript"] = _MULTILINE_QUOTE["typescript"]
# Holes: template and format placeholders (Go's text/template and mustache's `{{.min}}` among them),
# printf verbs, escapes (a `\n` is no word of the message).
_HOLE = re.compile(_TEMPLATE_HOLE + r"|\{\{[^{}\n]{1,60}\}\}|\{[^{}\s\"']{0,40}\}"
                   r"|%(?:\([\w.]*\))?[-+#0 ]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[hlLqjzt]*[a-zA-Z]"
                   r"|\\(?:x[0-9a-fA-F]{2}|u\{?[0-9a-fA-F]{1,6}\}?|.)")
_PREFIX = re.compile(r"[rRbBfFuU]{1,2}")  # Python string prefixes glued to the quote
_PREFIX_AT_END = re.compile(r"(?<![\w$])[rRbBfFuU]{1,2}\Z")
# The calls whose string arguments are what a user sees pasted back (a message, a panic, a log
# line), by the name before the call's bracket. Macros (`name!`): `assert_eq!`-style macros
# compare their strings, they do not print them as the message; a name ending in panic, abort or
# error is a project's own printing macro (`rtprintpanic!`, `rtabort!`, `const_io_error!`); the
# `log` crate's and tracing's macros print a log line's message (`info!("Fork detected")`).
_EMIT_MACROS = frozenset("panic unreachable unimplemented todo bail ensure format_err anyhow format eprintln eprint "
                         "assert debug_assert log info warn debug trace".split())
_EMIT_MACRO_ENDS = ("panic", "abort", "error")
# functions and methods, by their last name, lower-cased (`fmt.Errorf`, `t.Fatalf`, `.expect`, `p.error`,
# a scanner's `s.err`); a project's throwing helper by the names the convention gives it (mobx's and
# immer's `die(...)`, `invariant(cond, "...")`)
_EMIT_CALLS = frozenset("panic panicf panicln errorf error err fatal fatalf fatalln expect expect_err warn warnf "
                        "warning critical exception fail abort die invariant".split())
# the suffix Go's printf-style functions add to a verb (`Errorf`, `Println`): `failf` is `fail`'s kin
_PRINTF_SUFFIX = re.compile(r"(?<=[a-z])(?:f|ln)\Z")
# a helper named for raising, in snake case (Python's `raise_syntax_error`); not one named for an
# error (a test's `assert_error(code, "expected message")` raises nothing)
_EMIT_HELPER = re.compile(r"^_*raise_[a-z_]")
# a helper with `error` among its snake-case words, which sets or reports one (libyaml's port keeps C's
# names: `yaml_parser_set_scanner_error(parser, "", mark, "mapping values are not allowed ...")`), as a
# camel-case name with `Error` in it does (`setScannerError(`); not a test's assertion that an error
# says something (`assert_error(code, "expected message")` emits nothing)
_SNAKE_ERROR_WORD = re.compile(r"(?:^|_)error(?:_|\Z)")
_ASSERTION_HELPER = re.compile(r"^_*(?:assert|expect)_")
# Go's printing to the standard error stream: what a program (logrus: `fmt.Fprintf(os.Stderr, "Failed
# to obtain reader, %v\n", err)`) tells its user went wrong, as Rust's `eprintln!` is
_GO_FPRINT = frozenset(("Fprintf", "Fprintln", "Fprint"))
_STDERR_FIRST = re.compile(r"\s*os\.Stderr\s*,")
# Python: what an exception class gives its base's `__init__` is what `str()` of it prints
_SUPER_BEFORE = re.compile(r"\bsuper\(\s*(?:\w+\s*,\s*\w+\s*)?\)\Z")
_PY_CLASS_HEAD = re.compile(r"^([ \t]*)class\s+(\w+)\s*(?:\(([^)]*)\))?\s*:", re.M)
# gettext and its kin mark the strings a program shows its users, wherever the message is then
# raised or printed from (click: `message = _("No such option: {name}").format(...)`; Django:
# `default_error_messages = {"invalid": _("Enter a valid value.")}`).
_TRANSLATED = frozenset("_ gettext gettext_lazy ngettext ngettext_lazy pgettext pgettext_lazy npgettext "
                        "gettext_noop ugettext ugettext_lazy".split())
# `panic` as a word of a camel-case name: at its start or capitalised after a lower-case letter
_PANIC_WORD = re.compile(r"^panic(?![a-z])|(?<=[a-z0-9])Panic(?![a-z])")
_LOGGERS = frozenset("log logger logging console warnings LOG LOGGER".split())
# a name that is an error type or builds one (`ValueError(`, `&PathError{`, `io::Error::new(`, `newError(`)
_ERROR_NAME = re.compile(r"Error|Exception|Warning|^Err")
_NAME_SEP = re.compile(r"[.:]+")
# `NAME =` (a declaration's keywords and a type annotation allowed) right before a literal, the
# name in capitals: the convention of every language here for a constant.
_CONSTANT_BEFORE = re.compile(r"(?:^|\n)[ \t]*(?:(?:pub(?:\([\w: ]*\))?|export|const|static|final|readonly|var|let)\s+)*"
                              r"[A-Z][A-Z0-9_]*[A-Z0-9]\s*(?::[^=\n]{1,80})?=\s*\Z")
# A variable named for a message (the name ends in msg or message) given the literal, the value
# opened by brackets or a formatting call (`message = [f"..."`, `msg := fmt.Sprintf(`), or added to
# it; any other call's result (`MSG = render("template name")`) is not the literal.
_FORMAT_CALL = r"(?:[\w.:]*(?:format|Format|sprintf|Sprintf)!?\(\s*)?"
# A variable named `error` or `err` (`last_error`) holds a message too when a string is given to it
# (jsonschema's `error = "Additional properties are not allowed (%s %s unexpected)"`, then
# `ValidationError(error % ...)`).
_MESSAGE_VAR = r"(?:(?:self|this)\.)?(?:\w*(?:msg|message|Msg|Message|MSG|MESSAGE)s?|(?:\w+_)?err(?:or)?)"
_MESSAGE_VAR_BEFORE = re.compile(
    rf"(?:^|\n)[ \t]*(?:(?:let|const|var|mut)\s+)*{_MESSAGE_VAR}"
    rf"(?:\s*(?::[^=\n]{{1,80}})?(?:\+=|:=|=)|\.(?:append|push|extend)\()[ \t\r\n(\[]*{_FORMAT_CALL}[rRbBfFuU]{{0,2}}\Z")
_RETURN_BEFORE = re.compile(rf"\breturn\s+[\s(\[]*{_FORMAT_CALL}[rRbBfFuU]{{0,2}}\Z")
_FUNCTION_NAME = re.compile(r"(?:\bdef|\bfn|\bfunc(?:\s*\([^)\n]*\))?|\bfunction)\s+(\w+)")
_MESSAGE_WORD = re.compile(r"msg|message", re.IGNORECASE)
# A function whose whole body returns one literal (`func (l DefaultLocale) Required() string {
# return `{{.property}} is required` }`, `func (errNotFound) Error() string { return "no such key" }`):
# a getter of text the program shows as it is, or renders with its holes filled (a locale's
# message templates), wherever the call that prints it is.
_GETTER_BEFORE = re.compile(r"(?:\bfunc\b|\bfunction\b|\bfn\b)[^{};\n]*\{\s*return\s+\Z")
_GETTER_AFTER = re.compile(r"\s*;?\s*\}")
FUNCTION_WINDOW = 4000  # chars before a returned literal searched for its function's name
# TypeScript/JavaScript: a table of messages kept apart from the call that throws them by index
# or key (immer's `export const errors = [..., "This object has been frozen ...", ...]` thrown by
# `die(2)`; `errorMessages: Record<Code, string> = {...}`): a declaration whose name ends in
# errors/messages/warnings, its value's first bracket within TABLE_OPEN_CHARS of the `=`.
_TABLE_DECL = re.compile(r"\b(?:const|let|var)\s+(?:[A-Za-z_$][\w$]*?)?(?:[Ee]rrors?|[Mm]essages?|[Ww]arnings?|ERRORS?"
                         r"|MESSAGES?|WARNINGS?)\s*(?::[^=\n]{1,80})?=(?!=)")
# Python: a (class) attribute or variable so named (marshmallow's and Django's
# `default_error_messages = {"invalid": "Not a valid integer."}`, raised by key through
# `self.make_error("invalid")`).
# Found from the words' occurrences (str.find), each checked for the assignment around it: a
# pattern tried at every position of a file cost more than the rest of its scan.
_TABLE_WORDS = ("error", "message", "warning")
_PY_TABLE_TAIL = re.compile(r"[sS]?[ \t]*(?::[^=\n]{1,80})?=(?!=)")
_PY_TABLE_HEAD = re.compile(r"[ \t]*(?:self\.)?\w*")
TABLE_OPEN_CHARS = 120
_BRACKET_OPEN = re.compile(r"[\[{]")
_STATEMENT_START = re.compile(r";|(?<![!=<>])=(?![=>])|\n\s*(?:export|const|let|var|function|class)\b")
_RAISE_BEFORE = re.compile(r"(?:\braise|\bthrow)\s+(?:new\s+)?\Z")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.:")
MAX_NAME_CHARS = 80
_OPEN = frozenset("([{")
_BRACKET = re.compile(r"[()\[\]{}]")
_COMMENT_LEADS = ("//", "#", "*", "/*")
# Rust: an error's message is what its `Display` impl writes (`"...".fmt(f)`, `write!(f, "...")`,
# `f.write_str`, `f.pad`), found by the `fn fmt` around it: the last `fn` before it within
# FMT_WINDOW (a long `Display` of an error enum, toml's, writes its last arms and its position
# suffix thousands of characters below its `fn fmt`; the window bounds the scan of a file of
# literals and no `fn`); thiserror (and snafu, failure) write it as an attribute of the error
# type or variant.
FMT_WINDOW = 20_000
_RUST_FN = re.compile(r"\bfn\s+([A-Za-z_]\w*)")
_RUST_FMT_RECEIVER = re.compile(r"\s*\.fmt\(")
_RUST_WRITERS = frozenset("write writeln write_str write_fmt pad format_args".split())
_RUST_ASSERT = re.compile(r"\b(?:debug_)?assert!\s*\(")
_RUST_ERROR_ATTRIBUTE = re.compile(r"#\[\s*(?:error\(|snafu\(\s*display\(|fail\(\s*display\s*=)\s*\Z")

# Pasted wrappers: how a runtime prints an uncaught error around its message.
_RUST_PANIC = re.compile(r"^thread '[^']*' panicked at (?:'(?P<old>.*)',\s*\S+:\d+:\d+"
                         r"|\S+:\d+:\d+:\s*(?P<new>.*))$", re.S)
# A Rust log line: env_logger's `[2024-03-01T10:22:03Z ERROR target::path] ` and tracing-subscriber's
# `2024-03-01T10:22:03.120Z  INFO span{a=1}: target::path: ` print the logger's words, not the
# program's, before the message. Without brackets the time or a `::` path must be there: `WARN
# deprecated: use X` may be a message of the program's own.
_LEVEL, _TARGET = r"(?:ERROR|WARN|INFO|DEBUG|TRACE)\s+", r"[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*"
_SPANS = r"(?:[\w:]+\{[^{}\n]*\}:\s*)*"
_RUST_LOG_PREFIX = re.compile(rf"^(?:\[(?:\d\S*\s+)?{_LEVEL}{_TARGET}\]|\d\S*\s+{_LEVEL}{_SPANS}{_TARGET}:"
                              rf"|{_LEVEL}{_SPANS}[A-Za-z_]\w*(?:::[A-Za-z_]\w*)+:)\s+(?=\S)")
# std's `io::Error` as its Display prints it into a message's hole (`could not open {}: {}`):
# the OS's words, up to the `(os error N)` std appends, are a value, none of the program's.
_RUST_OS_ERROR = r"(?<=:\s)[^\s:][^:\n]{0,200}?\(os error -?\d+\)"
_OS_ERROR_TAIL = re.compile(r"\(os error -?\d+\)\W*$")
# std's words around the error's Debug text when `.unwrap()` meets an `Err` (`unwrap_err`, an `Ok`)
_RUST_UNWRAP = re.compile(r"^called `(?:Result|Option)::\w+\(\)` on an? `\w+` value:\s*")
_GO_PANIC = re.compile(r"^panic:\s+(.*?)(?:\s+goroutine \d+ \[.*)?$", re.S)
_EXCEPTION_LIKE = re.compile(r"(?:Error|Exception|Warning|Exit|Interrupt|Failure|Fault|Panic)$")
# a private class is raised too (`jsonschema.exceptions._RefResolutionError: ...`)
_EXC_NAME = re.compile(r"^(?:[A-Za-z_][\w]*\.)*_*[A-Z]\w*:\s+(?=\S)")
_QUOTES = "\"'`\u201c\u201d\u2018\u2019"
_TRIM = _QUOTES + ".,;:!?()[]{}<>"
# A repr at a word's start (`<class 'str'>`, `(<Foo object at 0x1f>)`), whatever follows it up to the next
# space; a quoted value holding spaces (`f'Invalid key "{key}"'` printing `Invalid key "first name"`), from
# a quote at a word's start to the same quote at a word's end (the apostrophe of `doesn't` opens none;
# a quote after a bracket is an element of a printed list or dict: `{'age': ['Not a valid integer.']}`).
_PASTED_WORD = re.compile(rf"{_RUST_OS_ERROR}\S*|(?:(?<=\s)|^)[(\[{{'\"]*<[A-Za-z_][^<>\n]{{0,200}}>\S*"
                          r"""|(?:(?<=\s)|^)(?:"[^"\n]{1,200}?"|'[^'\n]{1,200}?')(?=[\s.,;:!?)\]}]|$)\S*|\S+""")
_REPR_TAIL = _QUOTES + ".,;:!?)]}"
# An object's repr in constructor form heading the message, `f"{self}: {message}"` (urllib3's pool
# errors: `HTTPConnectionPool(host='localhost', port=9200): Max retries exceeded ...`): a value.
_REPR_HEAD = re.compile(r"^[A-Z]\w*\((?:[^()\n]|\([^()\n]*\)){0,300}?=(?:[^()\n]|\([^()\n]*\)){0,300}\):\s+(?=\S)")
_PY_TRACEBACK = "Traceback (most recent call last):"
# the head of an exception's argument tuple as Python prints it: `(` and a string's repr, then `,`
_ARGS_HEAD = re.compile(r"""\(((?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))\s*,""")
# A Python traceback's frame line (query/frames.py reads its path, line and function too)
PY_FRAME = re.compile(r'^\s*File "(?P<path>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<func>.+?))?\s*$')


def emitted_segments(text: str, language: str) -> list[list[str]]:
    """The constant segments (lower-cased words) of each string literal of `text` that sits in
    an emitting call, in text order; adjacent literals (`"a " "b"`, `"a " + "b"`) count as one."""
    return [[w for seg in segs for w in seg + [SEGMENT_BREAK]] for segs, _, _ in _emitted(text, language)]


def emitted_messages(text: str, language: str) -> list[str]:
    """The text of each message `text` emits (as emitted_segments finds them), holes as
    written: `f"no {x} in {y}"` -> `no {x} in {y}`; pieces of one message joined."""
    return [raw for _, raw, _ in _emitted(text, language)]


def best_fit(text: str, language: str, pasted: str) -> tuple[float, int]:
    """(message_fit, offset in `text`) of the message of `text` that best explains the pasted
    one (wrapper already off); (0.0, -1) when none does. `text` may be a chunk cut out of a
    long definition inside a multi-line string (field_texts): when no message fits, it is
    read again from the end of its first multi-line quote, as the file reads it."""
    best = _best_fit_from(text, 0, language, pasted)
    quote = _MULTILINE_QUOTE.get(language)
    if best[0] == 0 and quote is not None:
        m = quote.search(text)
        if m is not None:
            best = _best_fit_from(text, m.end(), language, pasted)
    return best


def emits_whole(text: str, language: str, pasted: str, share: float) -> bool:
    """Whether a message of `text` is the whole paste with its holes filled (FULL_FIT) and its
    own words are `share` of the paste's words or more: `%s is not allowed here` explains any
    sentence ending so, and says too few of its words to make it a message."""
    words = sum(len(seg) for seg in message_segments(pasted))
    return any(message_fit(raw, pasted) >= FULL_FIT and sum(len(seg) for seg in segs) >= share * words
               for segs, raw, _ in _emitted(text, language))


def inner_paste(text: str, language: str, pasted: str) -> str:
    """The inner message a wrapper printed: when the message of `text` that best explains the
    pasted one (wrapper already off) is the whole paste and ends in a hole (`toml: line %d (last
    key %q): %s`, `%d error(s) decoding:\n\n%s`), or else starts with one (a Python exception's
    `f"{message} at line {line} col {col}"`), the text that hole holds, of MIN_LITERAL_WORDS
    words or more and longer than the message's own text (else a value's, not a message); ""
    otherwise. Another site's message is what it says."""
    best, raw = 0.0, ""
    for _, message, _ in _emitted(text, language):
        fit = message_fit(message, pasted)
        if fit > best:
            best, raw = fit, message
    if best < FULL_FIT:
        return ""
    parts, _ = _template(raw)
    if "h" not in (parts[0][0], parts[-1][0]) or not any(kind == "c" for kind, _ in parts):
        return ""
    flat = " ".join(pasted[:MAX_FIT_CHARS].split())
    low = flat.lower()
    found = _align(parts, low)
    if found is None:
        return ""
    flat = flat if len(low) == len(flat) else low
    # the hole at the end, else the one at the start (`{message} at line {line} col {col}`)
    tail = flat[found[0][-1][1]:] if parts[-1][0] == "h" else ""
    head = flat[:found[0][0][0]] if parts[0][0] == "h" else ""
    own = sum(e - s for s, e in found[0])
    for rest in (tail, head):
        # a hole holding fewer characters than the message's own words is a value's text (semver's
        # `unexpected character {} while parsing {}` and its Position's `minor version number`),
        # not a message that the wrapper frames
        if len(_WORD.findall(rest)) >= MIN_LITERAL_WORDS and len(rest.strip()) > own:
            return rest.strip()
    return ""


def _best_fit_from(text: str, offset: int, language: str, pasted: str) -> tuple[float, int]:
    best, best_raw, best_at = (0.0, -1), "", 0
    emitted = _emitted(text[offset:], language)
    for _, raw, start in emitted:
        fit = message_fit(raw, pasted)
        if fit > best[0]:
            best, best_raw, best_at = (fit, offset + start), raw, start
    if language == "rust" and 0 < best[0] < FULL_FIT:
        rest = _rest_after(best_raw, pasted)
        if rest and any(message_fit(raw.strip(), rest) >= FULL_FIT for _, raw, start in emitted if start > best_at):
            best = (FULL_FIT + best[0], best[1])
    return best


def _rest_after(message: str, pasted: str) -> str:
    """The paste after what `message` prints at its start, when the message begins and ends with
    constant text (so both ends are certain) and its holes' values fit; "" otherwise. A Rust
    `Display` writes a message in pieces (`write!(f, "redefinition of table `{}`", ..)`, then `write!(f,
    " at line {} column {}", ..)`): the pieces after the first explain what this leaves."""
    parts, _ = _template(message)
    if not parts or parts[0][0] != "c" or parts[-1][0] != "c":
        return ""
    text = " ".join(pasted[:MAX_FIT_CHARS].split())
    low = text.lower()
    if len(low) != len(text):
        return ""
    found = _align(parts, low)
    if found is None or found[0][0][0] != 0 or not _values_fit(parts, found[0], low):
        return ""
    return text[found[0][-1][1]:].strip()


def _emitted(text: str, language: str) -> list[tuple[list[list[str]], str, int]]:
    """(constant segments, text with holes, offset of its first piece) of each emitted
    message of two words or more."""
    asserted = _rust_assertions(text) if language == "rust" and "assert" in text else []
    pattern = _LITERAL.get(language)
    if pattern is None or not any(q in text for q in "\"'`"):
        return asserted
    out: list[tuple[list[list[str]], list[str], int]] = []
    tables = _message_tables(text, pattern, _declarations(text, language))
    prev_end, prev_kept = -1, False
    concatenates = language != "rust"  # `"a " + x + " b"`: Rust concatenates with format!
    helper_free = concatenates
    for m in _SCAN[language].finditer(text):
        start, body = m.start(), m.group()
        if body[0] == "/" or (body[0] == "'" and language in ("go", "rust")):  # a comment, a rune or char
            continue
        gap = text[prev_end:start] if prev_kept else ""
        joined = prev_kept and _only_joiners(gap)
        holed = helper_free and prev_kept and not joined and _CONCAT_GAP.fullmatch(gap) is not None
        prev_end = m.end()
        prev_kept = False
        # a message has words apart (a literal without a space is a key, a name, a format)
        if (not (joined or holed) and " " not in body) or len(body) > MAX_LITERAL_CHARS or _bytes_literal(text, start):
            continue
        if not _kept(text, start, m.end(), language, joined or holed, tables):
            continue
        inner = _unquote(body)
        segments = literal_segments(inner)
        if not segments and not holed:
            continue
        prev_kept = True
        if not (joined or holed):
            # a message that starts with a value (`str + " (in content expression '" + ...`) is a
            # throw helper's frame around every message its callers pass: no holes, or it would
            # explain their pastes better than they do
            helper_free = concatenates and _CONCAT_BEFORE.search(text, max(0, start - 120), start) is None
        after = CONCAT_HOLE if helper_free and _CONCAT_AFTER.match(text, m.end()) else ""
        if joined and out:  # one message written in pieces: the pieces' edges are no holes
            out[-1][0][-1].extend(segments[0] if segments else [])
            out[-1][0].extend(segments[1:])
            out[-1][1].append(inner + after)
        elif holed and out:  # `"a " + name + " b"`: a value between the pieces, a hole
            out[-1][0].extend(segments)
            out[-1][1].append(CONCAT_HOLE + inner + after)
        else:
            out.append((segments, [inner + after], start))
    found = [(segs, "".join(raw), at) for segs, raw, at in out if sum(len(s) for s in segs) >= MIN_LITERAL_WORDS]
    return sorted(found + asserted, key=lambda m: m[2]) if asserted else found


def _rust_assertions(text: str) -> list[tuple[list[list[str]], str, int]]:
    """`assert!(cond)` / `debug_assert!(cond)` without a message of their own panic with
    "assertion failed: " and the condition's text (whitespace collapsed, as `stringify!`
    prints it): (segments, that message, offset) of each."""
    out = []
    for m in _RUST_ASSERT.finditer(text):
        if _in_comment(text, m.start()):
            continue
        args = _rust_macro_arguments(text, m.end())
        if args is None or len(args) != 1:
            continue  # unclosed, or a message given after the condition
        message = "assertion failed: " + " ".join(args[0].split())
        segments = [[w.lower() for w in _WORD.findall(message)]]
        if sum(len(x) for x in segments) >= MIN_LITERAL_WORDS:
            out.append((segments, message, m.start()))
    return out


def _rust_macro_arguments(text: str, at: int) -> list[str] | None:
    """The top-level comma-separated arguments of the macro call whose `(` is at `at - 1`
    (within MAX_LITERAL_CHARS), or None when it does not close there; strings and chars with
    brackets or commas inside are rare in a condition and taken as written."""
    args, depth, start = [], 0, at
    for j in range(at, min(len(text), at + MAX_LITERAL_CHARS)):
        c = text[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(text[start:j])
                return [a for a in args if a.strip()]
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:j])
            start = j + 1
    return None


def _kept(text: str, start: int, end: int, language: str, joined: bool, tables: list) -> bool:
    """The literal at `start`..`end` is (a piece of) a message: emitted, a message constant, given
    to a message variable or returned by a message function, in a TypeScript or Python table of messages,
    or in Rust written by a `Display` impl or given to thiserror's `#[error(...)]`; never one in a
    comment."""
    rust = language == "rust"
    if rust and _RUST_ERROR_ATTRIBUTE.search(text, max(0, start - MAX_NAME_CHARS), start):
        line = text[text.rfind("\n", 0, start) + 1:start].lstrip()
        if not line or line.startswith("#"):  # the attribute itself, not a doc comment showing one
            return True
    if _in_comment(text, start):
        return False
    return (joined or _inside_emit(text, start, language) or _message_constant(text, start, language)
            or _message_variable(text, start) or _literal_getter(text, start, end) or _in_table(tables, start)
            or (rust and (_rust_display_text(text, start, end) or _rust_error_arm(text, start)))
            or (language == "python" and _exception_attribute(text, start)))


# Python: a class attribute's assignment right before a literal (`    description = (`), and a
# class statement's header
_ATTRIBUTE_BEFORE = re.compile(r"\n([ \t]+)\w+[ \t]*(?::[^=\n]{1,80})?=[ \t]*\(?\s*[rRbBfFuU]{0,2}\Z")
_CLASS_HEADER = re.compile(r"class\s+\w+\s*(?:\([^)]*\))?\s*:")
_EXCEPTION_WORD = re.compile(r"Error|Exception|Warning")
CLASS_WINDOW = 4000  # chars before a class attribute searched for its class statement


def _exception_attribute(text: str, start: int) -> bool:
    """Python: the literal is the value of a class attribute of an exception class (its name or
    a base's says Error/Exception/Warning): werkzeug's `class NotFound(HTTPException):` and its
    `description = ("The requested URL was not found ...")`, which the exception prints. The
    class statement is the first line above the assignment indented less than it."""
    m = _ATTRIBUTE_BEFORE.search(text, max(0, start - EMIT_WINDOW), start)
    if m is None:
        return False
    indent = len(m.group(1).expandtabs())
    floor = max(0, start - CLASS_WINDOW)
    end = m.start()
    while end > floor:
        begin = max(text.rfind("\n", floor, end) + 1, floor)
        line = text[begin:end].expandtabs()
        end = begin - 1
        body = line.lstrip()
        if body and len(line) - len(body) < indent:
            return _CLASS_HEADER.match(body) is not None and _EXCEPTION_WORD.search(body) is not None
    return False


def _rust_display_text(text: str, start: int, end: int) -> bool:
    """The literal is written by a `fn fmt` (what `{}` prints of a Rust error): the receiver of
    `.fmt(f)`, or an argument of `write!`, `f.write_str`, `f.pad`, `format_args!`."""
    if _last_rust_fn(text, start) != "fmt":
        return False
    if _RUST_FMT_RECEIVER.match(text, end):
        return True
    return _inside_call(text, start, _rust_writer)


def _last_rust_fn(text: str, start: int) -> str:
    """The name of the last `fn` declared before `start` within FMT_WINDOW ("" when none)."""
    at, floor = start, max(0, start - FMT_WINDOW)
    while True:
        at = text.rfind("fn", floor, at)
        if at < 0:
            return ""
        m = _RUST_FN.match(text, at)
        if m is not None and m.end() <= start and (at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")):
            return m.group(1)


# Rust: a `match` arm of an error type's variant or constant whose value is the literal
# (`Error::UNSUPPORTED => Some("..."),`, `ErrorKind::Eof { .. } => "...",`): the table an error's
# `description()` or `Display` reads its message from, however far the `match` began
_RUST_ERROR_ARM = re.compile(r"(?:^|\n)[ \t]*(?:\w+::)*\w*Err\w*::\w+[^\n=]*=>\s*(?:Some\(\s*)?\Z")


def _rust_error_arm(text: str, start: int) -> bool:
    return _RUST_ERROR_ARM.search(text, max(0, start - MAX_NAME_CHARS * 2), start) is not None


def _rust_writer(text: str, bracket: int, lo: int) -> bool:
    parts = _call_name(text, bracket, lo)[0]
    return bool(parts) and parts[-1] in _RUST_WRITERS


def field_texts(text: str, language: str, chunks: list[tuple[int, int]],
                units: list[tuple[int, int]] | None = None) -> list[str]:
    """The `error_literals` field of each chunk of a file: the segments of the messages whose
    first piece starts in its lines, each ended by SEGMENT_BREAK, at most MAX_FIELD_TERMS
    terms. `text` is the whole file (its lines joined by `\n`), `chunks` the (first, last)
    lines of its chunks in line order, `units` the (first, last) indexes into `chunks` of the
    runs of chunks cut out of one long definition (default: each chunk its own run).

    A Python file is scanned as one text: a chunk cut out of a long definition may start inside
    a string (a docstring, a raw string), and scanned alone it would read that string's end as
    an opening quote and every string after it inside out. In the other languages a scan is
    thrown off for the rest of its text by what a lexical scan cannot tell from a quote (a
    TypeScript regular expression `/['"]/`, a Rust lifetime or char), so each definition is
    scanned on its own: that limits such a place to its definition (zod's `schemas.ts` lost
    its messages from the first such place to its end), and a long definition's pieces are
    read together, so a message or template literal across a cut stays whole."""
    if language == "python":
        units = [(0, len(chunks) - 1)] if chunks else []
    elif units is None:
        units = [(i, i) for i in range(len(chunks))]
    lines = text.split("\n")
    fields: list[list[str]] = [[] for _ in chunks]
    for first, last in units:
        top = chunks[first][0] if language != "python" else 1
        bottom = chunks[last][1] if language != "python" else len(lines)
        part = "\n".join(lines[top - 1:bottom])
        starts = [a for a, _ in chunks[first:last + 1]]
        line, pos = top, 0
        for segs, _, at in _emitted(part, language):
            line, pos = line + part.count("\n", pos, at), at
            i = first + bisect.bisect_right(starts, line) - 1
            if i >= first and line <= chunks[i][1]:
                fields[i].extend(w for seg in segs for w in seg + [SEGMENT_BREAK])
    return [" ".join(f[:MAX_FIELD_TERMS]) for f in fields]


def literal_segments(inner: str) -> list[list[str]]:
    """The words of each constant segment of a literal's text, holes cut out; empty segments dropped."""
    return [ws for ws in ([w.lower() for w in _WORD.findall(part)] for part in _HOLE.split(inner)) if ws]


def _unquote(body: str) -> str:
    for q in ('"""', "'''"):
        if body.startswith(q) and len(body) >= 6:
            return body[3:-3]
    return body[1:-1]


def _bytes_literal(text: str, start: int) -> bool:
    """A Python bytes literal (`b"..."`, `rb"..."`) is data, never a message."""
    m = _PREFIX.search(text, max(0, start - 2), start)
    if m is None or "b" not in m.group().lower():
        return False
    return m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")


def _in_comment(text: str, start: int) -> bool:
    """On a comment line (a doc example's `/// panic!("...")`, an attribute's `#[...]`, a block
    comment's ` * ` line), not on a dereferencing one (`*out = ...`). Looked for within
    EMIT_WINDOW only: a minified file's one line must not be scanned per literal."""
    lo = max(0, start - EMIT_WINDOW)
    head = text[text.rfind("\n", lo, start) + 1 or lo:start].lstrip()
    if not head.startswith(_COMMENT_LEADS):
        return False
    if head[0] != "*" or len(head) == 1 or not (head[1].isalnum() or head[1] in "_("):
        return True
    # `*out = f("...")`: a dereference is code, unless a block comment is open around it
    return text.rfind("/*", lo, start) > text.rfind("*/", lo, start)


# A message written as literals and values joined by `+` (`"No node type '" + name + "' found"`):
# each value is a hole, as `{}` in a format string. A value is a name, a member, a call or an
# index without quotes (`name`, `this.id`, `String(v)`, `args[0]`).
CONCAT_HOLE = "{}"
_VALUE = r"[\w$.\[\]]+(?:\([^\"'`;\n()]{0,80}\))?(?:\.[\w$]+)*"
_CONCAT_GAP = re.compile(rf"\s*\+\s*{_VALUE}\s*\+\s*[rRbBfFuU]{{0,2}}")
_CONCAT_AFTER = re.compile(rf"\s*\+\s*{_VALUE}\s*(?=[),;\]}}\n]|$)")
_CONCAT_BEFORE = re.compile(rf"[(,=]\s*{_VALUE}\s*\+\s*[rRbBfFuU]{{0,2}}\Z")


def _only_joiners(gap: str) -> bool:
    """Nothing but what joins two literals into one message: spaces, line breaks, `+`, a line
    continuation, and the next literal's Python prefix (`"..."\n    f"..."`: black writes a long
    f-string message so)."""
    return not _PREFIX_AT_END.sub("", gap).strip(" \t\r\n+\\")


def _message_variable(text: str, start: int) -> bool:
    """The literal at `start` is given to a variable named for a message (`msg = f"bad {x}"`,
    `errMsg := fmt.Sprintf("...", x)`, `message.append(...)`), or returned by a function named for
    one (`def format_message(self): return ...`): the message is raised or printed from there (an
    exception class's `__str__`: `_exception_str`)."""
    lo = max(0, start - EMIT_WINDOW)
    if _MESSAGE_VAR_BEFORE.search(text, lo, start) is not None:
        return True
    if _RETURN_BEFORE.search(text, lo, start) is None:
        return False
    names = _FUNCTION_NAME.findall(text, max(0, start - FUNCTION_WINDOW), start)
    if not names:
        return False
    return _MESSAGE_WORD.search(names[-1]) is not None or (names[-1] == "__str__" and _exception_str(text, start))


def _literal_getter(text: str, start: int, end: int) -> bool:
    """The literal at `start`..`end` is all that a function with braces returns, its body's one
    statement (`_GETTER_BEFORE`)."""
    return (_GETTER_BEFORE.search(text, max(0, start - EMIT_WINDOW), start) is not None
            and _GETTER_AFTER.match(text, end) is not None)


def _message_constant(text: str, start: int, language: str) -> bool:
    """The literal at `start` is the whole value given to a constant named in capitals
    (`const CONTEXT_MISSING_ERROR: &str =\n    "there is no reactor ..."`, `MSG = "..."`,
    `export const NOT_FOUND = '...'`), or in Go to any constant (Go names no constant in
    capitals: `const ( fieldErrMsg = "Key: '%s' Error:..." )`): a message kept apart from the
    call that raises or panics with it (`panic!("{}", CONTEXT_MISSING_ERROR)`,
    `fmt.Sprintf(fieldErrMsg, ...)`), which is its only source text."""
    lo = max(0, start - EMIT_WINDOW)
    if _CONSTANT_BEFORE.search(text, lo, start) is not None:
        return True
    return language == "go" and _go_constant(text, start)


def _declarations(text: str, language: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each declaration of a table of messages, up to its `=`: TypeScript's
    (`_TABLE_DECL`), Python's (an assignment at its line's start, `self.` allowed, to a name
    ending in errors/messages/warnings)."""
    if language in TS_FAMILY:
        return ((m.start(), m.end()) for m in _TABLE_DECL.finditer(text))
    if language != "python":
        return iter(())
    low = text.lower()
    if len(low) != len(text):  # a case mapping that changes lengths: offsets would not agree
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    found = []
    for word in _TABLE_WORDS:
        at = low.find(word)
        while at >= 0:
            tail = _PY_TABLE_TAIL.match(text, at + len(word))
            line = text.rfind("\n", 0, at) + 1
            if tail is not None and _PY_TABLE_HEAD.fullmatch(text, line, at):
                found.append((line, tail.end()))
            at = low.find(word, at + 1)
    return iter(sorted(found))


def _message_tables(text: str, literal: re.Pattern, decls: Iterator[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, end) of the value of each declaration `decls` gives: from its first `[` or `{` to
    the matching bracket (brackets inside string literals skipped)."""
    spans: list[tuple[int, int]] = []
    for start, end in decls:
        if spans and start < spans[-1][1]:
            continue
        opened = _BRACKET_OPEN.search(text, end, end + TABLE_OPEN_CHARS)
        if opened is not None and _table_head(text[end:opened.start()]):
            spans.append((opened.start(), _closing(text, opened.start(), literal)))
    return spans


def _table_head(gap: str) -> bool:
    """What lies between a table's `=` and its bracket: nothing, or the head of a ternary or a
    call (`cond ? [`, `Object.freeze({`) within the same statement."""
    return not gap.strip() or gap.rstrip().endswith(("?", "(")) and _STATEMENT_START.search(gap) is None


def _closing(text: str, at: int, literal: re.Pattern) -> int:
    """The end of the bracket opened at `at` (the text's end when it never closes)."""
    depth, i = 0, at
    while i < len(text):
        c = text[i]
        if c in "\"'`":
            m = literal.match(text, i)
            if m is not None:
                i = m.end()
                continue
        elif c in _OPEN:
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(text)


def _in_table(tables: list[tuple[int, int]], start: int) -> bool:
    return any(a < start < b for a, b in tables)


# A Go constant spec right before a literal: `name = `, `name Type = `, or `const name = `.
_GO_CONST_SPEC = re.compile(r"(?:^|\n)[ \t]*(?P<kw>const[ \t]+)?[A-Za-z_]\w*(?:[ \t]+[\w.]+)?[ \t]*=[ \t]*\Z")
# The lines of a gofmt'd `const ( )` block: a spec (one tab in), an `iota` repeat, a spec's
# continuation (two tabs in), a comment, a blank line.
_GO_BLOCK_LINE = re.compile(r"\t[A-Za-z_]\w*(?:[ \t]+[\w.]+)?[ \t]*=|\t[A-Za-z_]\w*\s*$|\t\t|\s*//|\s*$")
GO_CONST_BLOCK_WINDOW = 8000  # chars before a literal searched for the `const (` opening its block


def _go_constant(text: str, start: int) -> bool:
    """The Go literal at `start` is a constant's whole value: on a `const name = ` line, or on a
    spec line of a `const ( )` block. Walking up from its line over the block's lines reaches
    `const (`, or the chunk's start (a snippet chunk is cut at top-level symbols, and each
    constant of a block is one: the chunk of a long block's last entries does not hold its
    opening); anything else (`var (`, a `func` line, a statement) says it is no constant."""
    m = _GO_CONST_SPEC.search(text, max(0, start - 2 * MAX_NAME_CHARS), start)
    if m is None:
        return False
    if m.group("kw"):
        return True
    pos = text.rfind("\n", 0, start) + 1
    if not _GO_BLOCK_LINE.match(text, pos) or text.startswith("\t\t", pos):
        return False
    while pos > 0:
        prev = text.rfind("\n", 0, pos - 1) + 1
        if text.startswith("const (", prev):
            return True
        if start - prev > GO_CONST_BLOCK_WINDOW or not _GO_BLOCK_LINE.match(text[prev:pos - 1]):
            return False
        pos = prev
    return True


def _inside_emit(text: str, start: int, language: str) -> bool:
    """The literal at `start` is an argument of an emitting call: walking out from it through
    the brackets still open (within EMIT_WINDOW before it), one of them is opened by such a call
    (`raise E(_("..."))`, `panic(fmt.Sprintf("..."))`: the inner call is not, the outer one is),
    or, in Go, by the body of an `Error() string` method (what the `error` interface prints:
    `return fmt.Sprintf("Config File %q Not Found in %q", ...)`)."""
    return _inside_call(text, start, _emitting_call) or (language == "go" and _inside_call(text, start, _go_error_body))


_GO_ERROR_METHOD = re.compile(r"\)\s*Error\(\s*\)\s*string\s*\Z")  # `func (e T) Error() string {`


def _go_error_body(text: str, bracket: int, lo: int) -> bool:
    return text[bracket] == "{" and _GO_ERROR_METHOD.search(text, lo, bracket) is not None


def _inside_call(text: str, start: int, opens: Callable[[str, int, int], bool]) -> bool:
    """Some bracket still open at `start` (within EMIT_WINDOW before it) is one that `opens`
    (text, the bracket's offset, the window's start) accepts."""
    lo = max(0, start - EMIT_WINDOW)
    depth = 0
    for m in reversed(list(_BRACKET.finditer(text, lo, start))):
        if m.group() not in _OPEN:
            depth += 1
        elif depth:
            depth -= 1
        elif opens(text, m.start(), lo):
            return True
    return False


def _call_name(text: str, bracket: int, lo: int) -> tuple[list[str], bool, int]:
    """The name parts (split at `.` and `::`) of the call whose bracket opens at `bracket`,
    whether it is a macro (`name!(`) and where the name starts; no parts when no name precedes
    the bracket."""
    j = bracket
    while j > lo and text[j - 1] in " \t\r\n":
        j -= 1
    bang = j > lo and text[j - 1] == "!"
    j -= bang
    k = j
    while k > max(lo, j - MAX_NAME_CHARS) and text[k - 1] in _NAME_CHARS:
        k -= 1
    return [x for x in _NAME_SEP.split(text[k:j]) if x], bang, k


def _emitting_call(text: str, bracket: int, lo: int) -> bool:
    """The call, macro or constructor whose bracket opens at `bracket` emits a message."""
    parts, bang, k = _call_name(text, bracket, lo)
    if not parts:
        return False
    last = parts[-1]
    if bang:
        return last in _EMIT_MACROS or last.endswith(_EMIT_MACRO_ENDS)
    low = last.lower()
    if low in _EMIT_CALLS or parts[-2:] == ["errors", "New"] or last in _TRANSLATED:
        return True
    if _PRINTF_SUFFIX.sub("", low) in _EMIT_CALLS:  # Go's printf-style kin: `f.failf(`, `p.abortln(`
        return True
    if _EMIT_HELPER.search(last):  # `tokenizer.raise_syntax_error(f"...")`
        return True
    if _SNAKE_ERROR_WORD.search(last) and not _ASSERTION_HELPER.search(last):
        return True
    if last in _GO_FPRINT and _STDERR_FIRST.match(text, bracket + 1):
        return True
    if last == "__init__" and _SUPER_BEFORE.search(text, max(lo, k - MAX_NAME_CHARS), k):
        return _in_exception_class(text, k)
    if _PANIC_WORD.search(last):  # a project's own panicking helper: `p.panicItemf(`, `encPanic(`
        return True
    if any(_ERROR_NAME.search(x) for x in parts) or (len(parts) > 1 and parts[-2] in _LOGGERS):
        return True
    return _RAISE_BEFORE.search(text, max(lo, k - 16), k) is not None


# Python: what an exception's `__str__` returns is what a traceback prints after its name
# (pyparsing's `f"{self.msg}{foundstr}  (at char {self.loc}), (line:{self.lineno}, ...)"`).
_STR_METHOD = re.compile(r"^([ \t]*)def\s+__str__\s*\(", re.M)
CLASS_WINDOW = 60_000  # chars before `def __str__` searched for its class statement


def _exception_str(text: str, start: int) -> bool:
    """The literal at `start` is returned by the `__str__` of an exception class (its name or a
    base named like one): the class is the nearest statement above the method indented less.
    A piece of a file that starts inside the class (a snippet chunk, whose fit a query weighs)
    does not show it: there the index, which read the file whole, has decided already. (Called
    by `_message_variable` for a literal returned by a function named `__str__`.)"""
    heads = list(_STR_METHOD.finditer(text, max(0, start - FUNCTION_WINDOW), start))
    if not heads:
        return False
    indent = len(heads[-1].group(1).expandtabs())
    at = heads[-1].start()
    lo = max(0, at - CLASS_WINDOW)
    while at > lo:
        line_start = text.rfind("\n", lo, at - 1) + 1
        line = text[line_start:at - 1] if at > line_start else ""
        body = line.lstrip(" \t")
        if body and not body.startswith("#") and len(line) - len(body) < indent:
            m = _PY_CLASS_HEAD.match(line)
            return m is not None and any(_ERROR_NAME.search(x or "") for x in m.groups()[1:])
        at = line_start
    return lo == 0 and indent > 0


def _in_exception_class(text: str, at: int) -> bool:
    """The last class statement before `at` (within FUNCTION_WINDOW) is an exception's: its
    name or a base named like one (`class PoolError(HTTPError):`)."""
    heads = list(_PY_CLASS_HEAD.finditer(text, max(0, at - FUNCTION_WINDOW), at))
    return bool(heads) and any(_ERROR_NAME.search(x or "") for x in heads[-1].groups()[1:])


# ---- the pasted side ------------------------------------------------------------------------

def unwrap_message(q: str, keep_name: bool = False) -> str:
    """The message inside what a runtime printed around it (Rust and Go panics, `ExcType: `,
    `Error: `, surrounding quotes, a Python traceback's frames); only one exception name is
    taken off, the rest is message. `keep_name` keeps that name on."""
    s = _RUST_LOG_PREFIX.sub("", _python_exception(q).strip(), count=1)
    if len(s) >= 2 and s[0] == s[-1] and s[0] in _QUOTES:  # the whole message quoted, not its last value
        s = s[1:-1].strip()
    m = _RUST_PANIC.match(s)
    if m:
        s = (m.group("old") if m.group("old") is not None else m.group("new")).strip()
        return _RUST_UNWRAP.sub("", s, count=1) or s
    m = _RUST_UNWRAP.match(s)
    if m and s[m.end():]:
        return _rust_debug_error(s[m.end():])
    m = _GO_PANIC.match(s)
    if m:
        return m.group(1).strip()
    m = _EXC_NAME.match(s)
    name, body = (s[:m.end()], s[m.end():]) if m else ("", s)
    body = _rust_debug_error(_REPR_HEAD.sub("", _first_argument(body), count=1))
    rest = name + body if keep_name else body
    return rest if rest.strip() else s


# Rust's Debug print of an error struct with a message field: a `std::io::Error`'s `Custom {
# kind: InvalidInput, error: "path must be shorter than SUN_LEN" }` (io::Error::new), `Os { code:
# 2, kind: NotFound, message: "No such file or directory" }`, getrandom's `Error { internal_code:
# 2147483661, description: "..." }`: the quoted string is the message, not a value of it
_RUST_DEBUG_ERROR = re.compile(r'^[A-Z]\w*\s*\{[^{}"\n]{0,200}?\b(?:error|message|description|msg):\s*'
                               r'"((?:[^"\\\n]|\\.){1,500})"\s*\}$')


# ... and of one as a tuple struct whose first field is the message: serde_json's and semver's
# `Error("EOF while parsing a list", line: 3, column: 0)`, a `Result`'s `Err("bad digit")`
RUST_DEBUG_TUPLE = re.compile(r'^(?:\w+::)*\w*Err\w*\(\s*"((?:[^"\\\n]|\\.){1,500})"'
                              r'(?:\s*,\s*\w+:\s*[^(),"\n]{1,80})*\s*\)$')


def _rust_debug_error(body: str) -> str:
    text = body.strip()
    m = _RUST_DEBUG_ERROR.match(text) or RUST_DEBUG_TUPLE.match(text)
    return m.group(1).replace('\\"', '"') if m else body


def _first_argument(body: str) -> str:
    """A Python exception raised with several arguments prints them as a tuple (`TypeError:
    ("'x' must be <class 'int'> ...", Attribute(...), <class 'int'>, '3')`): its message is
    the first, a string's repr; the others are values. Any other text as it is."""
    m = _ARGS_HEAD.match(body)
    if m is None:
        return body
    try:
        return pyparse.literal_eval(m.group(1))
    except (ValueError, SyntaxError):
        return body


_PANIC_HEAD = re.compile(r"\bthread '[^']*' panicked at\b")


def is_rust_panic(pasted: str) -> bool:
    """The paste is a Rust panic as the runtime prints it (`thread 'main' panicked at ...`)."""
    return _PANIC_HEAD.search(pasted) is not None


def exception_name(pasted: str) -> str:
    """The class a paste names before its message (`rich.errors.MissingStyle: Failed ...` ->
    `MissingStyle`, a traceback's last line read), "" when none (`toml: line 3 ...` is a
    lower-case prefix, not a class)."""
    m = _EXC_NAME.match(_python_exception(pasted).strip())
    return m.group().rstrip(": \t").rsplit(".", 1)[-1] if m else ""


def named_segments(q: str) -> list[tuple[str, ...]]:
    """When the `Name: ` unwrap_message takes off is no exception's name (no dotted path, no
    `...Error`-like ending), it may be the message's own first word: Go's `FuncName: message`
    convention (`fmt.Errorf("RegisterFlagCompletionFunc: flag '%s' does not exist", ...)`). The
    segments of the paste with that name kept on that the plain ones lack; none otherwise."""
    m = _EXC_NAME.match(_python_exception(q).strip())
    if m is None or "." in m.group() or _EXCEPTION_LIKE.search(m.group().rstrip(": \t")):
        return []
    plain = set(message_segments(q))
    return [seg for seg in message_segments(q, keep_name=True) if seg not in plain]


def _python_exception(q: str) -> str:
    """What a pasted Python traceback ends with, the exception it raised (`ExcType: message`):
    the lines after its last frame (`  File "...", line N, in f` and the frame's indented
    source and caret lines); a chained traceback's last one is the exception that escaped.
    Anything else as it is."""
    if _PY_TRACEBACK not in q:
        return q
    lines = q.strip().split("\n")
    last = max((i for i, line in enumerate(lines) if PY_FRAME.match(line)), default=-1)
    if last < 0:
        return q
    rest = lines[last + 1:]
    while rest and rest[0][:1].isspace():  # the frame's source line, 3.11's `~~~^^^` markers
        rest = rest[1:]
    return "\n".join(rest) if "".join(rest).strip() else q


def is_value(word: str) -> bool:
    """A word a run filled in rather than one the code wrote: a number, a path, a URL, an
    address, a quoted value, an object's `<...>` repr (`pasted_words` keeps one whole)."""
    w = word.strip(_TRIM)
    if not w:
        return False
    bare = word.rstrip(_REPR_TAIL).lstrip("([{" + _QUOTES)
    if len(bare) > 2 and bare[0] == "<" and bare[-1] == ">":
        return True
    if w[0].isdigit() or any(c in w for c in "/\\@") or "://" in w or _OS_ERROR_TAIL.search(word):
        return True
    core = word.strip(".,;:!?()[]{}<>")
    return len(core) >= 2 and core[0] in _QUOTES and core[-1] in _QUOTES


def pasted_words(q: str, keep_name: bool = False) -> list[str]:
    """The words of a pasted message (wrapper off), split at whitespace, except that an
    object's repr stays one word: Python prints what has no literal form between angle
    brackets (`<class 'str'>`, `<Report object at 0x7f3a...>`, `<Response [404]>`), a value
    whose words are not the message's; so does a quoted value holding spaces."""
    return [w for line in unwrap_message(q, keep_name).split("\n") for w in _line_words(line)]


def _line_words(line: str) -> list[str]:
    """One line's words; a `name=value` word whose value is one (`timeout=5.0)`, a repr's
    `Pool(host='x',`) is two: the name is the message's (`(read timeout={t})`), the value the run's."""
    out = []
    for word in _PASTED_WORD.findall(line):
        cut = word.find("=") + 1
        if 0 < cut < len(word) and not is_value(word) and is_value(word[cut:]):
            out += [word[:cut], word[cut:]]
        else:
            out.append(word)
    return out


# A bracketed tag before a message (`[MobX]`, `[mobx.array]`): a logger's or a throwing helper's
# prefix, usually another literal than the message it heads.
_TAG = re.compile(r"\[[\w.:-]+\]")


def message_segments(q: str, keep_name: bool = False) -> list[tuple[str, ...]]:
    """The pasted message's candidate constant segments: runs of words between filled-in
    values, as lower-cased identifier terms, longest first (ties in text order). A run ends at
    a line's end too: the lines of a paste are different literals' (packaging prints the bad
    requirement and a caret under its message), never one phrase."""
    runs: list[list[str]] = []
    for line in unwrap_message(q, keep_name).split("\n"):
        runs.append([])
        for word in _line_words(line):
            if is_value(word):
                runs.append([])
            elif _TAG.fullmatch(word):  # `[MobX] `, added by a wrapper (`[MobX] ${e}`): its own run
                runs += [[w.lower() for w in _WORD.findall(word)], []]
            else:
                runs[-1].extend(w.lower() for w in _WORD.findall(word))
    segs = [tuple(r) for r in runs if r]
    return sorted(segs, key=lambda s: -len(s))


# ---- how well a site's message explains the pasted one ---------------------------------------

# A site whose message, holes filled, is the whole pasted text printed it; one whose message
# only accounts for part of the paste (the rest a wrapper's or a caller's) may have. Among sites
# that emit the same words, this decides which one: the BM25 of their phrases cannot.
FULL_FIT = 2.0  # the whole paste is this message with its holes filled
MIN_FULL_COVERAGE = 0.15  # ... unless its constant text is a sliver of the paste (`could not {}: {}`)
MIN_PART_COVERAGE = 0.5  # a message found inside the paste explains at least half of it
EXACT_CASE_FIT = 0.25  # the runtime prints the literal as written: the paste keeps its case
TAIL_MISSING_FIT = -0.1  # the literal ends in whitespace (`\n`) the paste does not show
MAX_FIT_CHARS = 1000  # the paste's head decides (the scan below is linear in it)
MIN_CUT_CHARS = 20  # a paste cut short ends in this much of a message's next constant, or more
# What a typed printf verb can print: a value that does not fit the verb was not printed by it.
_VERB_VALUE = {
    **dict.fromkeys("diu", re.compile(r"[-+]?\d+")), **dict.fromkeys("boxX", re.compile(r"[-+]?(?:0[xob])?[0-9a-f]+")),
    **dict.fromkeys("efgEG", re.compile(r"[-+]?(?:\d[\d.]*(?:e[-+]?\d+)?|inf|nan)")),
    "t": re.compile(r"true|false"), "q": re.compile(r"([\"'`]).*\1", re.S), "c": re.compile(r".", re.S),
}
# Go's fmt prints a slice or an array with the verb applied to each element, space-separated in
# brackets (`%q` of []string: `["a" "b"]`, `%d` of []int: `[1 2 3]`); a quoted element may hold spaces
_LIST_ITEM = re.compile(r"\"(?:[^\"\\]|\\.)*\"|`[^`]*`|'(?:[^'\\]|\\.)*'|[^\s\[\]]+")


def message_fit(message: str, pasted: str) -> float:
    """How well the literal text `message` (holes as written) explains the pasted `pasted`
    (wrapper already off): FULL_FIT plus its constant share of the paste when it is the whole
    paste with its holes filled by values that fit them; its constant share when its constant
    parts occur in order inside the paste and account for at least MIN_PART_COVERAGE of it
    (what its holes hold left out); 0 otherwise. Plus EXACT_CASE_FIT when the constant parts
    match as written, TAIL_MISSING_FIT when the literal's trailing whitespace is not there.
    Case and whitespace runs are not significant to the match; holes match anything (typed
    verbs are checked afterwards). A message of several lines that does not explain the paste
    is read by its leading lines, longest first: the paste may show only the first of them
    (the line an error prints beside its name, a log's first line). Last, a paste cut short
    inside the message (`_align_cut`) is explained by its share."""
    fit = _whole_fit(message, pasted)
    if fit > 0:
        return fit
    for brk in reversed(list(_LINE_BREAK.finditer(message))):
        head = _whole_fit(message[:brk.start()], pasted)
        if head > 0:  # a site printing the paste as its whole message goes first
            return head + (TAIL_MISSING_FIT if head >= FULL_FIT else 0.0)
    return _whole_fit(message, pasted, cut=True)


# A line break inside a literal: an escape (not an escaped backslash before an `n`) or the
# newline itself (a template literal or a triple-quoted string spanning lines; not a
# continuation, which prints nothing)
_LINE_BREAK = re.compile(r"(?<!\\)\\n|(?<!\\)\n")


def _whole_fit(message: str, pasted: str, cut: bool = False) -> float:
    text = " ".join(pasted[:MAX_FIT_CHARS].split())
    parts, tail = _template(message)
    consts = [p for kind, p in parts if kind == "c"]
    if not text or not consts:
        return 0.0
    low = text.lower()
    if len(low) != len(text):  # a case mapping that changes lengths: compare as lower case only
        text = low
    found = _align_cut(parts, low) if cut else _align(parts, low)
    if found is None:
        return 0.0
    spans, full = found
    const = sum(e - s for s, e in spans)
    share = const / len(text)
    if full:
        full = share >= MIN_FULL_COVERAGE and _values_fit(parts, spans, low)
    if not full:
        # the paste outside what the message and its holes can hold is someone else's text
        start = 0 if parts[0][0] == "h" else spans[0][0]
        end = len(low) if parts[-1][0] == "h" else spans[-1][1]
        if const / (const + len(low) - (end - start)) < MIN_PART_COVERAGE:
            return 0.0
    exact = all(text[s:e] == c for (s, e), c in zip(spans, consts))
    return ((FULL_FIT if full else 0.0) + share + (EXACT_CASE_FIT if exact else 0.0)
            + (TAIL_MISSING_FIT if tail else 0.0))


# A backslash ending a line inside a string continues it on the next (Rust, Python, JavaScript):
# the runtime prints neither (walkdir's `"File system loop found: \<newline>  {} points to ..."`)
_CONTINUATION = re.compile(r"\\\r?\n")


def _template(message: str) -> tuple[list[tuple[str, str]], bool]:
    """[("c", constant text) | ("h", hole)] of a literal, whitespace runs (escapes included)
    as one space, line continuations dropped, constants in their case; and whether it ended in
    whitespace (taken off)."""
    message = _CONTINUATION.sub("", message)
    out: list[tuple[str, str]] = []
    pos = 0
    buf = []
    for m in _HOLE.finditer(message):
        buf.append(message[pos:m.start()])
        hole, pos = m.group(), m.end()
        if hole.startswith("\\"):
            buf.append(" " if hole[1:2] in "ntr" else hole[1:] if hole[1:2] in "\"'`\\" else "")
            continue
        _push_constant(out, "".join(buf))
        buf = []
        out.append(("h", hole))
    last = "".join(buf) + message[pos:]
    _push_constant(out, last)
    tail = last != last.rstrip()
    if tail and out and out[-1][0] == "c":
        out[-1] = ("c", out[-1][1].rstrip())
    return out, tail


def _push_constant(out: list[tuple[str, str]], text: str) -> None:
    collapsed = " ".join(text.split())
    if text[:1].isspace() and collapsed:
        collapsed = " " + collapsed
    if text[-1:].isspace() and collapsed:
        collapsed += " "
    if collapsed.strip():
        out.append(("c", collapsed))


def _align(parts: list[tuple[str, str]], low: str) -> tuple[list[tuple[int, int]], bool] | None:
    """The spans where the constants occur in `low` in order (leftmost each, the last one at
    the end when a full match is possible) and whether the template matches all of `low`;
    None when some constant does not occur in order. Linear: no backtracking over holes."""
    spans: list[tuple[int, int]] = []
    consts = [p.lower() for kind, p in parts if kind == "c"]
    pos = 0
    for c in consts:
        at = low.find(c, pos)
        if at < 0:
            return None
        spans.append((at, at + len(c)))
        pos = at + len(c)
    starts_with_hole, ends_with_hole = parts[0][0] == "h", parts[-1][0] == "h"
    full = (starts_with_hole or spans[0][0] == 0) and (ends_with_hole or spans[-1][1] == len(low))
    if not full and not ends_with_hole and low.endswith(consts[-1]):
        last = len(low) - len(consts[-1])
        if last >= (spans[-2][1] if len(spans) > 1 else 0) and (starts_with_hole or spans[0][0] == 0):
            spans[-1], full = (last, len(low)), True
    return spans, full


def _align_cut(parts: list[tuple[str, str]], low: str) -> tuple[list[tuple[int, int]], bool] | None:
    """`_align` of a paste cut short (a long warning pasted up to a sentence, a log line a
    terminal cut): the constants found in order up to one whose first MIN_CUT_CHARS characters
    or more end the paste, that head its last span; never a whole match. None otherwise (a
    paste holding every constant is `_align`'s)."""
    spans: list[tuple[int, int]] = []
    pos = 0
    for c in (p.lower() for kind, p in parts if kind == "c"):
        at = low.find(c, pos)
        if at >= 0:
            spans.append((at, at + len(c)))
            pos = at + len(c)
            continue
        end = low[len(low) - MIN_CUT_CHARS:]
        j = c.find(end) if len(low) - MIN_CUT_CHARS >= pos else -1
        while j >= 0:  # the leftmost start: the longest head of `c` that ends the paste
            start = len(low) - (j + MIN_CUT_CHARS)
            if start >= pos and c.startswith(low[start:]):
                return spans + [(start, len(low))], False
            j = c.find(end, j + 1)
        return None
    return None


def _values_fit(parts: list[tuple[str, str]], spans: list[tuple[int, int]], low: str) -> bool:
    """A typed verb alone between two constants holds a value of its type (`%d` digits, `%q`
    quoted); two holes side by side share their text, which then says nothing."""
    gaps: list[list[str]] = [[]]
    for kind, p in parts:
        if kind == "c":
            gaps.append([])
        else:
            gaps[-1].append(p)
    bounds = [0] + [x for s, e in spans for x in (s, e)] + [len(low)]
    for k, holes in enumerate(gaps):
        verb = _VERB_VALUE.get(holes[0][-1]) if len(holes) == 1 and holes[0].startswith("%") else None
        if verb is not None and not _verb_value(verb, low[bounds[2 * k]:bounds[2 * k + 1]].strip()):
            return False
    return True


def _verb_value(verb: re.Pattern, value: str) -> bool:
    """`value` is what the typed verb prints: one value of its type, or a list of them (`_LIST_ITEM`)."""
    if verb.fullmatch(value):
        return True
    if not (value.startswith("[") and value.endswith("]")):
        return False
    inner = value[1:-1]
    items = _LIST_ITEM.findall(inner)
    return not _LIST_ITEM.sub("", inner).strip() and all(verb.fullmatch(i) for i in items)

"""Rust messages found by the eighth user probe (toml's `Display` of its parse errors):

- an error enum's `fn fmt` with many arms writes its last arms and its position suffix thousands
  of characters below its `fn` line: those literals are messages too (they were not past a
  fixed window);
- the message is written in two pieces, the arm's (`duplicate section `{}``) and the suffix every
  arm shares (` at line {} column {}`): the paste is the two together, so the `fmt` that writes
  both emits it whole and is the one answer, not one among functions sharing its words, also
  when the index cut the `fmt` into two chunks between the pieces."""
from __future__ import annotations

from cruxe.literals import FULL_FIT, best_fit, field_texts
from cruxe.query import search_code
from cruxe.store.writer import CHUNK_MAX_LINES

from support.repos import indexed_files

# (variant pattern, the message it writes, the values its holes print) of a config-file parser's errors
ARMS = [
    ("UnexpectedEof", "unexpected end of input", ""),
    ("InvalidCharInString(c)", "invalid character in string: `{}`", "c.escape_default()"),
    ("InvalidEscape(c)", "invalid escape character in string: `{}`", "c.escape_default()"),
    ("DuplicateSection(ref name)", "duplicate section `{}`", "name"),
    ("InvalidHexEscape(c)", "invalid hex escape character in string: `{}`", "c.escape_default()"),
    ("InvalidEscapeValue(v)", "invalid escape value: `{}`", "v"),
    ("NewlineInString", "newline in string found", ""),
    ("Unexpected(ch)", "unexpected character found: `{}`", "ch.escape_default()"),
    ("UnterminatedString", "unterminated string", ""),
    ("NewlineInSectionKey", "found newline in section key", ""),
    ("Wanted { expected, found }", "expected {}, found {}", "expected, found"),
    ("NumberInvalid", "invalid number literal", ""),
    ("DateInvalid", "invalid date literal", ""),
    ("RedefineAsList", "section redefined as a list", ""),
    ("EmptySectionKey", "empty section key found", ""),
    ("MultilineStringKey", "multiline strings are not allowed for keys", ""),
    ("ExpectedTuple(len)", "expected section with length {}", "len"),
    ("ExpectedTupleIndex { expected, ref found }", "expected section key `{}`, but was `{}`", "expected, found"),
    ("ExpectedEmptySection", "expected an empty section", ""),
    ("DottedKeyInvalidType", "dotted key attempted to extend a value that is no section", ""),
    ("UnexpectedKeys { ref keys, available }", "unexpected keys in section: `{:?}`, available keys: `{:?}`",
     "keys, available"),
    ("UnquotedString", "invalid value, did you mean to use a quoted string?", ""),
    ("Io(ref err)", "i/o error while reading the document: {}", "err"),
    ("KeyTooLong(len)", "a key of {} bytes is longer than the limit", "len"),
    ("NestingTooDeep(depth)", "sections nested {} deep are more than the limit", "depth"),
    ("UnknownEscape(c)", "unknown escape sequence `\\\\{}`", "c"),
    ("Utf8", "the document is not valid UTF-8", ""),
    ("Custom(ref message)", "{}", "message"),
]


def _arm(pattern: str, message: str, values: str) -> str:
    if not values:
        return f'            ErrorKind::{pattern} => {{\n                f.write_str("{message}")?;\n            }}\n'
    return (f"            ErrorKind::{pattern} => write!(\n                f,\n"
            f'                "{message}",\n                {values}\n            )?,\n')


def _error_rs() -> str:
    return ("use std::fmt;\n\n"
            "pub struct Error {\n    kind: ErrorKind,\n    key: Vec<String>,\n    line: Option<usize>,\n    col: usize,\n}\n\n"
            "impl fmt::Display for Error {\n"
            "    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n"
            "        match self.kind {\n" + "".join(_arm(*a) for a in ARMS) + "        }\n\n"
            "        if !self.key.is_empty() {\n"
            '            write!(f, " for key `")?;\n'
            "            for (i, k) in self.key.iter().enumerate() {\n"
            "                if i > 0 {\n"
            '                    write!(f, ".")?;\n'
            "                }\n"
            '                write!(f, "{}", k)?;\n'
            "            }\n"
            '            write!(f, "`")?;\n'
            "        }\n\n"
            "        if let Some(line) = self.line {\n"
            '            write!(f, " at line {} column {}", line + 1, self.col + 1)?;\n'
            "        }\n\n        Ok(())\n    }\n}\n")


SPAN_RS = """/// Where a token starts in the document.
pub struct Position {
    line: usize,
    column: usize,
}

impl Position {
    /// The line of the section header, counted from one.
    pub fn line(&self) -> usize {
        self.line + 1
    }

    /// The column of the duplicate key, counted from one.
    pub fn column(&self) -> usize {
        self.column + 1
    }
}

/// Reads a section header and reports a duplicate section by its name.
pub fn section_header(text: &str, seen: &mut Vec<String>) -> Option<String> {
    let name = text.trim_matches(|c| c == '[' || c == ']').to_string();
    if seen.contains(&name) {
        return None;
    }
    seen.push(name.clone());
    Some(name)
}
"""


def test_a_literal_far_below_its_fn_fmt_is_a_message():
    text = _error_rs()
    assert text.index('" at line {} column {}"') - text.index("fn fmt") > 2000
    lines = text.splitlines()
    impl = next(i for i, line in enumerate(lines) if line.startswith("impl fmt::Display"))
    suffix = next(i for i, line in enumerate(lines) if '" at line {} column {}"' in line)
    assert suffix - impl >= CHUNK_MAX_LINES  # the index cuts the `fmt` between its two pieces
    field = field_texts(text, "rust", [(1, text.count("\n") + 1)])[0]
    assert "duplicate section" in field and "at line" in field and "column" in field


def test_a_message_written_in_two_pieces_fits_its_paste_whole():
    text = _error_rs()
    fit, at = best_fit(text, "rust", "duplicate section `server` at line 12 column 1")
    assert fit >= FULL_FIT and text.startswith('"duplicate section `{}`"', at)
    # a piece that starts the paste but leaves words no later piece writes explains a part only
    fit, _ = best_fit(text, "rust", "duplicate section `server` in settings")
    assert 0 < fit < FULL_FIT


def test_the_display_writing_both_pieces_is_the_one_answer(tmp_path):
    text = _error_rs()
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/error.rs": text, "src/span.rs": SPAN_RS})
    want = next(i + 1 for i, line in enumerate(text.splitlines()) if '"duplicate section `{}`"' in line)
    hits, _, intent = search_code(gen, repo, ref, "Error: duplicate section `server` at line 12 column 1", limit=5)
    assert intent["intent"] == "error"
    assert [(h.path, h.name, h.emits_at) for h in hits] == [("src/error.rs", "fmt", want)], hits

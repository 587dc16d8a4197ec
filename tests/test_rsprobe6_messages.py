"""Rust messages found by the sixth user probe (semver, serde_json, walkdir):

- a message whose last hole holds a value's `Display` text (semver's `"unexpected character {}
  while parsing {}"` with a `Position` that prints `minor version number`) is the site, not
  the `Display` of the value: the words it fills in are fewer than the message's own;
- serde_json's and semver's errors print in their Debug form as a tuple struct whose first
  field is the message (`Error("EOF while parsing a list", line: 3, column: 0)`, what
  `unwrap()` shows): the quoted string is the message, and the paste reads as an error;
- a message written over two lines with a backslash continuation (walkdir's `"File system loop
  found: \\` then `{} points to an ancestor {}"`) prints without the backslash and the newline;
- a wrapper whose chunk holds the inner message too (serde_json's `{} at line {} column {}` below
  the `Display` of its error codes) answers with the inner message's line; a Rust paste's
  `Error: ` names no type the wrapper constructs (`main` prints it for any error)."""
from __future__ import annotations

import pytest

from cruxe.intent import classify
from cruxe.literals import FULL_FIT, best_fit, inner_paste, message_segments, unwrap_message
from cruxe.query import search_code

from support.repos import indexed_files

SEMVER_ERROR_RS = '''use core::fmt::{self, Debug, Display};

pub(crate) enum ErrorKind {
    UnexpectedEnd(Position),
    UnexpectedChar(Position, char),
    LeadingZero(Position),
}

#[derive(Copy, Clone, Eq, PartialEq)]
pub(crate) enum Position {
    Major,
    Minor,
    Patch,
}

impl Display for Error {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        match &self.kind {
            ErrorKind::UnexpectedEnd(pos) => {
                write!(formatter, "unexpected end of input while parsing {}", pos)
            }
            ErrorKind::UnexpectedChar(pos, ch) => {
                write!(
                    formatter,
                    "unexpected character {} while parsing {}",
                    QuotedChar(*ch),
                    pos,
                )
            }
            ErrorKind::LeadingZero(pos) => {
                write!(formatter, "invalid leading zero in {}", pos)
            }
        }
    }
}

impl Display for Position {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(match self {
            Position::Major => "major version number",
            Position::Minor => "minor version number",
            Position::Patch => "patch version number",
        })
    }
}
'''


def _line(marker: str) -> int:
    return next(i + 1 for i, text in enumerate(SEMVER_ERROR_RS.splitlines()) if marker in text)


def test_a_hole_holding_a_values_display_text_is_no_inner_message():
    pasted = "unexpected character 'x' while parsing minor version number"
    assert inner_paste(SEMVER_ERROR_RS, "rust", pasted) == ""
    # a wrapper whose own words are fewer than what its last hole holds still has one
    go = 'func (e ParseError) Error() string {\n\treturn fmt.Sprintf("toml: line %d: %s", e.line, e.msg)\n}\n'
    assert inner_paste(go, "go", "toml: line 3: Key 'a.b' has already been defined.") == \
        "Key 'a.b' has already been defined."


def test_the_message_around_a_values_display_text_is_the_first_answer(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/error.rs": SEMVER_ERROR_RS})
    for paste, marker in (("Error: unexpected character 'x' while parsing minor version number",
                           '"unexpected character {} while parsing {}"'),
                          ("Error: invalid leading zero in patch version number", '"invalid leading zero in {}"')):
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        want = _line(marker)
        assert hits and hits[0].path == "src/error.rs" and hits[0].line_start <= want <= hits[0].line_end, hits[:3]


@pytest.mark.parametrize("pasted, message", [
    ('Error("EOF while parsing a list", line: 3, column: 0)', "EOF while parsing a list"),
    ('called `Result::unwrap()` on an `Err` value: Error("invalid type: string \\"42\\", expected u32", '
     'line: 1, column: 13)', 'invalid type: string "42", expected u32'),
    ('Error("invalid leading zero in patch version number")', "invalid leading zero in patch version number"),
])
def test_a_debug_tuple_struct_with_a_message_first_unwraps_to_it(pasted, message):
    assert unwrap_message(pasted) == message
    assert message_segments(pasted) == message_segments(message)
    assert classify(pasted)[0] == "error"


def test_the_debug_print_of_a_value_that_is_no_error_stays_as_pasted():
    assert unwrap_message('Point("north", x: 3)') == 'Point("north", x: 3)'
    assert classify('Point("north", x: 3)')[0] != "error"


WALKDIR_ERROR_RS = r'''impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner {
            ErrorInner::Io { path: None, ref err } => err.fmt(f),
            ErrorInner::Io { path: Some(ref path), ref err } => write!(
                f,
                "IO error for operation on {}: {}",
                path.display(),
                err
            ),
            ErrorInner::Loop { ref ancestor, ref child } => write!(
                f,
                "File system loop found: \
                 {} points to an ancestor {}",
                child.display(),
                ancestor.display()
            ),
        }
    }
}
'''


def test_a_message_continued_on_the_next_line_fits_its_paste_whole(tmp_path):
    pasted = "File system loop found: /home/ana/project/vendor/self points to an ancestor /home/ana/project"
    fit, at = best_fit(WALKDIR_ERROR_RS, "rust", pasted)
    assert fit >= FULL_FIT and WALKDIR_ERROR_RS[at:].startswith('"File system loop found')
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/error.rs": WALKDIR_ERROR_RS})
    hits, _, intent = search_code(gen, repo, ref, "Error: " + pasted, limit=5)
    want = next(i + 1 for i, text in enumerate(WALKDIR_ERROR_RS.splitlines()) if "File system loop found" in text)
    assert intent["intent"] == "error" and hits and hits[0].line_start <= want <= hits[0].line_end, hits[:3]


JSON_ERROR_RS = '''use std::fmt::{self, Debug, Display};

pub struct Error {
    err: Box<ErrorImpl>,
}

struct ErrorImpl {
    code: ErrorCode,
    line: usize,
    column: usize,
}

pub(crate) enum ErrorCode {
    Message(Box<str>),
    EofWhileParsingList,
    EofWhileParsingObject,
    ExpectedColon,
    TrailingCharacters,
}

impl Error {
    pub(crate) fn syntax(code: ErrorCode, line: usize, column: usize) -> Self {
        Error { err: Box::new(ErrorImpl { code, line, column }) }
    }
}

impl Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ErrorCode::Message(msg) => f.write_str(msg),
            ErrorCode::EofWhileParsingList => f.write_str("EOF while parsing a list"),
            ErrorCode::EofWhileParsingObject => f.write_str("EOF while parsing an object"),
            ErrorCode::ExpectedColon => f.write_str("expected `:`"),
            ErrorCode::TrailingCharacters => f.write_str("trailing characters"),
        }
    }
}

impl Display for ErrorImpl {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if self.line == 0 {
            Display::fmt(&self.code, f)
        } else {
            write!(f, "{} at line {} column {}", self.code, self.line, self.column)
        }
    }
}

impl Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Error({:?}, line: {}, column: {})", self.err.code.to_string(), self.err.line, self.err.column)
    }
}
'''


def test_the_inner_message_in_the_wrappers_own_chunk_is_the_answer(tmp_path):
    # `Error: ` is what `main` returning the error prints, not a type the wrapper constructs
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/error.rs": JSON_ERROR_RS})
    want = next(i + 1 for i, text in enumerate(JSON_ERROR_RS.splitlines()) if '"EOF while parsing a list"' in text)
    for paste in ("Error: EOF while parsing a list at line 3 column 0", "EOF while parsing a list at line 3 column 0",
                  'Error("EOF while parsing a list", line: 3, column: 0)'):
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        assert hits and hits[0].line_start <= want <= hits[0].line_end, (paste, hits[:3])

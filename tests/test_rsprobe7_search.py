"""Rust test code inside source files, found by the seventh user probe (gimli):

A Rust crate keeps its unit tests in the file they test, under `#[cfg(test)] mod tests { .. }`.
Those tests name the error values they expect (`Err(Error::UnexpectedEof(ReaderOffsetId(4)))`)
word for word as `unwrap()` prints them, so a pasted `Error: UnexpectedEof(ReaderOffsetId(12))`
found the test module and the test functions first and the code that returns the error after
them. For a pasted message `search_code` now counts an item under `#[cfg(test)]` in a source
file as test code, as `find_references` does (`sourcetests.InSourceTests`): the test-file
penalty, unless the query asks for tests."""
from __future__ import annotations

from cruxe.query import search_code

from support.repos import indexed_files

READER_RS = '''use crate::{Error, ReaderOffsetId, Result};

/// A slice of bytes read from its front, tracking where it started.
pub struct Bytes<'input> {
    slice: &'input [u8],
    start: usize,
}

impl<'input> Bytes<'input> {
    fn offset_id(&self) -> ReaderOffsetId {
        ReaderOffsetId(self.start)
    }

    /// Take `len` bytes from the front.
    pub fn split(&mut self, len: usize) -> Result<&'input [u8]> {
        if self.slice.len() < len {
            Err(Error::UnexpectedEof(self.offset_id()))
        } else {
            let (head, rest) = self.slice.split_at(len);
            self.slice = rest;
            self.start += len;
            Ok(head)
        }
    }

    /// Read one byte.
    pub fn read_u8(&mut self) -> Result<u8> {
        let b = self.split(1)?;
        Ok(b[0])
    }
}

#[cfg(all(test, feature = "read"))]
// Tests name the error values they expect.
mod tests {
    use super::*;

    #[test]
    fn test_split_past_the_end() {
        let mut b = Bytes { slice: &[1, 2, 3], start: 0 };
        assert_eq!(b.split(4), Err(Error::UnexpectedEof(ReaderOffsetId(0))));
        assert_eq!(b.split(5), Err(Error::UnexpectedEof(ReaderOffsetId(0))));
    }

    #[test]
    fn test_read_u8_at_the_end() {
        let mut b = Bytes { slice: &[], start: 12 };
        assert_eq!(b.read_u8(), Err(Error::UnexpectedEof(ReaderOffsetId(12))));
        let mut c = Bytes { slice: &[], start: 4 };
        assert_eq!(c.read_u8(), Err(Error::UnexpectedEof(ReaderOffsetId(4))));
    }
}
'''

LIB_RS = '''pub mod reader;

/// Where an error happened in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderOffsetId(pub usize);

/// What went wrong while reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// Hit the end of input before it was expected.
    UnexpectedEof(ReaderOffsetId),
    /// Found an unknown form.
    UnknownForm,
}

pub type Result<T> = core::result::Result<T, Error>;
'''


def _repo(tmp_path):
    return indexed_files(tmp_path / "repo", tmp_path / "home", {"src/lib.rs": LIB_RS, "src/reader.rs": READER_RS})


def test_a_pasted_error_value_finds_the_code_that_returns_it_before_the_tests_naming_it(tmp_path):
    gen, repo, ref = _repo(tmp_path)
    want = READER_RS.splitlines().index("    pub fn split(&mut self, len: usize) -> Result<&'input [u8]> {") + 1
    for paste in ("Error: UnexpectedEof(ReaderOffsetId(12))",
                  "called `Result::unwrap()` on an `Err` value: UnexpectedEof(ReaderOffsetId(4))"):
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        tests = [h for h in hits if h.path == "src/reader.rs" and h.line_start > want + 15]
        source = [h for h in hits if h not in tests]
        assert source, (paste, [(h.path, h.line_start, h.name) for h in hits])
        assert hits.index(source[0]) < min((hits.index(t) for t in tests), default=len(hits)), \
            (paste, [(h.path, h.line_start, h.name) for h in hits])


def test_a_paste_asking_for_the_tests_still_finds_them_first(tmp_path):
    gen, repo, ref = _repo(tmp_path)
    hits, _, intent = search_code(gen, repo, ref, "test fails with Error: UnexpectedEof(ReaderOffsetId(12))", limit=5)
    assert intent["intent"] == "error"
    assert hits and hits[0].path == "src/reader.rs" and hits[0].name.startswith(("test_", "tests")), \
        [(h.path, h.line_start, h.name) for h in hits]

"""Rust error messages written by a `Display` impl (issue 17, user probe on crossbeam-channel):
`"sending on a disconnected channel".fmt(f)`, `f.write_str("...")` and `write!(f, "...")` inside
`fn fmt` are what `{}` prints, and thiserror's `#[error("...")]` is the same message written as an
attribute. A pasted one finds its impl, above the tests that assert the same text."""
from __future__ import annotations

from cruxe.literals import emitted_segments
from cruxe.query import search_code

from support.repos import indexed_files

DISPLAY = '''\
impl<T> fmt::Display for SendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        "sending on a closed pipe".fmt(f)
    }
}

impl fmt::Display for Busy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Busy::Full => f.write_str("every slot is taken"),
            Busy::Slow(n) => write!(f, "waited {} ms for a slot", n),
        }
    }
}
'''


def test_a_display_impl_writes_its_message():
    assert emitted_segments(DISPLAY, "rust") == [
        ["sending", "on", "a", "closed", "pipe", "|"], ["every", "slot", "is", "taken", "|"],
        ["waited", "|", "ms", "for", "a", "slot", "|"]]


def test_output_outside_a_fmt_method_is_not_a_message():
    src = 'fn render(out: &mut String) {\n    write!(out, "hello there world {}", 1).unwrap();\n}\n'
    assert emitted_segments(src, "rust") == []
    # a literal compared in a `fmt` method is no text it writes
    src = 'fn fmt(&self, f: &mut Formatter) -> Result {\n    if self.0 == "two words" { f.pad("x") } else { Ok(()) }\n}\n'
    assert emitted_segments(src, "rust") == []


def test_a_thiserror_attribute_is_a_message():
    src = ('#[derive(Debug, thiserror::Error)]\npub enum FetchError {\n'
           '    #[error("no route to host {host} after {0} tries")]\n    NoRoute(u32, String),\n'
           '    #[doc = "not a message at all"]\n    Other,\n}\n')
    assert emitted_segments(src, "rust") == [["no", "route", "to", "host", "|", "after", "|", "tries", "|"]]


def test_a_pasted_display_message_finds_the_impl_first(tmp_path):
    test = ''.join(f'''
#[test]
fn send_after_close_{i}() {{
    let (s, r) = pipe();
    drop(r);
    assert_eq!(s.send({i}).unwrap_err().to_string(), "sending on a closed pipe");
}}
''' for i in range(6))
    files = {"src/err.rs": DISPLAY, "src/pipe.rs": "pub fn send_on_a_closed_pipe() {}\n", "tests/pipe.rs": test}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    hits, _, intent = search_code(gen, repo, ref, "error: job 17 failed: sending on a closed pipe", limit=5)
    assert intent["intent"] == "error"
    assert (hits[0].path, hits[0].line_start <= 3 <= hits[0].line_end) == ("src/err.rs", True), hits[:3]

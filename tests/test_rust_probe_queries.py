"""Queries on Rust code found wanting by using Cruxe on unseen crates (issue 17's user probe:
crossbeam-channel, parking_lot, bytes, hashbrown).

Error messages written by a `Display` impl: `"sending on a disconnected channel".fmt(f)`,
`f.write_str("...")` and `write!(f, "...")` inside `fn fmt` are what `{}` prints, and thiserror's
`#[error("...")]` is the same message written as an attribute; a pasted one finds its impl, above
the tests that assert the same text. A pasted `.unwrap()` panic is about the error, not std's
words around it. A name written as a macro call (`select!`) asks for the macro."""
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
    assert emitted_segments('#[derive(Error)]\nenum E {\n    #[error(\n        "written on its own line"\n    )]\n    A,\n}\n',
                            "rust") == [["written", "on", "its", "own", "line", "|"]]
    # a doc comment's example of one is not the program's message
    assert emitted_segments('/// #[error("an example in the docs")]\nenum E {}\n', "rust") == []


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


def test_the_std_unwrap_wrapper_is_taken_off():
    """`.unwrap()` on an `Err` panics with std's own words around the error's Debug text; the
    error is what the paste is about."""
    from cruxe.literals import unwrap_message
    paste = "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: SendError(..)', src/main.rs:5:18"
    assert unwrap_message(paste) == "SendError(..)"
    new_format = ("thread 'main' panicked at src/main.rs:5:18:\n"
                  "called `Result::unwrap()` on an `Err` value: Os { code: 2, kind: NotFound }")
    assert unwrap_message(new_format) == "Os { code: 2, kind: NotFound }"
    assert unwrap_message("called `Result::unwrap_err()` on an `Ok` value: 3") == "3"
    # std's whole message, with nothing of the program's: it stays as it is
    none = "called `Option::unwrap()` on a `None` value"
    assert unwrap_message(f"thread 'main' panicked at '{none}', src/lib.rs:1:2") == none


def test_a_pasted_unwrap_of_an_error_finds_the_error_type(tmp_path):
    files = {
        "src/err.rs": "/// The message could not be sent: the channel is disconnected.\n"
                      "pub struct SendError<T>(pub T);\n\n"
                      "impl<T> From<SendError<T>> for TrySendError<T> {\n"
                      "    fn from(err: SendError<T>) -> TrySendError<T> {\n"
                      "        match err {\n            SendError(t) => TrySendError::Disconnected(t),\n        }\n    }\n}\n",
        "src/result.rs": "/// Returns the contained value; called on an `Err` value it panics.\n"
                         "pub fn unwrap<T, E>(r: Result<T, E>) -> T {\n    match r { Ok(v) => v, Err(_) => on_err() }\n}\n"
                         "/// Called on an `Err` value: the value is lost.\npub fn unwrap_err_value() {}\n",
    }
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    paste = "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: SendError(..)', src/main.rs:5:18"
    hits, _, _ = search_code(gen, repo, ref, paste, limit=5)
    # std's words (`called`, `unwrap`, `Err`, `value`) decide nothing: the error's code comes first
    assert [h.path for h in hits[:2]] == ["src/err.rs", "src/err.rs"], hits[:3]
    assert any(h.line_start <= 2 <= h.line_end for h in hits[:2]), hits[:2]  # `pub struct SendError`


def test_a_name_written_as_a_macro_call_finds_the_macro_first(tmp_path):
    # crossbeam-channel: `select!` (the macro), `pub fn select` and `Select::select` share the name
    files = {
        "src/select.rs": "pub fn select(handles: &mut [usize]) -> usize { 0 }\n"
                         "pub struct Select;\nimpl Select {\n    pub fn select(&mut self) -> usize { 0 }\n}\n",
        "src/select_macro.rs": "/// Selects from a set of channel operations.\n#[macro_export]\n"
                               "macro_rules! select {\n    ($($tokens:tt)*) => {};\n}\n",
    }
    from cruxe.query import locate_symbol
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    hits, total = locate_symbol(gen, repo, ref, "select!")
    assert (hits[0].path, hits[0].signature) == ("src/select_macro.rs", "macro_rules! select"), hits[:2]
    assert total == 3  # the others stay listed
    hits, _ = locate_symbol(gen, repo, ref, "select")
    assert hits[0].path == "src/select.rs"  # without the `!`, nothing says macro


def test_a_crate_qualified_name_finds_the_item_in_a_hyphenated_crate_directory(tmp_path):
    # `crossbeam_channel::bounded`: the package `crossbeam-channel` is the crate `crossbeam_channel`
    files = {"crossbeam-channel/src/channel.rs": "pub fn bounded(cap: usize) {}\n",
             "other/src/lib.rs": "pub fn bounded(cap: usize) {}\n"}
    from cruxe.query import locate_symbol
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    for written in ("crossbeam_channel::bounded", "crossbeam-channel::bounded"):
        hits, total = locate_symbol(gen, repo, ref, written)
        assert [h.path for h in hits] == ["crossbeam-channel/src/channel.rs"], written


BUF = '''\
pub trait Buf {
    fn remaining(&self) -> usize;

    fn copy_to_slice(&mut self, dst: &mut [u8]) {
        let mut off = 0;
        assert!(self.remaining() >= dst.len());
        while off < dst.len() {
            off += 1;
        }
    }

    fn copy_to_bytes(&mut self, len: usize) -> Vec<u8> {
        assert!(len <= self.remaining(), "`len` greater than remaining");
        let mut ret = Vec::with_capacity(len);
        ret.extend(self.remaining().to_le_bytes());
        if ret.len() >= len && self.remaining() >= ret.len() {
            ret.truncate(len);
        }
        ret
    }
}
'''


def test_an_assert_without_a_message_emits_its_condition():
    # what `assert!(cond)` panics with: "assertion failed: " and the condition's tokens
    from cruxe.literals import emitted_messages
    assert emitted_messages(BUF, "rust") == ["assertion failed: self.remaining() >= dst.len()",
                                             "`len` greater than remaining"]
    multi = "fn f(a: u8) {\n    debug_assert!(\n        a <= 7 &&\n        matches!(a, 1 | 2)\n    );\n}\n"
    assert emitted_messages(multi, "rust") == ["assertion failed: a <= 7 && matches!(a, 1 | 2)"]
    assert emitted_messages("// assert!(x > 1);\nfn g() { assert_eq!(a, b); }\n", "rust") == []


def test_a_pasted_failed_assertion_finds_the_assert(tmp_path):
    # functions that say the same words (conditions, doc comments) without asserting them
    decoys = "".join(f'''
/// Copies into `dst` what fits: a failed assertion never happens here, the self check is done.
pub fn fill_{i}(buf: &mut impl Buf, dst: &mut [u8]) -> usize {{
    if buf.remaining() >= dst.len() {{ dst.len() }} else {{ buf.remaining() }}
}}
''' for i in range(4))
    files = {"src/buf.rs": BUF, "src/fill.rs": decoys}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    paste = ("thread 'main' panicked at 'assertion failed: self.remaining() >= dst.len()', "
             "/home/me/.cargo/registry/src/github.com-1ecc6299db9ec823/bytes-1.2.1/src/buf.rs:6:9")
    hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
    assert intent["intent"] == "error"
    assert (hits[0].path, hits[0].line_start <= 6 <= hits[0].line_end) == ("src/buf.rs", True), hits[:2]

"""Pasted Rust messages found wanting in the second user probe (tracing, rand, memchr, mio,
smallvec): a log line as env_logger or tracing-subscriber prints it, whose logger words
(time, level, target path) are no part of the message, and a std `io::Error` printed into a
message's hole (`Bad file descriptor (os error 9)`), a value the program did not write."""
from __future__ import annotations

from cruxe.literals import message_segments, unwrap_message
from cruxe.query import search_code

from support.repos import indexed_files


def test_a_rust_logger_prefix_is_taken_off():
    assert unwrap_message("[2024-03-01T10:22:03Z ERROR mio::sys::unix::selector::epoll] error closing epoll: x") \
        == "error closing epoll: x"
    assert unwrap_message("[ERROR poller] error closing epoll: x") == "error closing epoll: x"
    assert unwrap_message("2024-03-01T10:22:03.120Z  INFO mio::poll: registering source: token=3") \
        == "registering source: token=3"
    assert unwrap_message("TRACE conn{id=7}: hyper::proto: flushed 12 bytes") == "flushed 12 bytes"
    # a message of the program's own that starts with a capitalised word stays whole
    assert unwrap_message("ERROR while reading the header") == "ERROR while reading the header"


def test_an_os_error_in_a_hole_is_a_value():
    assert message_segments("error closing epoll: Bad file descriptor (os error 9)") == [("error", "closing", "epoll")]
    assert message_segments("failed to read config: No such file or directory (os error 2); giving up") == [
        ("failed", "to", "read", "config"), ("giving", "up")]


SELECTOR = '''\
impl Drop for Selector {
    fn drop(&mut self) {
        if let Err(err) = syscall!(close(self.ep)) {
            error!("error closing epoll: {}", err);
        }
    }
}
'''
EVENT = ''.join(f'''
/// Returns true if the event contains an error readiness on descriptor {i}.
///
/// The file descriptor may be closed: a bad descriptor is an error, as the os reports it.
pub fn is_error_{i}(&self) -> bool {{ sys::event::is_error(&self.inner) }}
''' for i in range(8))


def test_a_pasted_rust_log_line_finds_its_logging_call(tmp_path):
    files = {"src/sys/selector/epoll.rs": SELECTOR, "src/event/event.rs": EVENT}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    for paste in ("[2024-03-01T10:22:03Z ERROR mio::sys::selector::epoll] error closing epoll: "
                  "Bad file descriptor (os error 9)",
                  "error closing epoll: Bad file descriptor (os error 9)"):
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        assert (hits[0].path, hits[0].line_start <= 4 <= hits[0].line_end) == ("src/sys/selector/epoll.rs", True), hits[:3]

"""Pasted Rust messages found wanting in the second user probe (tracing, rand, memchr, mio,
smallvec): a log line as env_logger or tracing-subscriber prints it, whose logger words
(time, level, target path) are no part of the message, and a std `io::Error` printed into a
message's hole (`Bad file descriptor (os error 9)`), a value the program did not write; and
the `log` crate's (and tracing's) macros, `info!`/`warn!`/`debug!`/`trace!`/`log!`, which print
what such a line shows."""
from __future__ import annotations

from cruxe.literals import emitted_segments, message_segments, unwrap_message
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
    assert unwrap_message("WARN deprecated: use the new API") == "WARN deprecated: use the new API"


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


RESEEDING = """\
impl ReseedingCore {
    /// Registers the fork handler, so a child process reseeds before it generates.
    pub fn new(threshold: u64) -> Self {
        fork::register_fork_handler();
        ReseedingCore { threshold }
    }

    fn reseed_and_generate(&mut self, forked: bool) {
        if forked {
            info!("Fork detected, reseeding RNG");
        } else {
            trace!(target: "rand", "Reseeding RNG (periodic reseed)");
        }
        if let Err(e) = self.reseed() {
            warn!("Reseeding RNG failed: {}", e);
        }
    }
}
"""


def test_the_log_macros_print_messages():
    src = ('fn f() {\n    info!("Fork detected, reseeding RNG");\n    debug!("worker {} parked", id);\n'
           '    log!(Level::Warn, "queue is full");\n    assert_eq!(x, "not a message here");\n}\n')
    assert emitted_segments(src, "rust") == [
        ["fork", "detected", "reseeding", "rng", "|"], ["worker", "|", "parked", "|"], ["queue", "is", "full", "|"]]


def test_a_pasted_log_line_finds_its_info_call(tmp_path):
    doc = "".join(f"/// A fork of the process reseeds the RNG: detected on generate {i}.\npub fn helper_{i}() {{}}\n"
                  for i in range(6))
    files = {"src/reseeding.rs": RESEEDING, "src/docs.rs": doc}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    for paste in ("[2024-03-01T10:22:03Z INFO  rand::rngs::adapter::reseeding] Fork detected, reseeding RNG",
                  "Reseeding RNG failed: error code 2147483650"):
        hits, _, intent = search_code(gen, repo, ref, paste, limit=5)
        assert intent["intent"] == "error", paste
        assert (hits[0].path, hits[0].name) == ("src/reseeding.rs", "reseed_and_generate"), (paste, hits[:3])

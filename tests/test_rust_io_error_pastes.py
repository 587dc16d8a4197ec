"""A pasted Rust `std::io::Error` as its Debug form prints it (`Error: Custom { kind: InvalidInput,
error: "path must be shorter than SUN_LEN" }`, what `main` returning `io::Result` shows): the
quoted string is the message, searched as one, not a value cut out of it (socket2, mio)."""
from __future__ import annotations

import pytest

from cruxe.literals import message_segments, unwrap_message


@pytest.mark.parametrize("pasted, message", [
    ('Error: Custom { kind: InvalidInput, error: "path must be shorter than SUN_LEN" }',
     "path must be shorter than SUN_LEN"),
    ('Error: Custom { kind: NotFound, error: "I/O source not registered with `Registry`" }',
     "I/O source not registered with `Registry`"),
    ('Error: Os { code: 2, kind: NotFound, message: "No such file or directory" }', "No such file or directory"),
])
def test_the_debug_form_of_an_io_error_unwraps_to_its_message(pasted, message):
    assert unwrap_message(pasted) == message
    # searched as the message alone: no word of the Debug wrapping, nothing of the message dropped
    assert message_segments(pasted) == message_segments(message)


def test_the_emitting_site_comes_first(tmp_path):
    from cruxe.index import run_index
    from cruxe.project import open_project
    from cruxe.query import search_code
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "unix.rs").write_text(
        "use std::io;\n\n"
        "pub fn poll_connect() -> io::Result<()> {\n"
        "    Err(io::Error::new(io::ErrorKind::Other, \"no error set after POLLHUP\"))\n}\n\n"
        "pub fn unix(path: &[u8]) -> io::Result<()> {\n"
        "    if path.len() > 108 {\n"
        "        return Err(io::Error::new(\n            io::ErrorKind::InvalidInput,\n"
        "            \"path must be shorter than SUN_LEN\",\n        ));\n    }\n    Ok(())\n}\n")
    run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    hits, _, info = search_code(project.store.current_generation(ref), project.id, ref,
                                'Error: Custom { kind: InvalidInput, error: "path must be shorter than SUN_LEN" }')
    assert info["intent"] == "error" and "emitting_site" not in info
    assert (hits[0].path, hits[0].name) == ("src/unix.rs", "unix")

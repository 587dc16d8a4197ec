"""A pasted Rust panic is answered by the code that panicked: the `panic!` whose message is the
paste's, before the inner message formatted into its hole (another crate's `Display`), and before
a same-named `src/main.rs` of the repository that the panic's location only seems to name (the
location is the caller's: the user's own binary)."""
from __future__ import annotations

import pytest

from cruxe.query import search_code
from support.repos import indexed_files

REPO = {
    "Cargo.toml": '[workspace]\nmembers = ["core", "rand", "bench"]\n',
    "core/Cargo.toml": '[package]\nname = "core_err"\nversion = "0.1.0"\n',
    "core/src/lib.rs": ("pub struct Error { code: u32 }\n\nimpl core::fmt::Display for Error {\n"
                        "    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {\n"
                        "        write!(f, \"error code {}\", self.code)\n    }\n}\n"),
    "rand/Cargo.toml": '[package]\nname = "rand"\nversion = "0.1.0"\n',
    "rand/src/thread.rs": ("pub fn thread_rng() -> u32 {\n    let seeded = seed().unwrap_or_else(|err| {\n"
                           "        panic!(\"could not initialize thread_rng: {}\", err)\n    });\n    seeded\n}\n"),
    "bench/Cargo.toml": '[package]\nname = "bench"\nversion = "0.1.0"\n',
    "bench/src/main.rs": "".join(f"fn step{i}() -> u32 {{\n    {i}\n}}\n" for i in range(12)),
}


@pytest.fixture
def indexed(tmp_path):
    return indexed_files(tmp_path / "repo", tmp_path / "home", REPO)


def test_a_pasted_panic_is_answered_by_the_panic_before_the_inner_message_and_the_location(indexed):
    gen, repo, ref = indexed
    paste = "thread 'main' panicked at 'could not initialize thread_rng: error code 2147483650', src/main.rs:12:19"
    hits, _, _ = search_code(gen, repo, ref, paste)
    first = hits[0]
    assert first.path == "rand/src/thread.rs" and first.line_start <= 3 <= first.line_end, \
        [(h.path, h.line_start, h.name) for h in hits]
    assert first.signals["stack_frame"] == 0.0

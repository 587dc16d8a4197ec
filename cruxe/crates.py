"""Rust crates as the index holds them: which crate a file belongs to, and the package names
its indexed Cargo.toml gives it.

Below both `query` and `refs`: locate_symbol and find_references read a name such as
`hashbrown::HashMap::insert` by the same rule (`intent.qualified_matches`), whose crate name the
repository's paths need not say; the Rust resolver reads crates by the same rules. Everything
comes from what was indexed (`store.chunks`), never from the disk.
"""
from __future__ import annotations

import posixpath
import re

from .store import Generation, chunks

CARGO_NAME = re.compile(r'^\[(?:package|lib)\][^\[]*?^\s*name\s*=\s*"([^"]+)"', re.M | re.S)


def crate_of(path: str) -> str:
    """The crate directory of a file: above its last `src/`, or the file itself."""
    parts = path.split("/")
    if "src" in parts[:-1]:
        src_at = len(parts) - 2 - parts[:-1][::-1].index("src")
        return "/".join(parts[:src_at])
    return path


class CrateNames:
    """A file's path -> the package names of the Rust crate it belongs to (`[package]` and
    `[lib]` names of its crate directory's indexed Cargo.toml, `-` read as `_`), [] for other
    files: `hashbrown::HashMap::insert` names a crate the repository's paths need not say
    (`intent.qualified_matches`' home). Each Cargo.toml is read once, when first asked for."""

    def __init__(self, gen: Generation, repo: str, ref: str):
        self._gen, self._repo, self._ref = gen, repo, ref
        self._names: dict[str, list[str]] = {}

    def __call__(self, path: str) -> list[str]:
        if not path.endswith(".rs"):
            return []
        crate = crate_of(path)
        got = self._names.get(crate)
        if got is None:
            found = chunks(self._gen, self._repo, self._ref, posixpath.join(crate, "Cargo.toml"))
            text = "\n".join(c.source for c in found)
            got = self._names[crate] = [n.replace("-", "_") for n in CARGO_NAME.findall(text)]
        return got

"""Where the real corpora and the benchmark oracles live, in one place, with one policy: a
missing corpus or oracle skips the test on a developer's machine and fails it in CI (`CI` set),
so CI never passes by skipping.

The benchmark kit (`shared/`: oracles, setup_corpora.sh) is found from `CRUXE_ORACLES` (the
oracle directory itself), else `CRUXE_SHARED/bench/oracles`, else the `shared/bench/oracles`
beside the repository checkout (or beside the nearest parent directory that has one). The
small corpora are system packages (Go, Rust sources) and the running Python's own standard
library; the larger ones sit under `CORPORA` (default /tmp/corpora).
"""
from __future__ import annotations

import os
import sysconfig
from pathlib import Path
from typing import Mapping

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "tests" / "fixtures"
STDLIB = Path(sysconfig.get_paths()["stdlib"])
GO_SRC = Path("/usr/share/go-1.19/src")
GO_STRINGS = GO_SRC / "strings"
RUST_LIBRARY = Path("/usr/src/rustc-1.63.0/library")
RUST_SERDE = Path("/usr/share/cargo/registry/serde-1.0.152")
RUST_REGEX = Path("/usr/share/cargo/registry/regex-1.7.1")
# the larger corpora of the benchmark kit (setup_corpora.sh): sdists and npm packages
CORPORA_ROOT = Path(os.environ.get("CORPORA", "/tmp/corpora"))
TS_MODULES = CORPORA_ROOT / "npm/tscorp/node_modules"


def kit_locations(environ: Mapping[str, str], checkout: Path = REPO_ROOT) -> tuple[Path, Path]:
    """(the kit's `shared/`, its oracle directory) under `environ`: CRUXE_ORACLES names the
    oracles; CRUXE_SHARED the kit; else the `shared/` beside the checkout or beside its nearest
    parent that has one (a git worktree sits a level or two below the checkout it shares it with)."""
    shared = Path(environ["CRUXE_SHARED"]) if environ.get("CRUXE_SHARED") else next(
        (p / "shared" for p in checkout.parents if (p / "shared" / "bench").is_dir()), checkout.parent / "shared")
    return shared, Path(environ.get("CRUXE_ORACLES") or shared / "bench" / "oracles")


SHARED, ORACLES = kit_locations(os.environ)
SETUP_SMALL = f"run {SHARED / 'bench' / 'setup_corpora.sh'} --small"


def _missing(what: str, remedy: str) -> None:
    import pytest  # here, not at the top: benches import the locations without pytest

    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing: {remedy}")
    pytest.skip(f"{what} not installed")


def require_corpus(path: Path) -> Path:
    """A small real corpus: skipped locally when absent, a failure in CI (never a silent skip)."""
    if not path.exists():
        _missing(f"corpus {path}", SETUP_SMALL)
    return path


def require_oracle(name: str) -> Path:
    """A benchmark oracle script (`ORACLES/<name>`), under the same policy as the corpora."""
    path = ORACLES / name
    if not path.exists():
        _missing(f"oracle {path}", "set CRUXE_ORACLES (or CRUXE_SHARED) to the benchmark kit's oracles")
    return path

"""Shared fixtures: a private CRUXE_HOME per test, tmp repositories, the small real corpora.
Shared code and locations are in `support/` (tests import it, never each other)."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support.locations import require_corpus


@pytest.fixture(autouse=True)
def cruxe_home(tmp_path_factory, monkeypatch) -> Path:
    home = tmp_path_factory.mktemp("cruxe_home")
    monkeypatch.setenv("CRUXE_HOME", str(home))
    return home


@pytest.fixture
def make_repo(tmp_path):
    """make_repo({"a.py": "...", ...}) -> a repository directory with those files."""
    def make(files: dict[str, str | bytes], name: str = "repo") -> Path:
        root = tmp_path / name
        for rel, content in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_text(content)
        root.mkdir(exist_ok=True)
        return root
    return make


@pytest.fixture
def copy_corpus(tmp_path):
    """copy_corpus(src, name) -> a private copy of a corpus directory (tests may modify it)."""
    def copy(src: Path, name: str | None = None) -> Path:
        require_corpus(src)
        dst = tmp_path / (name or src.name)
        shutil.copytree(src, dst, symlinks=True)
        return dst
    return copy

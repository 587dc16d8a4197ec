"""Names as agents copy them from elsewhere. A Python target written in entry-point notation (`pkg.cli:main`, as pyproject scripts,
uvicorn and gunicorn write one) names that module's definition (found using Cruxe on
markdown: `markdown.extensions.toc:TocExtension` found nothing). An exception name and a
message after a colon, or a host and port, are not this. An ECMAScript private name
(`Class.#m`) keeps its `#`."""
from __future__ import annotations

from cruxe.intent import classify, entry_point, parse_name
from cruxe.query import locate_symbol

from support.repos import indexed_files


def test_entry_point_notation_reads_as_a_qualified_name():
    assert entry_point("markdown.extensions.toc:TocExtension") == "markdown.extensions.toc.TocExtension"
    assert entry_point("myapp:create_app()") == "myapp.create_app"
    assert parse_name("`pkg.cli:main`", "name") == ["pkg", "cli", "main"]
    assert classify("pkg.cli:main")[0] == "symbol"
    for text in ("ValueError:bad input", "localhost:8080", "foo:bar", "error: expected identifier"):
        assert entry_point(text) is None, text
    assert classify("ValueError:bad")[0] == "error"


def test_locate_finds_an_entry_point_target(tmp_path):
    files = {"pkg/cli.py": "def main():\n    return 0\n", "pkg/other.py": "def main():\n    return 1\n"}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    hits, _ = locate_symbol(gen, repo, ref, "pkg.cli:main")
    assert [(h.path, h.name) for h in hits[:1]] == [("pkg/cli.py", "main")], hits


def test_an_ecmascript_private_name_keeps_its_hash():
    """`QueryObserver.#notify` (tsprobe5): `#` separated the owner from the name as in docs'
    `Virtualizer#scrollToIndex`, so the private method was asked for as the public `notify`."""
    assert parse_name("QueryObserver.#notify", "name") == ["QueryObserver", "#notify"]
    assert parse_name("this.#notify", "name") == ["#notify"]
    assert parse_name("Virtualizer#scrollToIndex", "name") == ["Virtualizer", "scrollToIndex"]


def test_locate_finds_a_private_method(tmp_path):
    files = {"src/observer.ts": ("export class Observer {\n  #notify(): void {\n    return\n  }\n"
                                 "  notify(): void {\n    this.#notify()\n  }\n}\n")}
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", files)
    hits, _ = locate_symbol(gen, repo, ref, "Observer.#notify")
    assert [(h.name, h.line_start) for h in hits] == [("#notify", 2)], hits


def test_a_turbofish_names_no_segment():
    """`Punctuated::<T, P>::push` (rsprobe5) was read as three segments, the middle one `<T, P>`."""
    assert parse_name("Punctuated::<T, P>::push", "name") == ["Punctuated", "push"]
    assert parse_name("Vec::<Vec<u8>>::with_capacity", "name") == ["Vec", "with_capacity"]

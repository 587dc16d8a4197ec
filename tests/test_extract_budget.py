"""Extraction budgets, exact line numbers and odd file names (issue 18: items 6, 7, 12 and
the outline / CLI items). Time bounds here guard against hangs; they are not benchmarks."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cruxe import extract as extract_mod
from cruxe.extract import extract
from cruxe.health import doctor
from cruxe.index import WorkItem, build_documents, run_index
from cruxe.languages import _common, detect_language
from cruxe.model import text_lines
from cruxe.outline import MAX_OUTLINE_DEPTH
from cruxe.project import open_project
from cruxe.tools import Server

from support.locations import FIXTURES, GO_STRINGS, RUST_SERDE, STDLIB, require_corpus

HANG_GUARD_S = 20.0


def _timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def _call(root: Path, tool: str, args: dict) -> dict:
    payload, is_error = Server(root).call_tool(tool, args)
    assert not is_error, payload
    return payload


# ---- item 6: deep nesting and wide error regions --------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("lang, source, calls", [
    ("python", "x = " + "f(" * 64_000 + "1" + ")" * 64_000 + "\n", 64_000),
    ("typescript", "let x = " + "f(" * 16_000 + "1" + ")" * 16_000 + ";\n", 16_000),
])
def test_deeply_nested_calls_extract_fully_in_bounded_time(lang, source, calls):
    fx, seconds = _timed(extract, "deep", source.encode(), lang)
    assert seconds < HANG_GUARD_S
    assert [s.name for s in fx.symbols] == ["x"] and not fx.warnings
    assert sum(r.edge_type == "calls" and r.to_name == "f" for r in fx.references) == calls


def _sample_files() -> list[Path]:
    files = sorted((STDLIB / "json").glob("*.py")) + sorted(FIXTURES.rglob("*.*"))
    files += sorted(require_corpus(GO_STRINGS).glob("*.go"))[:15]
    files += sorted((require_corpus(RUST_SERDE) / "src").rglob("*.rs"))[:15]
    return [f for f in files if detect_language(str(f))]


@pytest.mark.slow
def test_layered_queries_give_exactly_what_one_unlimited_run_gives(monkeypatch):
    """With layers one or two levels deep every file is queried in many layers: its symbols
    and references (their order too) must equal those of one unlimited run."""
    files = _sample_files()
    assert {detect_language(str(f)) for f in files} >= {"python", "go", "rust", "typescript", "javascript"}
    unlimited = {f: extract(str(f), f.read_bytes(), detect_language(str(f))) for f in files}
    for depth in (1, 2):
        monkeypatch.setattr(_common, "LAYER_DEPTH", depth)
        for f in files:
            fx = extract(str(f), f.read_bytes(), detect_language(str(f)))
            assert (fx.symbols, fx.references) == (unlimited[f].symbols, unlimited[f].references), (depth, f)


def test_a_huge_syntax_error_region_is_indexed_as_text_with_a_warning(make_repo):
    root = make_repo({"broken.py": "[" * 300_000 + "\nneedle_in_broken = 1\n", "ok.py": "def fine():\n    pass\n"})
    report, seconds = _timed(run_index, root)
    assert seconds < 3 * HANG_GUARD_S
    warned = [w for w in report.to_dict()["warnings"] if w.startswith("broken.py:")]
    assert warned and "text only" in warned[0]
    checks = {c["check"]: c for c in doctor(open_project(root), "live")["checks"]}
    assert warned[0] in checks["file_warnings"]["detail"]["files"]
    hits = _call(root, "search_code", {"query": "needle_in_broken"})["results"]
    assert any(h["path"] == "broken.py" for h in hits)
    assert [r["name"] for r in _call(root, "locate_symbol", {"name": "fine"})["results"]] == ["fine"]


# ---- item 7: minified files -------------------------------------------------------------------

def _symbol_hashes(root: Path) -> dict[str, str]:
    gen = open_project(root).store.current_generation("live")
    return dict(gen.db.execute("SELECT name, content_hash FROM symbol_relations"))


def test_symbol_content_hash_covers_the_definition_not_its_whole_line(make_repo):
    root = make_repo({"m.js": "function keep(a){return a}var other=1;\n"})
    run_index(root)
    before = _symbol_hashes(root)
    (root / "m.js").write_text("function keep(a){return a}var other=2;\n")
    run_index(root)
    after = _symbol_hashes(root)
    assert set(before) == {"keep", "other"}
    assert after["keep"] == before["keep"]  # its bytes did not change; the line did
    assert after["other"] != before["other"]


def _minified(size: int) -> bytes:
    parts, i, total = [], 0, 0
    while total < size:
        part = f"function f{i}(a){{return a+{i}}}var v{i}=f{i}(2);"
        parts.append(part)
        total += len(part)
        i += 1
    return "".join(parts).encode()


@pytest.mark.slow
def test_a_one_line_mebibyte_file_builds_its_documents_in_bounded_time():
    data = _minified(1 << 20)
    fx = extract("min.js", data, "javascript")
    item = WorkItem("r", "live", "min.js", "/nowhere/min.js", len(data), 0, "javascript", None)
    docs, seconds = _timed(build_documents, item, fx, data.decode())
    assert seconds < HANG_GUARD_S
    assert len(docs.symbol_rows) == len(fx.symbols) > 10_000


def test_symbols_past_the_cap_are_dropped_with_a_warning(monkeypatch):
    source = b"class A:\n    def m(self):\n        return helper()\n    def n(self):\n        return other()\n\ndef g():\n    pass\n"
    assert [s.name for s in extract("c.py", source, "python").symbols] == ["A", "m", "n", "g"]
    monkeypatch.setattr(extract_mod, "MAX_SYMBOLS_PER_FILE", 2)
    fx = extract("c.py", source, "python")
    assert [s.name for s in fx.symbols] == ["A", "m"]
    assert all(s.parent is None or s.parent < len(fx.symbols) for s in fx.symbols)
    assert any(w.startswith("c.py:") and "dropped" in w for w in fx.warnings)
    owners = {r.to_name: r.from_symbol for r in fx.references if r.edge_type == "calls"}
    assert owners == {"helper": 1, "other": 0}  # n's call now belongs to its class A


# ---- item 12: line numbers --------------------------------------------------------------------

BREAKS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\r\n"]


@pytest.mark.parametrize("brk", BREAKS, ids=[f"U+{ord(b[0]):04X}{'_LF' if len(b) > 1 else ''}" for b in BREAKS])
def test_lines_count_newlines_only(make_repo, brk):
    text = (f"# one{brk}comment\nVALUE = 'a{brk}b'  # x{brk}y\n\ndef target():\n"
            f"    return 'needle_word'\n")
    if brk == "\r\n":
        text = text.replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    root = make_repo({"m.py": text.encode()})
    n_lines = text.count("\n")
    oracle = text[:text.index("def target")].count("\n") + 1
    value_line = text[:text.index("VALUE")].count("\n") + 1
    run_index(root)
    assert len(text_lines(text)) == n_lines
    located = _call(root, "locate_symbol", {"name": "target", "detail_level": "context"})["results"]
    assert [(r["line_start"], r["line_end"]) for r in located] == [(oracle, oracle + 1)]
    assert located[0]["body_preview"].split("\n")[0] == "def target():"
    hits = _call(root, "search_code", {"query": "needle_word", "detail_level": "context"})["results"]
    assert hits and all(1 <= h["line_start"] <= h["line_end"] <= n_lines for h in hits)
    outline = _call(root, "get_file_outline", {"path": "m.py"})["symbols"]
    assert {s["name"]: s["line_start"] for s in outline} == {"VALUE": value_line, "target": oracle}
    gen = open_project(root).store.current_generation("live")
    assert gen.db.execute("SELECT MAX(line_end) FROM symbol_relations").fetchone()[0] <= n_lines


def test_a_cr_only_file_has_one_line_per_carriage_return(make_repo):
    """Old Mac line ends: each lone CR ends a line, in extraction and display alike."""
    text = "def first():\r    return 1\r\rdef second():\r    return 'cr_needle'\r"
    root = make_repo({"mac.py": text.encode()})
    run_index(root)
    outline = _call(root, "get_file_outline", {"path": "mac.py"})["symbols"]
    assert [(s["name"], s["line_start"], s["line_end"]) for s in outline] == [("first", 1, 2), ("second", 4, 5)]
    located = _call(root, "locate_symbol", {"name": "second", "detail_level": "context"})["results"]
    assert located[0]["body_preview"] == "def second():\n    return 'cr_needle'"
    hits = _call(root, "search_code", {"query": "cr_needle"})["results"]
    assert hits and all(h["line_end"] <= 5 for h in hits)


def test_text_lines_splits_at_newlines_only():
    assert text_lines("") == [] and text_lines("\n") == [""]
    assert text_lines("a\fb\x85c\u2028d\n") == ["a\fb\x85c\u2028d"]
    assert text_lines("a\r\nb\rc\r\r\nd") == ["a", "b", "c", "", "d"]


# ---- outline and odd names ----------------------------------------------------------------------

def test_outline_of_500_nested_defs_is_capped_not_a_crash(make_repo):
    src = "".join("    " * i + f"def f{i}():\n" for i in range(500)) + "    " * 500 + "pass\n"
    root = make_repo({"deep.py": src})
    run_index(root)
    payload = _call(root, "get_file_outline", {"path": "deep.py"})
    assert payload["metadata"]["safety_limit_applied"] is True
    depth, node = 0, {"children": payload["symbols"]}
    while node.get("children"):
        node, depth = node["children"][0], depth + 1
    assert depth == MAX_OUTLINE_DEPTH and node["name"] == f"f{MAX_OUTLINE_DEPTH - 1}"
    json.dumps(payload)


@pytest.mark.parametrize("name", ["back\\slash.py", " lead.py"])
def test_outline_finds_a_file_by_its_exact_name(make_repo, name):
    root = make_repo({name: "def odd():\n    pass\n", "plain.py": "def plain():\n    pass\n"})
    run_index(root)
    assert [s["name"] for s in _call(root, "get_file_outline", {"path": name})["symbols"]] == ["odd"]
    assert [s["name"] for s in _call(root, "get_file_outline", {"path": "./plain.py"})["symbols"]] == ["plain"]


@pytest.mark.slow
def test_control_characters_in_names_are_escaped_in_human_output_only(make_repo, cruxe_home):
    name = "esc\x1b[31m.py"
    root = make_repo({name: "def painted():\n    pass\n"})
    env = {**os.environ, "CRUXE_HOME": str(cruxe_home), "PYTHONPATH": str(Path(__file__).parents[1])}

    def cli(*args: str) -> str:
        return subprocess.run([sys.executable, "-m", "cruxe", *args, "--path", str(root)], env=env,
                              capture_output=True, text=True, timeout=120, check=True).stdout

    cli("index", "--quiet")
    human = cli("tags") + cli("search", "painted")
    assert "\x1b" not in human and "esc\\x1b[31m.py" in human
    assert [json.loads(line)["path"] for line in cli("tags", "--json").splitlines()] == [name]

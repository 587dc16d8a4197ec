"""Hostile repository content: indexing completes, every problem is a warning naming its
file, `doctor` lists them, and everything that could be indexed answers queries.

Multi-megabyte single-line files, a 100,000-line file, deep nesting in every language,
binary files with source extensions, invalid encodings and file names, a FIFO, a
`.cruxeignore` full of invalid patterns, and files rewritten, deleted or swapped while
the index runs.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time
from pathlib import Path

import pytest

import cruxe.index
from cruxe.health import doctor
from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.tools import Server

INVALID_IGNORE = ["[z-a]", "\\", "!", "foo\\", *[f"[{i}-0]" for i in range(1, 10)]]


def _hostile_files() -> dict[str, bytes]:
    files: dict[str, bytes] = {
        "normal.py": b"def normal_function():\n    return 1\n\nclass NormalClass:\n    pass\n",
        # a 3 MB single line: over the 1 MiB limit
        "huge_line.js": b"var h=" + b"1+" * 1_500_000 + b"1;\n",
        # under the limit: a 400 KB single line of code and a 900 KB single line of data
        "minified.js": b"var m=[" + b"1," * 200_000 + b"1];function minifiedTail(){return m}\n",
        "data.json": b'{"k":"' + b"v" * 900_000 + b'"}\n',
        # 100,000 lines; a marker function at the very end
        "long_file.py": b"def long_body():\n" + b" x=1\n" * 99_998 + b"def at_the_end_of_a_long_file():\n pass\n",
        # deep nesting in every language
        "deep.py": b"x = " + b"(" * 20_000 + b"1" + b")" * 20_000 + b"\n\ndef after_deep_py():\n    pass\n",
        "deep_list.py": b"y = " + b"[" * 50_000 + b"]" * 50_000 + b"\n",
        "deep_defs.py": b"".join(b"    " * i + b"def nested_%d():\n" % i for i in range(300)) + b"    " * 300 + b"pass\n",
        "deep.rs": b"fn deep_rs() { let x = " + b"{" * 20_000 + b"1" + b"}" * 20_000 + b"; }\n",
        "deep.go": b"package p\nvar x = " + b"(" * 20_000 + b"1" + b")" * 20_000 + b"\nfunc AfterDeepGo() {}\n",
        "deep.ts": b"const x = " + b"[" * 20_000 + b"]" * 20_000 + b";\nexport function afterDeepTs() {}\n",
        "deep_ns.ts": b"".join(b"namespace N%d {\n" % i for i in range(500)) + b"}" * 500 + b"\n",
        # binary content with source extensions
        "bin.rs": bytes(range(256)) * 100,
        "utf16.py": "def utf16_fn():\n    pass\n".encode("utf-16"),
        "late_nul.go": b"package p\nfunc BeforeNul() {}\n" + b"// pad\n" * 2000 + b"\x00\x00",
        # invalid encodings
        "latin1.py": "def latin_caf\xe9():\n    return '\xe9'\n".encode("latin-1"),
        "bad_utf8.ts": b"export function okBefore() { return 1 }\nconst s = '\xff\xfe\xc0\xaf';\n"
                       b"export function okAfter() { return 2 }\n",
        "cesu.py": b"s = '\xed\xa0\x80\xed\xb0\x80'\n\ndef after_cesu():\n    pass\n",
        "noise.go": bytes((i * 151 + 7) % 255 + 1 for i in range(50_000)),
        "empty.py": b"",
        "bom_only.py": b"\xef\xbb\xbf",
        # ignored by the valid .cruxeignore lines
        "generated/skip_me.py": b"def must_not_be_indexed():\n    pass\n",
        ".cruxeignore": ("\n".join(INVALID_IGNORE + ["generated/", "# a comment"]) + "\n").encode(),
    }
    return files


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    repo, home = base / "repo", base / "home"
    for rel, data in _hostile_files().items():
        p = repo / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    os.mkfifo(repo / "fifo.py")  # a reader that opened it would block forever
    (repo / os.fsdecode(b"bad_name_\xff.py")).write_bytes(b"def bad_name():\n    pass\n")
    report = run_index(repo, home=home, workers=1)
    return {"repo": repo, "home": home, "report": report}


@pytest.mark.slow
def test_indexing_completes_and_every_indexable_file_answers(hostile):
    assert hostile["report"].status == "published"
    server = Server(hostile["repo"], home=hostile["home"])
    for name, path in [("normal_function", "normal.py"), ("NormalClass", "normal.py"),
                       ("at_the_end_of_a_long_file", "long_file.py"), ("after_deep_py", "deep.py"),
                       ("AfterDeepGo", "deep.go"), ("afterDeepTs", "deep.ts"), ("deep_rs", "deep.rs"),
                       ("okAfter", "bad_utf8.ts"), ("after_cesu", "cesu.py"), ("minifiedTail", "minified.js"),
                       ("nested_299", "deep_defs.py"), ("BeforeNul", "late_nul.go")]:
        payload, is_error = server.call_tool("locate_symbol", {"name": name})
        assert not is_error and [r["path"] for r in payload["results"]] == [path], (name, payload)
    outline, is_error = server.call_tool("get_file_outline", {"path": "long_file.py"})
    assert not is_error and [(s["name"], s["line_start"]) for s in outline["symbols"]] == [
        ("long_body", 1), ("at_the_end_of_a_long_file", 100_000)]
    hits, _ = server.call_tool("search_code", {"query": "at_the_end_of_a_long_file"})
    assert hits["results"][0]["path"] == "long_file.py"
    for name in ("must_not_be_indexed", "utf16_fn", "bad_name"):
        payload, _ = server.call_tool("locate_symbol", {"name": name})
        assert payload.get("results", []) == [], payload


def test_every_problem_is_a_warning_naming_its_file(hostile):
    warnings = hostile["report"].warnings
    text = "\n".join(warnings)
    expected = {
        "huge_line.js": "over the 1048576-byte limit", "bin.rs": "binary content", "utf16.py": "binary content",
        "fifo.py": "not a regular file", "bad_name_\\xff.py": "file name is not valid UTF-8",
    }
    for name, problem in expected.items():
        assert any(w.startswith(f"{name}: ") and problem in w for w in warnings), (name, text)
    for lineno, pattern in enumerate(INVALID_IGNORE, 1):
        assert any(w.startswith(f".cruxeignore:{lineno}: invalid ignore pattern {pattern!r}") for w in warnings), text
    parsed_with_errors = [w for w in warnings if "syntax error" in w]
    assert parsed_with_errors and all(w.split(":")[0] in _hostile_files() for w in parsed_with_errors)


def test_doctor_lists_the_problems(hostile):
    report = doctor(open_project(hostile["repo"], hostile["home"]), "live")
    checks = {c["check"]: c for c in report["checks"]}
    ignore = checks["ignore_rules"]
    assert not ignore["ok"] and len(ignore["detail"]["invalid_patterns"]) == len(INVALID_IGNORE)
    assert "remedy" in ignore and not report["ok"]
    listed = "\n".join(checks["file_warnings"]["detail"]["skipped"] + checks["file_warnings"]["detail"]["files"])
    for name in ("huge_line.js", "bin.rs", "utf16.py", "fifo.py", "bad_name_\\xff.py"):
        assert f"{name}: " in listed, (name, listed)
    assert any(w in listed for w in ("latin1.py: ", "bad_utf8.ts: ", "noise.go: "))  # indexed, with a warning


def test_a_sync_keeps_listing_the_problems(hostile):
    report = run_index(hostile["repo"], home=hostile["home"], workers=1)
    assert report.mode == "incremental" and report.changed_files == 0
    listed = doctor(open_project(hostile["repo"], hostile["home"]), "live")
    skipped = next(c for c in listed["checks"] if c["check"] == "file_warnings")["detail"]["skipped"]
    assert any(w.startswith("bin.rs: ") for w in skipped) and any(w.startswith("huge_line.js: ") for w in skipped)


def test_a_change_in_the_same_mtime_tick_is_not_missed(tmp_path):
    """Coarse clocks (and FAT's 2 s) can give a rewrite the mtime of the version indexed a
    moment before, with the same size: the size+mtime fast path alone would miss it."""
    repo, home = tmp_path / "repo", tmp_path / "home"
    repo.mkdir()
    f = repo / "m.py"
    f.write_text("def first_name():\n    pass\n")
    run_index(repo, home=home, workers=1)
    st = f.stat()
    f.write_text("def other_name():\n    pass\n")  # same size
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))  # ... and the same mtime tick
    run_index(repo, home=home, workers=1)
    payload, _ = Server(repo, home=home).call_tool("locate_symbol", {"name": "other_name"})
    assert [r["path"] for r in payload["results"]] == ["m.py"]


# ---- files changing while the index runs ------------------------------------------------------

def _mutate(repo: Path, outside: Path, stop: threading.Event, seed: int) -> int:
    """Rewrite, delete, recreate, truncate, swap for a directory or an outside symlink."""
    rng = random.Random(seed)
    n = 0
    while not stop.is_set():
        p = repo / f"m{rng.randrange(120):03d}.py"
        action = rng.randrange(6)
        try:
            if p.is_symlink() or p.is_file():
                p.unlink()
            elif p.is_dir():
                shutil.rmtree(p)
            if action == 0:
                p.write_text(f"def rewritten_{n}():\n    return {n}\n" * rng.randrange(1, 40))
            elif action == 1:
                p.write_bytes(b"")
            elif action == 2:
                p.mkdir()
            elif action == 3:
                os.symlink(outside, p)
            elif action == 4:
                p.write_text(f"class Fresh{n}:\n    pass\n")
        except OSError:
            pass  # the indexer may hold it
        n += 1
        time.sleep(0.0005)
    return n


@pytest.mark.slow
def test_files_changing_or_disappearing_while_indexed_then_a_sync_converges(tmp_path, monkeypatch):
    monkeypatch.setattr(cruxe.index, "BATCH_FILES", 5)  # many commit points
    repo, home, clean_home = tmp_path / "repo", tmp_path / "home", tmp_path / "clean_home"
    repo.mkdir()
    outside = tmp_path / "outside.py"
    outside.write_text("OUTSIDE_SECRET_MARKER = 1\n")
    for i in range(120):
        (repo / f"m{i:03d}.py").write_text(f"def original_{i}():\n    return {i}\n" * 20)
    stop = threading.Event()
    mutator = threading.Thread(target=_mutate, args=(repo, outside, stop, 7))
    mutator.start()
    try:
        report = run_index(repo, home=home, workers=1)
    finally:
        stop.set()
        mutator.join()
    assert report.status == "published"
    assert all(w.split(":")[0].startswith("m") for w in report.warnings), report.warnings
    run_index(repo, home=home, workers=1)  # the tree is still now: a sync must converge
    run_index(repo, home=clean_home, workers=1)
    assert _tables(repo, home) == _tables(repo, clean_home)
    payload, _ = Server(repo, home=home).call_tool("search_code", {"query": "OUTSIDE_SECRET_MARKER"})
    assert "OUTSIDE_SECRET_MARKER" not in str(payload.get("results"))


def _tables(repo: Path, home: Path) -> tuple:
    project = open_project(repo, home)
    db = project.store.current_generation("live").db
    symbols = sorted(tuple(r) for r in db.execute("SELECT path, name, kind, line_start, line_end, symbol_id "
                                                  "FROM symbol_relations"))
    files = sorted(tuple(r) for r in db.execute("SELECT path, content_hash, size FROM file_manifest"))
    project.store.close()
    return symbols, files


def test_outline_of_a_generated_file_is_bounded_by_the_payload_safety_limit(make_repo):
    """go-5k's syscall/zerrors_linux_loong64.go has 1,942 constants: its whole outline is
    372 KB (~100k tokens). The outline keeps the longest line-order prefix of the tree that
    fits `search.max_response_bytes`, says so, and suggests the top level (same ref)."""
    from cruxe.outline import file_outline
    lines = ["class Table:"] + [f"    def method_{i:04d}(self, value):\n        return value" for i in range(100)]
    lines += [f"CONSTANT_{i:04d} = {i}" for i in range(3000)]
    root = make_repo({"gen.py": "\n".join(lines) + "\n"})
    run_index(root)
    server = Server(root)
    full, is_error = server.call_tool("get_file_outline", {"path": "gen.py"})
    assert not is_error
    size = len(json.dumps(full["symbols"], separators=(",", ":")).encode())
    project = open_project(root)
    whole = file_outline(project.store.current_generation("live"), project.id, "live", "gen.py")
    assert size <= 65536 < len(json.dumps(whole["symbols"], separators=(",", ":")).encode()), size
    meta = full["metadata"]
    assert meta["symbol_count"] == 3101 and meta["result_completeness"] == "truncated"
    assert meta["safety_limit_applied"] is True and 0 < meta["returned_symbol_count"] < 3101
    kept = full["symbols"][0]["children"]  # the class and its methods come first, in line order
    assert full["symbols"][0]["name"] == "Table" and [m["name"] for m in kept] == [f"method_{i:04d}" for i in range(100)]
    assert [s["name"] for s in full["symbols"][1:]] == [f"CONSTANT_{i:04d}" for i in range(len(full["symbols"]) - 1)]
    assert full["suggested_next_actions"][0]["arguments"] == {"path": "gen.py", "depth": "top"}
    with_ref, _ = server.call_tool("get_file_outline", {"path": "gen.py", "ref": "live"})
    assert with_ref["suggested_next_actions"][0]["arguments"] == {"path": "gen.py", "depth": "top", "ref": "live"}
    small, _ = server.call_tool("get_file_outline", {"path": "gen.py", "depth": "top"})
    assert small["metadata"]["symbol_count"] == 3001 and small["symbols"][0]["name"] == "Table"
    assert "children" not in small["symbols"][0]


def test_outline_node_size_is_exactly_its_json_size():
    # The outline's cut is the longest prefix that fits: it sizes nodes without serializing
    # them, so the sizing must agree with the wire form on every string (quotes, backslashes,
    # control characters, non-ASCII).
    from hypothesis import given, settings, strategies as st

    from cruxe.outline import _json_size
    from cruxe.jsonenc import to_json

    text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)

    @settings(max_examples=400, deadline=None)
    @given(kind=text, name=text, sig=st.one_of(st.none(), text), vis=st.one_of(st.none(), text),
           start=st.integers(1, 10**7), end=st.integers(1, 10**7))
    def check(kind, name, sig, vis, start, end):
        node = {"kind": kind, "name": name, "line_start": start, "line_end": end}
        node.update({k: v for k, v in (("signature", sig), ("visibility", vis)) if v})
        assert _json_size(node) == len(to_json(node).encode("utf-8"))

    check()
    for s in ('a"b', "a\\b", "tab\tnew\nline", "\x7f\x00", "é漢字", "\u2028"):
        node = {"kind": s, "name": s, "line_start": 1, "line_end": 2, "signature": s}
        assert _json_size(node) == len(to_json(node).encode("utf-8"))


def test_an_outline_that_fits_the_limit_exactly_is_whole(make_repo):
    # The read stops early only when a lower bound of the size is over the limit: a tree whose
    # serialized symbols are exactly the limit comes back whole, untruncated.
    from cruxe.outline import file_outline
    root = make_repo({"m.py": "".join(f"class C{i}:\n    pass\n" for i in range(400))})
    run_index(root)
    project = open_project(root)
    gen = project.store.current_generation("live")
    whole = file_outline(gen, project.id, "live", "m.py")
    exact = len(json.dumps(whole["symbols"], separators=(",", ":"), ensure_ascii=False).encode())
    fit = file_outline(gen, project.id, "live", "m.py", max_bytes=exact)
    assert (fit["truncated"], fit["returned_symbol_count"], fit["symbols"]) == (False, 400, whole["symbols"])
    cut = file_outline(gen, project.id, "live", "m.py", max_bytes=exact - 1)
    assert cut["truncated"] and cut["returned_symbol_count"] < 400

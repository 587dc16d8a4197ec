"""Indexing pipeline: full/incremental, identity, single writer, crash safety, rebuild swap."""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cruxe.errors import CruxeError
from cruxe.index import WorkItem, process_file, run_index
from cruxe.model import Skipped
from cruxe.project import open_project
from cruxe.store import IDENT_PATTERN, PARTS_PATTERN, code_terms

from support.locations import STDLIB


def symbol_table(root, ref="live") -> list[tuple]:
    project = open_project(root)
    gen = project.store.current_generation(ref)
    return sorted(tuple(r) for r in gen.db.execute(
        'SELECT path, name, qualified_name, kind, line_start, line_end, signature, symbol_id, symbol_stable_id, '
        'parent_symbol_id FROM symbol_relations WHERE repo=? AND "ref"=?', (project.id, ref)))


def manifest_table(root, ref="live") -> list[tuple]:
    project = open_project(root)
    gen = project.store.current_generation(ref)
    return sorted(tuple(r) for r in gen.db.execute(
        'SELECT path, content_hash FROM file_manifest WHERE repo=? AND "ref"=?', (project.id, ref)))


def test_full_then_incremental_sync(make_repo):
    root = make_repo({"a.py": "def alpha():\n    return 1\n", "b.py": "class Beta:\n    def m(self):\n        pass\n"})
    r1 = run_index(root)
    assert (r1.mode, r1.changed_files, r1.file_count, r1.symbol_count) == ("full", 2, 2, 3)
    r2 = run_index(root)
    assert (r2.mode, r2.changed_files, r2.unchanged_files) == ("incremental", 0, 2)
    (root / "a.py").write_text("def alpha():\n    return 1\n\ndef gamma():\n    return 2\n")
    (root / "b.py").unlink()
    (root / "c.py").write_text("DELTA = 4\n")
    r3 = run_index(root)
    assert (r3.changed_files, r3.deleted_files) == (2, 1)
    names = {(row[0], row[1]) for row in symbol_table(root)}
    assert names == {("a.py", "alpha"), ("a.py", "gamma"), ("c.py", "DELTA")}


def test_touch_without_content_change_keeps_symbols(make_repo):
    root = make_repo({"a.py": "def alpha():\n    return 1\n"})
    run_index(root)
    before = symbol_table(root)
    os.utime(root / "a.py", ns=(time.time_ns(), time.time_ns() + 10**9))
    r = run_index(root)
    assert r.changed_files == 0 and symbol_table(root) == before


def test_stable_id_survives_a_move_and_symbol_id_does_not(make_repo):
    root = make_repo({"m.py": "def keep(x):\n    return x\n"})
    run_index(root)
    (sid1, stable1), = [(r[7], r[8]) for r in symbol_table(root)]
    (root / "m.py").write_text("\n\n\n# moved down\ndef keep(x):\n    return x\n")
    run_index(root)
    (sid2, stable2), = [(r[7], r[8]) for r in symbol_table(root)]
    assert stable1 == stable2 and sid1 != sid2


def test_symbol_content_hash_follows_the_definition_text_only(make_repo):
    root = make_repo({"m.py": "def keep(x):\n    return x\n\ndef edit(y):\n    return y\n"})
    project = open_project(root)

    def hashes() -> dict[str, str]:
        gen = project.store.current_generation("live")
        return dict(gen.db.execute("SELECT name, content_hash FROM symbol_relations"))

    run_index(root)
    before = hashes()
    assert len(set(before.values())) == 2 and all(len(h) == 16 for h in before.values())
    (root / "m.py").write_text("# a new first line\ndef keep(x):\n    return x\n\ndef edit(y):\n    return y + 1\n")
    run_index(root)
    after = hashes()
    assert after["keep"] == before["keep"]  # moved, same text
    assert after["edit"] != before["edit"]  # its text changed


def test_second_writer_gets_index_in_progress(make_repo):
    root = make_repo({"a.py": "x = 1\n"})
    run_index(root)
    project = open_project(root)
    with project.store.writer_lock("live"):
        with pytest.raises(CruxeError) as e:
            run_index(root)
        assert e.value.code == "index_in_progress"
        proc = subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(root)],
                              capture_output=True, text=True)
        assert proc.returncode == 3 and "index_in_progress" in proc.stderr


def test_hostile_encodings_and_binary_files_do_not_stop_a_run(make_repo):
    root = make_repo({
        "crlf.py": b"def crlf_fn():\r\n    return 1\r\n",
        "bom.py": b"\xef\xbb\xbfdef bom_fn():\n    pass\n",
        "latin.py": "def latin_fn():\n    s = 'caf\xe9'\n".encode("latin-1"),
        "bad.py": b"def bad_fn():\n    return '\xff\xfe\xfa'\n",
        "bin.py": b"\x00\x01\x02def nope(): pass",
        "broken.py": b"def broken(:\n    pass\ndef fine():\n    pass\n",
    })
    r = run_index(root)
    names = {row[1] for row in symbol_table(root)}
    assert {"crlf_fn", "bom_fn", "latin_fn", "bad_fn", "fine"} <= names and "nope" not in names
    assert any("bin.py" in w and "binary" in w for w in r.warnings)
    lines = {row[1]: (row[4], row[5]) for row in symbol_table(root)}
    assert lines["crlf_fn"] == (1, 2) and lines["bom_fn"] == (1, 2)


def test_file_vanishing_between_scan_and_read_is_a_warning(tmp_path):
    out = process_file(WorkItem("r", "live", "gone.py", str(tmp_path / "gone.py"), 10, 0, "python", None))
    assert isinstance(out, Skipped) and "gone.py" in out.warning


def test_force_rebuilds_beside_the_live_generation_and_swaps(make_repo):
    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)
    project = open_project(root)
    assert project.store.current_generation_number("live") == 1
    r = run_index(root, force=True)
    assert r.mode == "full" and r.generation == 2
    assert project.store.current_generation_number("live") == 2
    assert not (project.store.ref_dir("live") / "gen-1").exists()
    assert [row[1] for row in symbol_table(root)] == ["alpha"]


def test_dead_running_job_is_marked_interrupted(make_repo):
    root = make_repo({"a.py": "x = 1\n"})
    run_index(root)
    project = open_project(root)
    project.store.create_job("deadbeef", "live", "incremental", 1)  # as if its process died
    dead = project.store.recover_interrupted("live")
    assert [j["job_id"] for j in dead] == ["deadbeef"]
    assert project.store.interrupted_jobs()[0]["job_id"] == "deadbeef"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sigkill_during_index_then_sync_equals_a_clean_index(copy_corpus, tmp_path, seed):
    """Kill `cruxe index` at a random moment; the next sync must give exactly the symbol
    table and manifest of a clean index (nothing lost, nothing duplicated)."""
    root = copy_corpus(STDLIB / "email", "email")
    env = {**os.environ, "CRUXE_INDEX_BATCH_FILES": "5"}
    rng = random.Random(seed)
    proc = subprocess.Popen([sys.executable, "-m", "cruxe", "index", "--path", str(root), "--quiet",
                             "--workers", "1"], env=env)
    time.sleep(rng.uniform(0.3, 1.5))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    sync = subprocess.run([sys.executable, "-m", "cruxe", "sync", "--path", str(root), "--json"], env=env,
                          capture_output=True, text=True)
    assert sync.returncode == 0, sync.stderr
    report = json.loads(sync.stdout)
    after_kill = symbol_table(root), manifest_table(root)
    clean_home = tmp_path / "clean_home"
    clean = subprocess.run([sys.executable, "-m", "cruxe", "index", "--path", str(root), "--quiet"],
                           env={**env, "CRUXE_HOME": str(clean_home)}, capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr
    os.environ["CRUXE_HOME"], saved = str(clean_home), os.environ["CRUXE_HOME"]
    try:
        reference = symbol_table(root), manifest_table(root)
    finally:
        os.environ["CRUXE_HOME"] = saved
    assert after_kill == reference
    assert report["status"] == "published"
    project = open_project(root)
    assert not [j for j in project.store.jobs("live", 50) if j["status"] == "running"]


def test_force_rebuild_that_fails_validation_rolls_back_and_keeps_the_live_index(make_repo, monkeypatch):
    """Fault injection: the rebuild loses its file documents; validation must refuse to publish."""
    from cruxe import index as index_mod

    root = make_repo({"a.py": "def alpha():\n    pass\n"})
    run_index(root)
    real_add = index_mod.GenerationWriter.add_docs

    def lossy_add(self, name, docs):
        if name != "files":
            real_add(self, name, docs)

    monkeypatch.setattr(index_mod.GenerationWriter, "add_docs", lossy_add)
    with pytest.raises(CruxeError, match="validation failed"):
        run_index(root, force=True)
    project = open_project(root)
    assert project.store.current_generation_number("live") == 1
    assert project.store.jobs("live", 1)[0]["status"] == "rolled_back"
    assert [row[1] for row in symbol_table(root)] == ["alpha"]


def test_definitions_sharing_path_kind_line_and_name_get_distinct_ids(make_repo):
    """effect's ai/Tool.ts has `readonly parameters: Options extends { readonly parameters:
    infer P } ...` on one line: two definitions with the same path, kind, line and name.
    With one id for both, the inner one was its own parent and the reference resolver walked
    that parent chain forever (the ts-real index never finished)."""
    from cruxe.outline import file_outline
    from cruxe.refs import find_references
    src = ("export function make<Options>(name: string): {\n"
           "  readonly parameters: Options extends { readonly parameters: infer P } ? P : never\n"
           "} {\n"
           "  return helper(name) as any\n"
           "}\n"
           "function helper(n: string) { return n }\n")
    root = make_repo({"tool.ts": src})
    r = run_index(root)  # must finish: resolution runs over the edges of this file
    assert r.status == "published"
    rows = [(row[0], row[1], row[2], row[7]) for row in symbol_table(root) if row[1] == "parameters"]
    assert len(rows) == 2 and len({sid for *_, sid in rows}) == 2, rows
    project = open_project(root)
    gen = project.store.current_generation("live")
    json.dumps(file_outline(gen, project.id, "live", "tool.ts"))  # no self-nesting in the tree
    parents = dict(gen.db.execute("SELECT symbol_id, parent_symbol_id FROM symbol_relations"))
    assert all(sid != parent for sid, parent in parents.items())
    answer = find_references(gen, project.id, "live", "helper", path="tool.ts")
    assert [(x["path"], x["line_start"]) for x in answer["references"]] == [("tool.ts", 4)]


@pytest.mark.slow
def test_cli_output_cut_short_by_its_reader_is_not_an_error(make_repo):
    """`cruxe tags | head -1`: the closed pipe ends the command quietly (it used to report
    internal_error: BrokenPipeError)."""
    root = make_repo({"many.py": "".join(f"def f_{i}():\n    return {i}\n" for i in range(20_000))})
    run_index(root)
    proc = subprocess.Popen([sys.executable, "-m", "cruxe", "tags", "--path", str(root)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=os.environ.copy())
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 0 and first.startswith(b"f_"), err
    assert "error" not in err.lower(), err


def test_snippet_chunks_skip_blank_gaps_and_merge_small_neighbours():
    """Blank gaps are no chunk; runs of small chunks (one-line constants, short comments)
    become one chunk of at most CHUNK_MERGE_LINES; a long symbol stays its own chunk; the
    chunks stay in line order without overlap and cover every non-blank line."""
    from cruxe.extract import extract
    from cruxe.store.writer import CHUNK_MERGE_LINES, chunk_ranges
    consts = "".join(f"C_{i} = {i}\n\n" for i in range(30))  # 30 one-line symbols, blank lines between
    long_fn = "def long_one():\n" + "".join(f"    v{i} = {i}\n" for i in range(8)) + "    return v0\n"
    text = "# header comment\n\n\n" + consts + "\n\n" + long_fn + "\n\n# trailing comment\n"
    fx = extract("m.py", text.encode(), "python")
    lines = text.splitlines()
    chunks = chunk_ranges(fx, lines)
    assert all(b - a + 1 <= CHUNK_MERGE_LINES for a, b, _ in chunks[:-2])
    assert all(chunks[i][1] < chunks[i + 1][0] for i in range(len(chunks) - 1))
    covered = {n for a, b, _ in chunks for n in range(a, b + 1)}
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= covered
    assert not any(all(not lines[n - 1].strip() for n in range(a, b + 1)) for a, b, _ in chunks)
    start = lines.index("def long_one():") + 1
    assert (start, start + 9, "symbol") in chunks  # the 10-line function is a chunk of its own
    assert len(chunks) < 10  # 30 constants + comments: a handful of merged chunks, not ~60


def _symbol_indexes(root) -> list[str]:
    gen = open_project(root).store.current_generation("live")
    return [r[0] for r in gen.db.execute("SELECT name FROM sqlite_master WHERE type='index' "
                                         "AND tbl_name='symbols' ORDER BY name")]


def test_bulk_build_defers_the_symbol_indexes_and_a_crash_before_they_return_is_repaired(make_repo, monkeypatch):
    # A first build of many files writes symbols without their indexes and builds them after
    # the last batch (with a spool: as its resolution starts); a job dying in between leaves
    # them out, and the next job builds them.
    import cruxe.index as index_mod
    import cruxe.refs.resolve as resolve_mod
    root = make_repo({f"m{i}.py": f"def fn_{i}():\n    return {i}\n" for i in range(6)})
    monkeypatch.setattr(index_mod, "BULK_MIN_FILES", 1)
    real_build = index_mod.build_symbol_indexes
    for mod in (index_mod, resolve_mod):
        monkeypatch.setattr(mod, "build_symbol_indexes", lambda db: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        run_index(root)
    assert _symbol_indexes(root) == []  # written, not indexed yet: readers scan
    assert {r[1] for r in symbol_table(root)} == {f"fn_{i}" for i in range(6)}
    for mod in (index_mod, resolve_mod):
        monkeypatch.setattr(mod, "build_symbol_indexes", real_build)
    run_index(root)
    assert _symbol_indexes(root) == ["sr_id", "sr_name", "sr_path"]
    clean = make_repo({f"m{i}.py": f"def fn_{i}():\n    return {i}\n" for i in range(6)})
    run_index(clean)  # an uninterrupted bulk build ends with them too
    assert _symbol_indexes(clean) == ["sr_id", "sr_name", "sr_path"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZq9_$ .\n\t-(é€😀HTTPServer_x1"), max_size=80) | st.text(max_size=40))
def test_code_terms_are_the_tokens_of_the_index_patterns(code):
    # The indexed terms must be what the query side's patterns find (planner splits queries
    # with IDENT_PATTERN and PARTS_PATTERN): same tokens, same order (positions).
    idents, parts = code_terms(code.encode("utf-8", "surrogatepass"))
    assert idents.split() == re.findall(IDENT_PATTERN, code)
    assert parts.split() == re.findall(PARTS_PATTERN, code)


def test_code_terms_split_an_acronym_from_the_word_after_it():
    # `HTTPServer` holds the words http and server: a question saying "server" must reach it
    # through the identifier parts, as it reaches `parse_server` (the parts were `HTTPS` and
    # `erver`: a word no question says, and a false `https`).
    _, parts = code_terms(b"srv = HTTPServer(addr)\nraise IOError(getHTTPResponse(x).MIMEHeader)")
    assert parts.split() == ["srv", "HTTP", "Server", "addr", "raise", "IO", "Error", "get", "HTTP", "Response",
                             "x", "MIME", "Header"]
    assert re.findall(PARTS_PATTERN, "parseURL XMLHttpRequest ABC") == ["parse", "URL", "XML", "Http", "Request", "ABC"]


def test_edge_block_columns_keep_every_text_in_place():
    # Text columns travel joined by NUL: a NUL inside a text (a receiver cut from a string
    # literal, say) must not shift the columns; it becomes U+FFFD.
    from cruxe.model import EdgeBlock
    block = EdgeBlock.of(b"\x00\x01\x02", [3, 4, 5], [-1, 0, 1], [b"a" * 8, b"b" * 8], ("f", "g", ""),
                         ("", "", "./m"), ("x\x00y", "", ""), ("", "", "z\x00"), import_type=2)
    assert block.column(block.names) == ["f", "g", ""]
    assert block.column(block.modules) == ["", "", "./m"]
    assert block.column(block.receivers) == ["x\ufffdy", "", ""]
    assert block.column(block.aliases) == ["", "", "z\ufffd"]
    assert block.imports == ((2, 5, 1, "", "./m", "z\ufffd"),)  # the import row, as its columns give it
    empty = EdgeBlock.of(b"", [], [], [], (), (), (), (), import_type=2)
    assert empty.column(empty.names) == [] and empty.imports == ()


@pytest.mark.parametrize("resolved", [False, True], ids=["pending", "resolved"])
def test_insert_edges_writes_every_row_in_order_across_statement_and_buffer_boundaries(monkeypatch, resolved):
    # insert_edges lays rows out flat and streams them EDGE_ROWS to a statement, the leftover
    # one by one; files of every size around those boundaries, with the buffer made small so
    # that it is emptied mid-stream too, must give the rows and rowid ranges of a plain loop.
    import sqlite3
    from cruxe import store
    from cruxe.model import EdgeBlock
    from cruxe.store import writer
    monkeypatch.setattr(writer, "_FLAT_MAX", 2 * store.EDGE_ROWS * 10)
    db = sqlite3.connect(":memory:", isolation_level=None)
    db.executescript(store._INDEX_SCHEMA)
    sizes = [0, 1, store.EDGE_ROWS - 1, store.EDGE_ROWS, store.EDGE_ROWS + 1, 3 * store.EDGE_ROWS + 5, 7, 0, 130]
    edges, outcomes, want = [], [], []
    paths = [f"f{i}.py" for i in range(len(sizes))]
    ids = store.file_ids(db, paths)
    for path, n in zip(paths, sizes):
        syms = [bytes([len(edges), k]) * 4 for k in range(3)]
        froms = [k % 4 - 1 for k in range(n)]  # -1: no enclosing symbol
        block = EdgeBlock.of(bytes(k % 3 for k in range(n)), list(range(1, n + 1)), froms, syms,
                             tuple(f"n{k}" for k in range(n)), tuple("m" if k % 5 == 0 else "" for k in range(n)),
                             tuple("r" if k % 2 else "" for k in range(n)), tuple("a" if k % 7 == 1 else "" for k in range(n)))
        to = [syms[k % 3] if k % 2 else None for k in range(n)]
        conf = bytes(k % 9 for k in range(n))
        edges.append((path, block))
        outcomes.append((to, conf))
        for k in range(n):
            want.append((syms[froms[k]] if froms[k] >= 0 else None, to[k] if resolved else None, f"n{k}", k % 3,
                         ids[path], k + 1, conf[k] if resolved else None, "m" if k % 5 == 0 else None,
                         "r" if k % 2 else None, "a" if k % 7 == 1 else None))
    store.insert_edges(db, edges, ids, outcomes if resolved else None)
    assert db.execute("SELECT * FROM symbol_edges ORDER BY rowid").fetchall() == want
    assert [r[0] for r in db.execute("SELECT rowid FROM symbol_edges ORDER BY rowid")] == list(range(1, len(want) + 1))
    spans, lo = [], 1
    for path, n in zip(paths, sizes):
        spans.append((path, lo, lo + n - 1) if n else (path, None, None))
        lo += n
    assert db.execute("SELECT path, edge_lo, edge_hi FROM paths ORDER BY id").fetchall() == spans


def test_files_left_by_a_tantivy_commit_killed_midway_do_not_break_the_next_commit(make_repo):
    # A writer killed inside its commit leaves files the meta never took up (a segment's
    # `<id>.<opstamp>.del`); the next writer starts from the same meta, so its commit wants
    # the same names. Simulated by a commit whose meta.json is then put back as it was.
    from cruxe.model import file_key
    from cruxe.store import INDEX_NAMES, Generation, GenerationWriter
    root = make_repo({f"m{i}.py": f"def fn_{i}():\n    return {i}\n" for i in range(4)})
    run_index(root)
    project = open_project(root)
    gen = project.store.current_generation("live")
    metas = {n: (gen.path / n / "meta.json").read_bytes() for n in INDEX_NAMES}
    writer = GenerationWriter(gen, project.id, "live")
    writer.delete_file_docs(file_key(project.id, "live", "m1.py"))
    writer.commit_tantivy()
    writer.close()
    left = {n: sorted(p.name for p in (gen.path / n).iterdir()) for n in INDEX_NAMES}
    for n, meta in metas.items():  # the kill: the new meta never replaced the old one
        (gen.path / n / "meta.json").write_bytes(meta)
    assert any(name.endswith(".del") for names in left.values() for name in names)
    again = Generation(gen.path, gen.number)
    writer = GenerationWriter(again, project.id, "live")
    writer.delete_file_docs(file_key(project.id, "live", "m1.py"))
    writer.commit_tantivy()  # FileAlreadyExists(...del) without the clean-up at open
    writer.close()
    # as after a real kill, the file in flight is one the manifest still holds with its old hash
    (root / "m1.py").write_text("def fn_1():\n    return 11\n")
    report = run_index(root)
    assert report.status == "published" and report.changed_files == 1

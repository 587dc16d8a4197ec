"""find_references and edge resolution: hand-written fixtures with expected references per
language, spec 04's unresolved_count scenarios, not-found / zero / ambiguous, incremental
syncs that move or delete symbols, and recovery from a job killed before resolution."""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cruxe.errors import CruxeError
from cruxe.index import run_index
from cruxe.model import is_non_source_path
from cruxe.project import open_project
import cruxe.index
import cruxe.refs
from cruxe.refs import find_references, resolve_edges
from cruxe.refs import resolve as resolve_mod
from cruxe.refs.find import MAX_CONTEXT_CHARS
from cruxe.store import EDGES_RESOLVER_KEY, edges_deferred

from support.locations import FIXTURES, GO_STRINGS, RUST_REGEX, STDLIB
from support.repos import POOL_REPO

REFS = FIXTURES / "refs"


# ---- helpers ---------------------------------------------------------------------------------

def indexed(root: Path):
    run_index(root)
    project = open_project(root)
    return project, project.store.current_generation("live")


def default_refs(root: Path, name: str, **kw) -> dict:
    project = open_project(root)
    gen = project.store.current_generation("live")
    return find_references(gen, project.id, "live", name, **kw)


def refs(root: Path, name: str, **kw) -> dict:
    """The answer with every reference listed: without `kind`, the default answer folds an
    import line into its file's other references to the target (test_refs_callers.py), and
    this module checks the resolution of every edge, so the imports are asked for too."""
    ans = default_refs(root, name, **kw)
    if kw.get("kind") is None and ans.get("imports_folded"):
        imports = default_refs(root, name, **{**kw, "kind": "imports"})["references"]
        listed = {(p, line) for p, line, _ in sites(ans)}
        ans["references"] = sorted(ans["references"] + [r for r in imports if (r["path"], r["line_start"]) not in listed],
                                   key=lambda r: (is_non_source_path(r["path"]), r["path"], r["line_start"]))
        ans["test_references"] = ans.get("test_references", []) + \
            default_refs(root, name, **{**kw, "kind": "imports"}).get("test_references", [])
        ans["total_references"] += ans.pop("imports_folded")
    return ans


def sites(answer: dict) -> list[list]:
    """Every listed site, the test code's (`test_references`, by file) included."""
    return [[r["path"], r["line_start"], r["edge_type"]] for r in answer["references"]] + \
        [[t["path"], line, t["edge_type"]] for t in answer.get("test_references", ()) for line in t["lines"]]


def edge_table(root: Path) -> list[tuple]:
    """Every edge with its resolution, keyed by what does not depend on row order."""
    project = open_project(root)
    gen = project.store.current_generation("live")
    rows = gen.db.execute('SELECT source_file, source_line, edge_type, to_name, coalesce(receiver, ""), '
                          'coalesce(to_symbol_id, ""), coalesce(confidence, "") FROM edges')
    return sorted(tuple(r) for r in rows)


def indexed_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    """A repository of `files` (path -> text), indexed."""
    root = tmp_path / "repo"
    root.mkdir()
    for rel, body in files.items():
        (root / rel).write_text(body)
    run_index(root)
    return root


def ref_sites(root: Path, name: str, path: str) -> tuple[list[tuple[str, int]], int]:
    """(path, line) of the references of `name` defined in `path`, and the unresolved count."""
    got = refs(root, name, path=path)
    return [(r["path"], r["line_start"]) for r in got["references"]], got["unresolved_count"]


def copy_fixture(tmp_path: Path, lang: str) -> Path:
    dst = tmp_path / lang
    shutil.copytree(REFS / lang, dst)
    return dst


def expected(lang: str) -> dict[str, list]:
    return json.loads((REFS / f"{lang}.expected.json").read_text())["references"]


# ---- fixtures with expected answers -----------------------------------------------------------

@pytest.mark.parametrize("lang", ["python", "go", "typescript", "rust", "rust_reexport"])
def test_fixture_references_match_the_hand_checked_answers(tmp_path, lang):
    root = copy_fixture(tmp_path, lang)
    indexed(root)
    for key, want in expected(lang).items():
        qname, path = key.split(" @ ")
        got = refs(root, qname, path=path, limit=500)
        assert sorted(sites(got)) == sorted(want), key
        # the default answer: each file's import line folded when the file uses the target otherwise
        used = {p for p, _, kind in want if kind != "imports"}
        default = default_refs(root, qname, path=path, limit=500)
        assert sorted(sites(default)) == sorted(s for s in want if s[2] != "imports" or s[0] not in used), key
        assert got["symbol"]["qualified_name"] == qname and got["symbol"]["path"] == path


def test_references_carry_enclosing_symbol_and_source_line(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    got = refs(root, "shop.util.helper", path="shop/util.py")
    by_site = {(r["path"], r["line_start"]): r for r in got["references"]}
    assert by_site[("shop/models.py", 15)]["from_symbol"] == "shop.models.Order.total"
    assert by_site[("shop/models.py", 15)]["context"] == "return fmt(helper(1))"
    assert by_site[("shop/models.py", 1)]["from_symbol"] is None  # module level
    assert by_site[("app/main.py", 10)]["context"] == "u.helper(2)"


def test_parameter_and_local_names_do_not_reference_module_symbols(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    order = sites(refs(root, "Order", path="shop/models.py"))
    assert not [s for s in order if s[0] == "app/main.py" and s[1] in (19, 20)]  # `Order = None` in a function


def test_uses_of_a_module_binding_are_no_references_to_a_symbol_of_that_name(make_repo):
    # `signals` in use.py is the module bound by `import signals` (and `sig` by `import x.signals
    # as sig`): the function `signals` in other.py is not what it names, so neither a reference
    # nor an unresolved one; nor are the import statements, which the resolver tied to the module
    # (they had counted as 2 unresolved). `signals.send`, an attribute read, stays a reference of
    # `send`; a name that is also imported by `from` or defined in the file keeps its uses.
    root = make_repo({
        "signals.py": "def send():\n    pass\n",
        "other.py": "def signals():\n    pass\n\n\ndef sig():\n    pass\n\n\ndef both():\n    pass\n",
        "x/__init__.py": "", "x/signals.py": "",
        "use.py": "import signals\nimport x.signals as sig\nimport both\nfrom other import both\n\n\n"
                  "def f():\n    g(signals, sig)\n    return signals.send, both\n",
    })
    indexed(root)
    got = refs(root, "signals", path="other.py")
    assert (got["references"], got["unresolved_count"]) == ([], 0)
    assert refs(root, "sig", path="other.py")["unresolved_count"] == 0
    assert sites(refs(root, "send")) == [["use.py", 9, "references"]]
    assert [9] == [r["line_start"] for r in refs(root, "both", path="other.py")["references"] if r["path"] == "use.py"
                   and r["edge_type"] == "references"]


@pytest.mark.parametrize("lang, name, qualified", [
    ("go", "Process", "dup.Csv.Process"), ("typescript", "process", "handlers.Csv.process"),
    ("rust", "process", "handlers::Json::process")])
def test_a_call_that_fits_two_methods_is_counted_not_guessed(tmp_path, lang, name, qualified):
    root = copy_fixture(tmp_path, lang)
    indexed(root)
    with pytest.raises(CruxeError) as e:
        refs(root, name)
    assert e.value.code == "ambiguous_symbol"
    assert qualified in [d["qualified_name"] for d in e.value.data["definitions"]]
    got = refs(root, qualified)
    assert got["unresolved_count"] == 1


def test_same_method_name_in_two_classes_stays_unresolved(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    with pytest.raises(CruxeError) as e:
        refs(root, "process")
    assert e.value.code == "ambiguous_symbol"
    defs = e.value.data["definitions"]
    assert [d["qualified_name"] for d in defs] == ["app.handlers.Csv.process", "app.handlers.Json.process"]
    csv = refs(root, "Csv.process")
    assert csv["references"] == [] and csv["total_references"] == 0
    assert csv["unresolved_count"] == 1  # `handler.process()`: either class, never guessed


def test_python_star_imports_and_package_reexports_resolve(make_repo):
    root = make_repo({"pkg/__init__.py": "from .impl import *\n",
                      "pkg/impl.py": "__all__ = ['run']\n\n\ndef run():\n    pass\n",
                      "main.py": "from pkg import *\nimport pkg as p\n\nrun()\np.run()\n"})
    indexed(root)
    assert sites(refs(root, "run")) == [["main.py", 4, "calls"], ["main.py", 5, "calls"]]


# ---- spec 04: unresolved_count -----------------------------------------------------------------

def test_unresolved_count_reported_beside_resolved_references(make_repo):
    root = make_repo(POOL_REPO)
    indexed(root)
    got = refs(root, "createPool")
    assert sites(got) == [["app.py", 1, "imports"], ["app.py", 5, "calls"], ["app.py", 9, "calls"]]
    assert got["total_references"] == 3
    assert got["unresolved_count"] == 5  # 2 unresolved calls + 3 unresolved imports


def test_unresolved_count_spans_edge_types_and_follows_the_kind_filter(make_repo):
    root = make_repo(POOL_REPO)
    indexed(root)
    assert refs(root, "createPool", kind="calls")["unresolved_count"] == 2
    assert refs(root, "createPool", kind="imports")["unresolved_count"] == 3
    assert sites(refs(root, "createPool", kind="imports")) == [["app.py", 1, "imports"]]


def test_zero_unresolved_count_is_explicit(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    got = refs(root, "format_price")
    assert got["total_references"] == 3
    assert "unresolved_count" in got and got["unresolved_count"] == 0


def test_unresolved_count_is_case_sensitive_and_escapes_like_wildcards(make_repo):
    root = make_repo({"m.py": "def run_x():\n    pass\n",
                      "u.py": "def f(o):\n    o.Run_x()\n    o.runAx()\n    o.run_x()\n"})
    indexed(root)
    assert refs(root, "run_x")["unresolved_count"] == 1  # not Run_x, not runAx (`_` is no wildcard)


# ---- the target: not found, zero, ambiguous, qualified ---------------------------------------

def test_not_found_versus_zero_references_versus_ambiguous(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    with pytest.raises(CruxeError) as e:
        refs(root, "no_such_symbol")
    assert e.value.code == "symbol_not_found"
    zero = refs(root, "unused")
    assert (zero["references"], zero["total_references"], zero["unresolved_count"]) == ([], 0, 0)
    assert "truncated" not in zero
    with pytest.raises(CruxeError) as e:
        refs(root, "validate")
    assert e.value.code == "ambiguous_symbol" and e.value.data["definition_count"] == 2
    by_path = refs(root, "Base.validate")
    assert by_path["symbol"]["qualified_name"] == "shop.models.Base.validate"
    with pytest.raises(CruxeError) as e:
        refs(root, "helper", path="app/main.py")
    assert e.value.code == "symbol_not_found"
    # defined, only elsewhere: the definitions are listed with the arguments that pick each, and those work
    listed = e.value.data["definitions"]
    assert listed and all(d["name"] == "helper" and d["path"] != "app/main.py" for d in listed)
    picked = dict(listed[0]["arguments"])
    assert refs(root, picked.pop("symbol_name"), **picked)["symbol"]["path"] == listed[0]["path"]
    with pytest.raises(CruxeError) as e:
        refs(root, "no_such_symbol", path="app/main.py")
    assert "definitions" not in e.value.data


def test_symbol_not_found_still_reports_unresolved_uses_of_the_name(make_repo):
    root = make_repo({"a.py": "from requests import get\n\n\ndef f():\n    return get('x')\n"})
    indexed(root)
    with pytest.raises(CruxeError) as e:
        refs(root, "get")
    assert e.value.code == "symbol_not_found" and e.value.data["unresolved_count"] == 2


def test_limit_truncates_in_path_line_order(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    full = default_refs(root, "Order", path="shop/models.py")
    page = default_refs(root, "Order", path="shop/models.py", limit=2)
    assert page["references"] == full["references"][:2]
    assert page["truncated"] is True and page["total_references"] == full["total_references"]
    assert [(r["path"], r["line_start"]) for r in full["references"]] == \
        sorted((r["path"], r["line_start"]) for r in full["references"])


def test_invalid_arguments(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    for name, kw in (("helper", {"kind": "writes"}), ("helper", {"limit": 0}), ("helper", {"path": "../outside.py"}),
                     ("``", {}), (" :: ", {})):
        with pytest.raises(CruxeError) as e:
            refs(root, name, **kw)
        assert e.value.code == "invalid_input", (name, kw)


def test_context_is_one_clipped_line_from_the_index(make_repo):
    long_call = "helper(" + ", ".join(f"argument_{i}" for i in range(40)) + ")"
    root = make_repo({"h.py": "def helper(*a):\n    pass\n", "u.py": f"from h import helper\n{long_call}\n"})
    indexed(root)
    (root / "u.py").write_text("# the file changed on disk after indexing\n")
    ctx = {r["line_start"]: r["context"] for r in refs(root, "helper")["references"]}
    assert ctx[1] == "from h import helper"
    assert len(ctx[2]) == MAX_CONTEXT_CHARS and ctx[2].startswith("helper(argument_0")


def test_no_edges_available_until_resolution_has_run(tmp_path):
    root = copy_fixture(tmp_path, "python")
    project, gen = indexed(root)
    gen.db.execute("DELETE FROM meta WHERE key=?", (EDGES_RESOLVER_KEY,))
    with pytest.raises(CruxeError) as e:
        refs(root, "helper")
    assert e.value.code == "no_edges_available"


# ---- incremental syncs -----------------------------------------------------------------------

def test_moving_the_callee_keeps_its_references(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    before = refs(root, "shop.util.helper", path="shop/util.py")
    util = root / "shop" / "util.py"
    util.write_text("# a comment line moves every symbol\n\n" + util.read_text())
    run_index(root)
    after = refs(root, "shop.util.helper", path="shop/util.py")
    assert after["symbol"]["line_start"] == before["symbol"]["line_start"] + 2
    assert after["symbol"]["symbol_id"] != before["symbol"]["symbol_id"]
    assert sites(after) == sites(before) and after["unresolved_count"] == before["unresolved_count"]


def test_deleting_the_caller_removes_its_references(tmp_path):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    (root / "app" / "main.py").unlink()
    run_index(root)
    assert sites(refs(root, "Order", path="shop/models.py")) == [["shop/__init__.py", 2, "imports"]]


def test_a_second_definition_makes_a_unique_name_ambiguous_and_back(tmp_path):
    root = copy_fixture(tmp_path, "python")
    (root / "app" / "extra.py").write_text("def use(x):\n    return x.total()\n")
    indexed(root)
    # `x.total()`: the one `total`; `o.total()` (main.py:9, `o = Order()`) is Order's by its type
    typed, untyped = ["app/main.py", 9, "calls"], ["app/extra.py", 2, "calls"]
    assert typed in sites(refs(root, "Order.total")) and untyped in sites(refs(root, "Order.total"))
    (root / "app" / "cart.py").write_text("class Cart:\n    def total(self):\n        return 0\n")
    run_index(root)
    assert typed in sites(refs(root, "Order.total")) and untyped not in sites(refs(root, "Order.total"))
    assert refs(root, "Order.total")["unresolved_count"] == 1
    (root / "app" / "cart.py").unlink()
    run_index(root)
    assert typed in sites(refs(root, "Order.total")) and untyped in sites(refs(root, "Order.total"))


def test_incremental_syncs_give_the_edges_of_a_clean_index(tmp_path, monkeypatch):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    models = root / "shop" / "models.py"
    models.write_text(models.read_text().replace("class Order(Base):", "\n\nclass Order(Base):"))
    (root / "shop" / "util.py").write_text("def helper(x):\n    return x\n")  # format_price gone
    (root / "app" / "extra.py").write_text("from shop.util import format_price\nformat_price(1)\n")
    run_index(root)
    synced = edge_table(root)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "clean_home"))
    run_index(root)
    assert synced == edge_table(root)


def edge_ranges_are_exact(root: Path) -> None:
    """Each file's edges are exactly the rows of its recorded rowid range (deletes rely on it)."""
    project = open_project(root)
    db = project.store.current_generation("live").db
    outside = db.execute("SELECT COUNT(*) FROM symbol_edges e JOIN paths f ON f.id = e.file_id "
                         "WHERE f.edge_lo IS NULL OR e.rowid NOT BETWEEN f.edge_lo AND f.edge_hi").fetchone()[0]
    foreign = db.execute("SELECT COUNT(*) FROM paths f JOIN symbol_edges e ON e.rowid BETWEEN f.edge_lo AND f.edge_hi "
                         "WHERE e.file_id <> f.id").fetchone()[0]
    assert (outside, foreign) == (0, 0)


@pytest.mark.slow
def test_edge_ranges_stay_exact_through_random_edits_and_syncs(copy_corpus, tmp_path, monkeypatch):
    root = copy_corpus(STDLIB / "email", "email")
    indexed(root)
    files = sorted(root.rglob("*.py"))
    rng = random.Random(5)
    for _ in range(6):
        for p in rng.sample(files, 6):
            if not p.exists():
                continue
            action = rng.choice(["grow", "shrink", "delete"])
            if action == "delete":
                p.unlink()
            else:
                text = p.read_text()
                p.write_text(text + "\n\ndef grown():\n    return grown()\n" if action == "grow"
                             else text[: len(text) // 2].rsplit("\n", 1)[0] + "\n")
        run_index(root)
        edge_ranges_are_exact(root)
    synced = edge_table(root)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "clean_home"))
    run_index(root)
    assert synced == edge_table(root)


# ---- crashes ---------------------------------------------------------------------------------

def test_a_job_that_dies_before_resolution_is_finished_by_the_next_sync(tmp_path, monkeypatch):
    root = copy_fixture(tmp_path, "python")
    indexed(root)
    (root / "shop" / "util.py").write_text("\n" + (root / "shop" / "util.py").read_text())

    def die(*a, **k):
        raise KeyboardInterrupt  # the process stops after the batches committed, before resolving

    with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
        m.setattr(resolve_mod, "_resolve_all", die)
        run_index(root)
    pending = refs(root, "shop.util.helper", path="shop/util.py")
    # meanwhile: nothing claimed that is not known; the invalidated edges count as unresolved
    assert pending["total_references"] + pending["unresolved_count"] >= 4
    run_index(root)  # nothing changed on disk: the sync finishes the resolution
    after = refs(root, "shop.util.helper", path="shop/util.py")
    assert len(after["references"]) == 4
    recovered = edge_table(root)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "clean_home"))
    run_index(root)
    assert recovered == edge_table(root)


# A child that runs `cruxe index` and is SIGKILLed by itself at a chosen moment: right after
# the batches committed, before any edge is resolved (the window this design must survive).
_KILL_BEFORE_RESOLVING = (
    "import os, signal, sys\n"
    "import cruxe.refs.resolve as r\n"
    "r._resolve_all = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
    "from cruxe.__main__ import main\n"
    "sys.exit(main(sys.argv[1:]))\n")


def _killed_index(root: Path, env: dict) -> None:
    proc = subprocess.run([sys.executable, "-c", _KILL_BEFORE_RESOLVING, "index", "--path", str(root), "--quiet",
                           "--workers", "1"], env=env, capture_output=True)
    assert proc.returncode == -signal.SIGKILL


def _clean_edges(root: Path, home: Path) -> list[tuple]:
    os.environ["CRUXE_HOME"], saved = str(home), os.environ["CRUXE_HOME"]
    try:
        run_index(root)
        return edge_table(root)
    finally:
        os.environ["CRUXE_HOME"] = saved


@pytest.mark.parametrize("first", [True, False], ids=["first-index", "sync"])
def test_sigkill_before_resolution_then_sync_gives_the_edges_of_a_clean_index(copy_corpus, tmp_path, first):
    root = copy_corpus(STDLIB / "json", "json")
    env = {**os.environ, "CRUXE_INDEX_BATCH_FILES": "2"}
    if not first:
        run_index(root)
        dec = root / "decoder.py"
        dec.write_text("\n\n" + dec.read_text())  # every decoder symbol moves
    _killed_index(root, env)
    if first:
        with pytest.raises(CruxeError) as e:
            refs(root, "JSONDecoder")
        assert e.value.code == "no_edges_available"  # partial data: never a confident zero
    sync = subprocess.run([sys.executable, "-m", "cruxe", "sync", "--path", str(root), "--quiet"], env=env,
                          capture_output=True, text=True)
    assert sync.returncode == 0, sync.stderr
    assert edge_table(root) == _clean_edges(root, tmp_path / "clean_home")


def edge_indexes(root: Path) -> list[str]:
    gen = open_project(root).store.current_generation("live")
    return [r[0] for r in gen.db.execute("SELECT name FROM sqlite_master WHERE type='index' "
                                         "AND tbl_name='symbol_edges' ORDER BY name")]


@pytest.mark.slow
@pytest.mark.parametrize("bulk", [False, True], ids=["indexes-kept", "indexes-deferred"])
def test_sigkill_at_a_random_moment_then_sync_gives_the_edges_of_a_clean_index(copy_corpus, tmp_path, bulk):
    # A first build of many files drops the edge indexes and builds them at its end: a kill
    # in between must leave the next sync to build them, over the same edges.
    root = copy_corpus(STDLIB / "email", "email")
    env = {**os.environ, "CRUXE_INDEX_BATCH_FILES": "4", "CRUXE_INDEX_BULK_MIN_FILES": "1" if bulk else "100000"}
    proc = subprocess.Popen([sys.executable, "-m", "cruxe", "index", "--path", str(root), "--quiet",
                             "--workers", "1"], env=env)
    time.sleep(1.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    sync = subprocess.run([sys.executable, "-m", "cruxe", "sync", "--path", str(root), "--quiet"], env=env,
                          capture_output=True, text=True)
    assert sync.returncode == 0, sync.stderr
    assert edge_indexes(root) == ["se_pending", "se_tail", "se_to"]
    assert edge_table(root) == _clean_edges(root, tmp_path / "clean_home")


@pytest.mark.slow
def test_bulk_build_that_dies_holding_its_edges_is_started_over(copy_corpus, tmp_path, monkeypatch):
    # A bulk build keeps its edges in memory until its resolution inserts them: dying before
    # that leaves indexed files without edges, marked; the next job must start over.
    root = copy_corpus(STDLIB / "json", "json")
    monkeypatch.setattr(cruxe.index, "BATCH_FILES", 2)
    monkeypatch.setattr(cruxe.index, "BULK_MIN_FILES", 1)
    import cruxe.refs.resolve as resolve_mod
    real = resolve_mod.resolve_spool
    monkeypatch.setattr(resolve_mod, "resolve_spool", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        run_index(root)
    gen = open_project(root).store.current_generation("live")
    assert gen.db.execute("SELECT count(*) FROM file_manifest").fetchone()[0] > 0
    assert gen.db.execute("SELECT count(*) FROM symbol_edges").fetchone()[0] == 0
    assert edges_deferred(gen.db)
    with pytest.raises(CruxeError) as e:
        refs(root, "JSONDecoder")
    assert e.value.code == "no_edges_available"  # never a confident zero
    monkeypatch.setattr(resolve_mod, "resolve_spool", real)
    report = run_index(root)
    assert any("started over" in w for w in report.warnings)
    assert report.mode == "full"  # said as it is: every file was indexed again
    assert open_project(root).store.jobs("live", 1)[0]["mode"] == "full"
    assert not edges_deferred(gen.db)
    assert edge_indexes(root) == ["se_pending", "se_tail", "se_to"]
    assert edge_table(root) == _clean_edges(root, tmp_path / "clean_home")
    assert symbol_rows(root) == symbol_rows(root, tmp_path / "clean_home")


def test_bulk_build_past_its_spool_limit_writes_pending_edges_and_goes_on(copy_corpus, tmp_path, monkeypatch):
    root = copy_corpus(STDLIB / "json", "json")
    monkeypatch.setattr(cruxe.index, "BATCH_FILES", 2)
    monkeypatch.setattr(cruxe.index, "BULK_MIN_FILES", 1)
    clean = _clean_edges(root, tmp_path / "clean_home")
    # the last batch with edges goes past the limit: the earlier ones were spooled, then no more
    monkeypatch.setattr(cruxe.index, "SPOOL_MAX_EDGES", len(clean) - 1)
    flushed = []
    real_flush = cruxe.index.flush_spool
    monkeypatch.setattr(cruxe.index, "flush_spool", lambda db, spool: flushed.append(len(spool)) or real_flush(db, spool))
    run_index(root)
    assert len(flushed) == 1 and flushed[0] > 0
    assert not edges_deferred(open_project(root).store.current_generation("live").db)
    assert edge_table(root) == clean


def symbol_rows(root: Path, home: Path | None = None) -> list[tuple]:
    saved = os.environ["CRUXE_HOME"]
    if home is not None:
        os.environ["CRUXE_HOME"] = str(home)
    try:
        gen = open_project(root).store.current_generation("live")
        return sorted(tuple(r) for r in gen.db.execute("SELECT symbol_id, name, path, line_start FROM symbol_relations"))
    finally:
        os.environ["CRUXE_HOME"] = saved


def test_bulk_build_into_a_generation_first_indexed_empty(tmp_path, monkeypatch):
    # An empty repository is indexed (and its nothing resolved); files arrive, and the next
    # job is a bulk build with deferred edge indexes: its resolution must be the full one.
    root = tmp_path / "repo"
    root.mkdir()
    run_index(root)
    (root / "a.py").write_text("def helper():\n    return 1\n")
    (root / "b.py").write_text("from a import helper\nhelper()\n")
    monkeypatch.setattr(cruxe.index, "BULK_MIN_FILES", 1)
    run_index(root)
    assert edge_indexes(root) == ["se_pending", "se_tail", "se_to"]
    assert ref_sites(root, "helper", "a.py")[0] == [("b.py", 1), ("b.py", 2)]


@pytest.mark.slow
def test_bulk_build_with_parallel_resolution_gives_the_edges_of_the_plain_one(copy_corpus, tmp_path, monkeypatch):
    # The first build of a large repository defers the edge indexes and resolves in worker
    # processes: the same edges, resolutions and indexes as the in-process path.
    root = copy_corpus(STDLIB / "email", "email")
    monkeypatch.setattr(cruxe.index, "BULK_MIN_FILES", 1)
    monkeypatch.setattr(resolve_mod, "PARALLEL_EDGES", 0)
    monkeypatch.setattr(resolve_mod, "STREAM_EDGES", 500)  # several chunks over the workers
    monkeypatch.setattr(resolve_mod.os, "cpu_count", lambda: 2)
    spawned = []
    real_pool = resolve_mod.worker_pool
    monkeypatch.setattr(resolve_mod, "worker_pool", lambda n, *a: spawned.append(n) or real_pool(n, *a))
    run_index(root)
    assert spawned == [2]  # the chunks went to two worker processes
    fast = edge_table(root)
    assert edge_indexes(root) == ["se_pending", "se_tail", "se_to"]
    assert sum(1 for e in fast if e[5]) > 500  # resolved edges from several chunks
    # a full resolution of the edges in the table (new rules) in workers: the same again
    gen = open_project(root).store.current_generation("live")
    with gen.db:
        gen.db.execute("UPDATE symbol_edges SET to_symbol_id=NULL, confidence=NULL")
        gen.db.execute("DELETE FROM meta WHERE key=?", (EDGES_RESOLVER_KEY,))
    run_index(root)
    assert spawned == [2, 2] and edge_table(root) == fast
    # parsed in a pool too: the resolution still goes to workers of its own
    monkeypatch.setattr(cruxe.index, "INLINE_MAX_FILES", 1)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "pool_home"))
    run_index(root)
    assert spawned == [2, 2, 2] and edge_table(root) == fast
    monkeypatch.setattr(cruxe.index, "BULK_MIN_FILES", 10**9)
    monkeypatch.setattr(resolve_mod, "PARALLEL_EDGES", 10**9)
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "plain_home"))
    run_index(root)
    assert fast == edge_table(root)


# ---- a small real corpus ---------------------------------------------------------------------

def test_stdlib_json_references_are_consistent(copy_corpus):
    root = copy_corpus(STDLIB / "json", "json")
    project, gen = indexed(root)
    # every resolved edge points at a symbol whose name is the edge's last name segment
    bad = gen.db.execute(
        "SELECT e.to_name, s.name FROM edges e JOIN symbol_relations s ON s.symbol_id = e.to_symbol_id "
        "WHERE e.to_tail <> s.name AND e.edge_type <> 'imports'").fetchall()
    assert bad == []
    dangling = gen.db.execute("SELECT COUNT(*) FROM symbol_edges e WHERE to_symbol_id IS NOT NULL AND NOT EXISTS "
                              "(SELECT 1 FROM symbols s WHERE s.symbol_id = e.to_symbol_id)").fetchone()[0]
    assert dangling == 0
    # json/__init__.py imports JSONDecodeError from .decoder (true of every CPython 3 release)
    got = refs(root, "JSONDecodeError", path="decoder.py")
    assert ["__init__.py", got["references"][0]["line_start"], "imports"] in sites(got)
    again = refs(root, "JSONDecodeError", path="decoder.py")
    assert json.dumps(again, sort_keys=True) == json.dumps(got, sort_keys=True)


@pytest.mark.slow
@pytest.mark.parametrize("corpus", [GO_STRINGS, RUST_REGEX], ids=["go-strings", "rust-regex"])
def test_real_corpora_resolve_to_symbols_of_the_same_name(copy_corpus, corpus):
    root = copy_corpus(corpus)
    project, gen = indexed(root)
    resolved = gen.db.execute("SELECT COUNT(*) FROM symbol_edges WHERE to_symbol_id IS NOT NULL").fetchone()[0]
    assert resolved > 100
    bad = gen.db.execute(
        "SELECT e.source_file, e.source_line, e.to_name, s.name FROM edges e "
        "JOIN symbol_relations s ON s.symbol_id = e.to_symbol_id "
        "WHERE e.to_tail <> s.name AND e.edge_type <> 'imports'").fetchall()
    assert bad == []
    pending = gen.db.execute("SELECT COUNT(*) FROM symbol_edges WHERE confidence IS NULL").fetchone()[0]
    assert pending == 0


def test_preloaded_graph_lists_symbols_in_the_order_of_the_lazy_reads(tmp_path):
    """`Graph.preload` reads the table in its own order and sorts only what is out of order:
    definitions sharing a line, and a synced file whose rows now sit at the end."""
    from cruxe.refs.graph import Graph

    files = {f"m{i}.py": "shared = 1\n\ndef f():\n    pass\n\nclass C:\n    p = 0\n" for i in range(4)}
    files["t.py"] = "a = b = 1\nX, Y = 1, 2\n\nclass D:\n    p = q = 0\n"  # definitions sharing a line
    root = indexed_repo(tmp_path, files)
    (root / "m0.py").write_text("shared = 2\ndef f(): pass\nclass C: pass\n")  # no two on a line
    run_index(root)
    project = open_project(root)
    db = project.store.current_generation("live").db
    stored = [r[0] for r in db.execute("SELECT f.path FROM symbols s JOIN paths f ON f.id = s.file_id ORDER BY s.rowid")]
    assert stored != sorted(stored)  # m0.py's rows come last: the case that needs sorting
    full, lazy = Graph(db, project.id, "live"), Graph(db, project.id, "live")
    full.preload([])
    names = {r[0] for r in db.execute("SELECT name FROM symbols")}
    assert {"shared", "a", "b", "X", "Y", "p", "q"} <= names
    for path in sorted(files):
        assert full.in_file(path) == lazy.in_file(path)
    for name in sorted(names):
        assert full.named(name) == lazy.named(name) and len(full.named(name)) >= 1
    for sym in (s for path in sorted(files) for s in full.in_file(path)):
        assert full.get(sym.id) == sym


@pytest.mark.parametrize("refused", [False, True])
def test_resolution_workers_lower_their_priority_or_go_on_when_refused(tmp_path, monkeypatch, refused):
    """A resolution worker renices itself before loading its graph (so the writer of the
    outcomes gets a core first); a system that refuses (or has no os.nice) changes nothing."""
    root = copy_fixture(tmp_path, "python")
    project, gen = indexed(root)
    asked = []

    def nice(n):
        asked.append(n)
        if refused:
            raise PermissionError("setpriority refused")
        return n
    monkeypatch.setattr(resolve_mod.os, "nice", nice)
    monkeypatch.setattr(resolve_mod.gc, "disable", lambda: None)  # this is the test process, not a worker
    monkeypatch.setattr(resolve_mod, "_worker_state", {})
    g, _ = resolve_mod._worker_graph(str(gen.path), gen.number, project.id, "live")
    assert asked == [resolve_mod.RESOLVER_NICENESS]
    assert g.named("format_price"), "the graph loaded all the same"


def test_resolve_edges_with_nothing_pending_changes_nothing(tmp_path):
    root = copy_fixture(tmp_path, "python")
    project, gen = indexed(root)
    before = edge_table(root)
    resolve_edges(gen, project.id, "live")
    assert edge_table(root) == before


def test_a_value_typed_by_its_own_namespace_member_resolves_without_recursing(tmp_path, caplog):
    """effect's McpServer.ts: `export const visibility: visibility.Make = ...` beside
    `namespace visibility { interface Make ... }`: looking up the declared type of
    `visibility` led back to `visibility` itself, and the resolver recursed until Python's
    limit (a RecursionError per edge, caught and logged with a huge traceback)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "mcp.ts").write_text(
        "export const visibility: visibility.Make = ((check: string) => 1) as any\n"
        "export declare namespace visibility {\n"
        "  export interface Make { (check: string): number; level: number }\n"
        "}\n"
        "export const lvl = visibility.level\n")
    with caplog.at_level("WARNING", logger="cruxe.refs.resolve"):
        run_index(root)
    assert not [r for r in caplog.records if "could not resolve" in r.getMessage()]
    edges = edge_table(root)
    assert edges and all(row[6] for row in edges), edges  # every edge got a resolution label


def test_typescript_calls_on_typed_locals_and_on_call_results_resolve_to_the_method(tmp_path):
    """rxjs shapes: `const s = new Subject<T>(); s.next()`, `let w: Subject<T> | null`,
    `this.getSubject().complete()` (a method whose signature writes its return type). A call
    on the result of something that writes no return type stays unresolved."""
    root = indexed_repo(tmp_path, {
        "subject.ts":
        "export class Subject<T> {\n"
        "  next(value: T): void {}\n"
        "  complete(): void {}\n"
        "}\n"
        "export class Other {\n"
        "  next(): void {}\n"
        "  complete(): void {}\n"
        "}\n",
        "use.ts":
        "import { Subject } from './subject';\n"
        "export class Holder<T> {\n"
        "  getSubject(): Subject<T> { return new Subject<T>(); }\n"
        "  untyped() { return new Subject<T>(); }\n"
        "  run(v: T) {\n"
        "    const s = new Subject<T>();\n"
        "    let w: Subject<T> | null = null;\n"
        "    s.next(v);\n"
        "    w!.next(v);\n"
        "    this.getSubject().complete();\n"
        "    this.untyped().complete();\n"
        "  }\n"
        "}\n"})
    assert ref_sites(root, "Subject.next", "subject.ts")[0] == [("use.ts", 8), ("use.ts", 9)]
    sites, unresolved = ref_sites(root, "Subject.complete", "subject.ts")
    assert sites == [("use.ts", 10)]
    assert unresolved >= 1  # line 11: two classes have `complete`; not claimed


def test_typescript_locals_from_calls_and_member_reads_and_optional_fields_resolve(tmp_path):
    """rxjs shapes: `const subject = this.getSubject(); subject.complete()`, `let c =
    this._connection; c.add()` and `this.source?.subscribe()` with `source: Observable<any> |
    undefined` (absent or that type). A field typed by a real union stays unresolved."""
    root = indexed_repo(tmp_path, {
        "subject.ts":
        "export class Subject<T> {\n"
        "  complete(): void {}\n"
        "  add(): void {}\n"
        "}\n"
        "export class Other {\n"
        "  complete(): void {}\n"
        "  add(): void {}\n"
        "}\n",
        "use.ts":
        "import { Subject, Other } from './subject';\n"
        "export class Holder<T> {\n"
        "  source: Subject<any> | undefined;\n"
        "  _connection: Subject<T> | null = null;\n"
        "  mixed: Subject<T> | Other;\n"
        "  getSubject(): Subject<T> { return new Subject<T>(); }\n"
        "  run() {\n"
        "    const subject = this.getSubject();\n"
        "    subject.complete();\n"
        "    let c = this._connection;\n"
        "    c!.add();\n"
        "    this.source?.complete();\n"
        "    this.mixed.complete();\n"
        "  }\n"
        "}\n"})
    sites, unresolved = ref_sites(root, "Subject.complete", "subject.ts")
    assert sites == [("use.ts", 9), ("use.ts", 12)]
    assert unresolved >= 1  # line 13: `Subject<T> | Other` says nothing for sure
    assert ref_sites(root, "Subject.add", "subject.ts")[0] == [("use.ts", 11)]
    assert ref_sites(root, "Other.complete", "subject.ts")[0] == []


def test_cli_lists_the_definitions_of_an_ambiguous_name(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def helper():\n    return 1\n")
    (root / "b.py").write_text("def helper():\n    return 2\n")
    run_index(root)
    proc = subprocess.run([sys.executable, "-m", "cruxe", "refs", "helper", "--path", str(root)],
                          capture_output=True, text=True, env=os.environ.copy())
    assert proc.returncode != 0 and "ambiguous_symbol" in proc.stderr
    assert "a.py:1\tfunction" in proc.stderr and "b.py:1\tfunction" in proc.stderr, proc.stderr
    assert "--file PATH" in proc.stderr


def test_typescript_callback_parameters_resolve_through_the_callee_signature(tmp_path):
    """rxjs: `operate((source, subscriber) => subscriber.next(v))` with `operate(init: (source:
    Observable<T>, subscriber: Subscriber<R>) => void)`, and `new Observable((subscriber) =>
    ...)` with `constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) =>
    void)`. A callee whose parameter is no function type leaves the call unresolved."""
    root = indexed_repo(tmp_path, {
        "sub.ts":
        "export class Subscriber<T> {\n"
        "  next(v: T): void {}\n"
        "  complete(): void {}\n"
        "}\n"
        "export class Other {\n"
        "  next(): void {}\n"
        "  complete(): void {}\n"
        "}\n"
        "export class Observable<T> {\n"
        "  constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => void) {}\n"
        "}\n"
        "export function operate<T, R>(init: (source: Observable<T>, subscriber: Subscriber<R>) => void): void {}\n"
        "export function loose(init: any): void {}\n",
        "use.ts":
        "import { Observable, operate, loose } from './sub';\n"
        "export function map<T>() {\n"
        "  operate((source, subscriber) => {\n"
        "    subscriber.next(1);\n"
        "  });\n"
        "  const o = new Observable<T>((subscriber) => { subscriber.complete(); });\n"
        "  loose((subscriber) => subscriber.complete());\n"
        "}\n"})
    assert ref_sites(root, "Subscriber.next", "sub.ts")[0] == [("use.ts", 4)]
    sites, unresolved = ref_sites(root, "Subscriber.complete", "sub.ts")
    assert sites == [("use.ts", 6)]
    assert unresolved >= 1  # line 7: `loose(init: any)` says nothing; two classes have `complete`
    assert ref_sites(root, "Other.complete", "sub.ts")[0] == []


@pytest.mark.parametrize("signature, name, declared", [
    ("source: Observable<any> | undefined", "source", "Observable"),
    ("protected _subject: Subject<T> | null", "_subject", "Subject"),
    ("def f(a: Foo | None = None)", "a", "Foo"),
    ("def f(a: Optional[Foo])", "a", "Foo"),
    ("destination: Subscriber<any> | Observer<any>", "destination", None),  # a real union
    ("x: Foo | undefinedish", "x", None),
    ("fn f(w: &'a mut io::Write)", "w", "io::Write"),
])
def test_declared_types_read_from_signatures(signature, name, declared):
    from cruxe.refs.common import Signatures
    assert Signatures().declared_type(signature, name) == declared


def test_rust_glob_import_of_no_module_is_not_a_resolver_error(tmp_path, caplog):
    # rs-stress (src/test/ui): `use *;` and `use ::*;` (2015 edition) name no module path; the
    # resolver used to fail on them ("could not resolve ... IndexError") for every bare name.
    root = indexed_repo(tmp_path, {"Cargo.toml": '[package]\nname = "g"\n',
                                   "main.rs": "use *;\nuse ::*;\nfn main() { swap(); helper(); }\nfn helper() {}\n"})
    assert "could not resolve" not in caplog.text
    assert ref_sites(root, "helper", "main.rs")[0] == [("main.rs", 3)]


def test_non_ascii_names_are_found_case_insensitively_and_referenced(make_repo):
    """SQLite's lower() folds ASCII only; the name index keeps Python's folding for the rest."""
    from cruxe.query.locate import locate_symbol
    root = make_repo({"geo.py": "class Größe:\n    pass\n\n\ndef ÉCOLE_run():\n    return Größe()\n",
                      "use.py": "from geo import ÉCOLE_run\n\nÉCOLE_run()\n"})
    project, gen = indexed(root)
    for query, want in [("größe", "Größe"), ("GRÖSSE", None), ("école_RUN", "ÉCOLE_run"), ("Größe", "Größe")]:
        hits, _ = locate_symbol(gen, project.id, "live", query)
        assert [h.name for h in hits] == ([want] if want else []), query
    assert sites(refs(root, "ÉCOLE_run")) == [["use.py", 1, "imports"], ["use.py", 3, "calls"]]
    assert sites(refs(root, "Größe")) == [["geo.py", 6, "calls"]]

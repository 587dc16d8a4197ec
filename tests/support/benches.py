"""The tests of bench code (the agent-task scoring, the extraction-recall runner) load it from
here: the one place that knows where the benches live and how they import each other."""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

from .locations import REPO_ROOT

BENCH = REPO_ROOT / "bench"
AGENT_TASKS = BENCH / "agent_tasks"


def load(path: Path) -> ModuleType:
    """The bench script at `path` as a module (its dataclasses look their module up in
    sys.modules, so it is registered there under its file name)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def agent_tasks(name: str) -> ModuleType:
    """A module of bench/agent_tasks, which import each other by bare name (`from corpora import`)."""
    if str(AGENT_TASKS) not in sys.path:
        sys.path.insert(0, str(AGENT_TASKS))
    return importlib.import_module(name)


# ---- the rules every agent-task file keeps (tasks.jsonl, holdout.jsonl, probes_*.jsonl) ----------

TOOL = {"definition": "locate_symbol", "concept": "search_code", "error": "search_code",
        "callers": "find_references"}
# holes a pasted message must not keep: {} {0} {name} {:?} %s %d %v %q %r ${...}
UNFILLED = re.compile(r"\{\}|\{\d+\}|\{[a-z_]+\}|\{:\??\}|%[sdvqr]\b|\$\{")
# anything that reads as code: snake_case, camelCase, dotted or :: paths, calls
CODE_TOKEN = re.compile(r"\b[a-z]+_[a-z_]+\b|\b[a-z]+[A-Z]\w*|\w\.\w|::|\w\(")


def assert_questions_avoid_names(concepts: list[dict]) -> None:
    """No code-like token, and none of the answers' names (whole or split into words)."""
    for t in concepts:
        q = t["query"].lower()
        assert not CODE_TOKEN.search(t["query"]), t["id"]
        for name in t["answer_names"]:
            spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").strip().lower()
            for form in {name.lower(), spaced}:
                assert not re.search(rf"\b{re.escape(form)}(s|es)?\b", q), (t["id"], name)


def assert_task_well_formed(t: dict) -> None:
    """One task's own fields: the kind's tool, expected spans inside the corpus, the tool's args."""
    assert t["kind"] in TOOL and t["subkind"] and t["tool"] == TOOL[t["kind"]], t["id"]
    assert t["query"].strip() and t["truth"].strip() and t["rg"] and t["rg"][-1].strip(), t["id"]
    assert t["expected"], t["id"]
    for e in t["expected"]:
        assert not e["path"].startswith(("/", "..")) and 1 <= e["line_start"] <= e["line_end"], t["id"]
    key = {"locate_symbol": "name", "search_code": "query"}.get(t["tool"])
    if key:
        assert t["args"] == {key: t["query"]}, t["id"]
    else:
        assert t["args"]["symbol_name"] and set(t["args"]) <= {"symbol_name", "path"}, t["id"]


def assert_probe_file(name: str, corpus: str) -> None:
    """A hand-written user-probe task file (`probes_<lang>.jsonl`, `probes2_<lang>.jsonl`) keeps the
    rules of agent_tasks/README.md: complete, balanced, split by the stated rule, concept
    questions free of their answers' names, pasted errors with their holes filled, callers
    outside test code."""
    import collections
    import copy
    import json
    common, corpora = agent_tasks("common"), agent_tasks("corpora")
    probes = [json.loads(line) for line in (AGENT_TASKS / name).read_text().splitlines() if line.strip()]
    assert len({t["id"] for t in probes}) == len(probes) >= 48
    per_kind = collections.Counter(t["kind"] for t in probes)
    assert all(per_kind[k] >= 12 for k in common.KINDS), per_kind
    assert {t["subkind"] for t in probes if t["kind"] == "definition"} == {"plain", "qualified", "ambiguous"}
    for t in probes:
        assert t["corpus"] == corpus and t["args"].get("symbol_name", t["query"]) == t["query"], t["id"]
        assert t["truth"].startswith(("read from the code", "written by reading")), t["id"]
        assert_task_well_formed(t)
    again = copy.deepcopy(probes)
    for t in again:
        t["split"] = None
    common.assign_splits(again)
    assert [t["split"] for t in again] == [t["split"] for t in probes]
    assert_questions_avoid_names([t for t in probes if t["kind"] == "concept"])
    errors = [t for t in probes if t["kind"] == "error"]
    assert sum(t["subkind"] != "literal" for t in errors) >= len(errors) // 2
    for t in errors:
        assert not UNFILLED.search(t["query"]) and t["rg"][0] == "-nF" and t["rg"][1] in t["query"], t["id"]
    for t in (t for t in probes if t["kind"] == "callers"):
        d = t["definition"]
        assert all(not corpora.is_test_path(e["path"]) for e in t["expected"]), t["id"]
        assert all((e["path"], e["line_start"]) != (d["path"], d["line"]) for e in t["expected"]), t["id"]

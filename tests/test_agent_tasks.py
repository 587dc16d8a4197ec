"""bench/agent_tasks/tasks.jsonl is well formed, and run.py scores the way its README says.

Fast: reads the task file and calls the scoring functions; nothing is indexed."""
from __future__ import annotations

import collections
import copy
import json

import pytest

from support.benches import (AGENT_TASKS as BENCH, UNFILLED, agent_tasks, assert_questions_avoid_names,
                             assert_task_well_formed)

common, corpora, run = (agent_tasks(name) for name in ("common", "corpora", "run"))
KINDS, CORPORA = common.KINDS, corpora.CORPORA
assign_splits, is_test_path, matches, score = common.assign_splits, corpora.is_test_path, run.matches, run.score


@pytest.fixture(scope="module")
def tasks() -> list[dict]:
    return [json.loads(line) for line in (BENCH / "tasks.jsonl").read_text().splitlines() if line.strip()]


def test_every_task_is_complete_and_coherent(tasks):
    assert len({t["id"] for t in tasks}) == len(tasks)
    for t in tasks:
        assert t["corpus"] in CORPORA and t["kind"] in KINDS, t["id"]
        assert_task_well_formed(t)


def test_kinds_and_corpora_are_balanced(tasks):
    per_kind = collections.Counter(t["kind"] for t in tasks)
    assert len(tasks) >= 220 and all(per_kind[k] >= 55 for k in KINDS), per_kind
    per_cell = collections.Counter((t["corpus"], t["kind"]) for t in tasks)
    assert all(per_cell[(c, k)] >= 10 for c in CORPORA for k in KINDS), per_cell
    subkinds = {t["subkind"] for t in tasks if t["kind"] == "definition"}
    assert subkinds == {"plain", "qualified", "ambiguous"}


def test_a_quarter_is_validation_by_the_stated_rule(tasks):
    for kind in KINDS:
        share = sum(t["split"] == "validation" for t in tasks if t["kind"] == kind) / sum(
            t["kind"] == kind for t in tasks)
        assert 0.22 <= share <= 0.30, (kind, share)
    again = copy.deepcopy(tasks)
    for t in again:
        t["split"] = None
    assign_splits(again)
    assert [t["split"] for t in again] == [t["split"] for t in tasks]


def test_no_concept_question_names_its_answer(tasks):
    concepts = [t for t in tasks if t["kind"] == "concept"]
    assert len(concepts) >= 55
    assert_questions_avoid_names(concepts)


def test_errors_are_pasted_with_values_and_callers_leave_tests_out(tasks):
    errors = [t for t in tasks if t["kind"] == "error"]
    assert sum(t["subkind"] != "literal" for t in errors) >= len(errors) // 2
    for t in errors:
        assert not UNFILLED.search(t["query"]), t["id"]
        assert t["rg"][0] == "-nF" and t["rg"][1] in t["query"], t["id"]
    for t in (t for t in tasks if t["kind"] == "callers"):
        d = t["definition"]
        assert all(not is_test_path(e["path"]) for e in t["expected"]), t["id"]
        assert all(not (e["path"] == d["path"] and e["line_start"] == d["line"]) for e in t["expected"]), t["id"]


def test_scoring_rules():
    span = {"path": "a.py", "line_start": 10, "line_end": 12}
    assert matches("definition", ("a.py", 11, 40), span) and not matches("definition", ("a.py", 9, 40), span)
    assert not matches("definition", ("b.py", 11, 11), span)
    assert matches("error", ("a.py", 1, 10), span) and not matches("error", ("a.py", 1, 9), span)
    task = {"kind": "definition", "expected": [span]}
    s = score(task, [("b.py", 1, 1), ("a.py", 10, 10)])
    assert (s["at1"], s["at5"]) == (False, True)
    callers = {"kind": "callers", "expected": [{"path": "a.py", "line_start": 3, "line_end": 4},
                                               {"path": "b.py", "line_start": 7, "line_end": 7}]}
    s = score(callers, [("a.py", 4, 4), ("a.py", 4, 4), ("c.py", 1, 1)])
    assert s["recall"] == 0.5 and s["precision"] == 0.5 and s["at1"]
    assert score(callers, [])["precision"] == 0.0


def test_code_lines_leave_out_rust_test_modules_under_any_cfg_test(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "lib.rs").write_text(
        "pub fn work() { helper(); }\n"
        "#[cfg(test)]\nmod tests {\n    fn t() { helper(); }\n}\n"
        "#[cfg(all(test, feature = \"std\"))]\n// the std-only tests\nmod test {\n    fn u() {\n        helper();\n    }\n}\n"
        "fn helper() {}\n")
    kept = [(no, line) for _, no, line in common.code_lines(tmp_path, "rust") if "helper" in line]
    assert kept == [(1, "pub fn work() { helper(); }"), (13, "fn helper() {}")]


# ---- the holdout (holdout.jsonl): the same rules over corpora outside the tuned subsets -------

holdout_concepts = agent_tasks("holdout_concepts")


@pytest.fixture(scope="module")
def holdout() -> list[dict]:
    return [json.loads(line) for line in (BENCH / "holdout.jsonl").read_text().splitlines() if line.strip()]


def test_holdout_corpora_are_outside_the_tuned_ones(holdout):
    assert not set(corpora.HOLDOUT) & set(CORPORA)
    assert not set(corpora.GO_HOLDOUT) & set(corpora.GO_PACKAGES)
    assert {t["corpus"] for t in holdout} == set(corpora.HOLDOUT)
    per_cell = collections.Counter((t["corpus"], t["kind"]) for t in holdout)
    assert all(per_cell[(c, k)] >= 5 for c in corpora.HOLDOUT for k in KINDS), per_cell
    assert 16 <= len(holdout_concepts.HOLDOUT_CONCEPTS) <= 24


def test_holdout_tasks_follow_the_task_rules(holdout, monkeypatch):
    monkeypatch.setitem(globals(), "CORPORA", corpora.HOLDOUT)
    test_every_task_is_complete_and_coherent(holdout)
    test_errors_are_pasted_with_values_and_callers_leave_tests_out(holdout)
    concepts = [t for t in holdout if t["kind"] == "concept"]
    assert len(concepts) == len(holdout_concepts.HOLDOUT_CONCEPTS)
    assert_questions_avoid_names(concepts)

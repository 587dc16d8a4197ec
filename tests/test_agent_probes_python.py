"""bench/agent_tasks/probes_python.jsonl (the hand-written py-probe tasks) follows the task rules of
bench/agent_tasks/README.md: complete, balanced, split by the stated rule, concept questions free of
their answers' names, pasted errors with their holes filled, callers outside test code.

Fast: reads the task file only; nothing is fetched or indexed."""
from __future__ import annotations

import collections
import copy
import json

import pytest

from support.benches import (AGENT_TASKS as BENCH, UNFILLED, agent_tasks, assert_questions_avoid_names,
                             assert_task_well_formed)

common, corpora = agent_tasks("common"), agent_tasks("corpora")


@pytest.fixture(scope="module")
def probes() -> list[dict]:
    text = (BENCH / "probes_python.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_probe_tasks_are_complete_and_balanced(probes):
    assert len({t["id"] for t in probes}) == len(probes) >= 48
    per_kind = collections.Counter(t["kind"] for t in probes)
    assert all(per_kind[k] >= 12 for k in common.KINDS), per_kind
    assert {t["subkind"] for t in probes if t["kind"] == "definition"} == {"plain", "qualified", "ambiguous"}
    for t in probes:
        assert t["corpus"] == "py-probe" and t["args"].get("symbol_name", t["query"]) == t["query"], t["id"]
        assert t["truth"].startswith(("read from the code", "written by reading")), t["id"]
        assert_task_well_formed(t)


def test_probe_split_is_the_stated_rule(probes):
    again = copy.deepcopy(probes)
    for t in again:
        t["split"] = None
    common.assign_splits(again)
    assert [t["split"] for t in again] == [t["split"] for t in probes]


def test_probe_questions_and_messages_keep_to_the_rules(probes):
    assert_questions_avoid_names([t for t in probes if t["kind"] == "concept"])
    errors = [t for t in probes if t["kind"] == "error"]
    assert sum(t["subkind"] != "literal" for t in errors) >= len(errors) // 2
    for t in errors:
        assert not UNFILLED.search(t["query"]) and t["rg"][0] == "-nF" and t["rg"][1] in t["query"], t["id"]
    for t in (t for t in probes if t["kind"] == "callers"):
        d = t["definition"]
        assert all(not corpora.is_test_path(e["path"]) for e in t["expected"]), t["id"]
        assert all((e["path"], e["line_start"]) != (d["path"], d["line"]) for e in t["expected"]), t["id"]

"""bench/agent_tasks/probes2_python.jsonl (the hand-written py-probe2 tasks, second user probe)
follows the task rules of bench/agent_tasks/README.md, as the first round's file does.

Fast: reads the task file only; nothing is fetched or indexed."""
from __future__ import annotations

import collections
import copy
import json

from support.benches import (AGENT_TASKS as BENCH, UNFILLED, agent_tasks, assert_questions_avoid_names,
                             assert_task_well_formed)

common, corpora = agent_tasks("common"), agent_tasks("corpora")
TASKS = [json.loads(line) for line in (BENCH / "probes2_python.jsonl").read_text().splitlines() if line.strip()]


def test_tasks_are_complete_balanced_and_split_by_the_rule():
    assert len({t["id"] for t in TASKS}) == len(TASKS) >= 48
    assert min(collections.Counter(t["kind"] for t in TASKS)[k] for k in common.KINDS) >= 12
    for t in TASKS:
        assert t["corpus"] == "py-probe2" and t["truth"].startswith(("read from the code", "written by")), t["id"]
        assert_task_well_formed(t)
    again = copy.deepcopy(TASKS)
    common.assign_splits(again)
    assert [t["split"] for t in again] == [t["split"] for t in TASKS]


def test_questions_messages_and_sites_keep_to_the_rules():
    assert_questions_avoid_names([t for t in TASKS if t["kind"] == "concept"])
    for t in (t for t in TASKS if t["kind"] == "error"):
        assert not UNFILLED.search(t["query"]) and t["rg"][0] == "-nF" and t["rg"][1] in t["query"], t["id"]
    for t in (t for t in TASKS if t["kind"] == "callers"):
        d = t["definition"]
        assert all(not corpora.is_test_path(e["path"]) for e in t["expected"]), t["id"]
        assert all((e["path"], e["line_start"]) != (d["path"], d["line"]) for e in t["expected"]), t["id"]

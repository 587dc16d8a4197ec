"""bench/agent_tasks/holdout.jsonl obeys the rules tasks.jsonl does, over corpora outside the tuned
subsets. Fast: reads the task files; nothing is indexed."""
from __future__ import annotations

import collections
import json

import pytest

import test_agent_tasks as rules
from support.benches import AGENT_TASKS as BENCH, agent_tasks

corpora, holdout_concepts = agent_tasks("corpora"), agent_tasks("holdout_concepts")


@pytest.fixture(scope="module")
def tasks() -> list[dict]:
    return [json.loads(line) for line in (BENCH / "holdout.jsonl").read_text().splitlines() if line.strip()]


def test_holdout_corpora_are_outside_the_tuned_ones(tasks):
    assert not set(corpora.HOLDOUT) & set(corpora.CORPORA)
    assert not set(corpora.GO_HOLDOUT) & set(corpora.GO_PACKAGES)
    assert {t["corpus"] for t in tasks} == set(corpora.HOLDOUT)
    per_cell = collections.Counter((t["corpus"], t["kind"]) for t in tasks)
    assert all(per_cell[(c, k)] >= 5 for c in corpora.HOLDOUT for k in rules.KINDS), per_cell
    assert 16 <= len(holdout_concepts.HOLDOUT_CONCEPTS) <= 24


def test_holdout_tasks_follow_the_task_rules(tasks, monkeypatch):
    monkeypatch.setattr(rules, "CORPORA", corpora.HOLDOUT)
    rules.test_every_task_is_complete_and_coherent(tasks)
    rules.test_errors_are_pasted_with_values_and_callers_leave_tests_out(tasks)
    concepts = [t for t in tasks if t["kind"] == "concept"]
    assert len(concepts) == len(holdout_concepts.HOLDOUT_CONCEPTS)
    rules.assert_questions_avoid_names(concepts)

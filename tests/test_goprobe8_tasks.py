"""bench/agent_tasks/probes8_go.jsonl (the hand-written go-probe8 tasks, eighth round) follows
the task rules of bench/agent_tasks/README.md (support.benches.assert_probe_file).

Fast: reads the task file only; nothing is fetched or indexed."""
from __future__ import annotations

from support.benches import assert_probe_file


def test_go_probe8_tasks_keep_the_rules():
    assert_probe_file("probes8_go.jsonl", "go-probe8")

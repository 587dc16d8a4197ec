"""bench/agent_tasks/probes8_typescript.jsonl (the hand-written ts-probe8 tasks, eighth round)
follows the task rules of bench/agent_tasks/README.md (support.benches.assert_probe_file).

Fast: reads the task file only; nothing is fetched or indexed."""
from __future__ import annotations

from support.benches import assert_probe_file


def test_ts_probe8_tasks_keep_the_rules():
    assert_probe_file("probes8_typescript.jsonl", "ts-probe8")

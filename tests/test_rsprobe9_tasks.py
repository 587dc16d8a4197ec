"""bench/agent_tasks/probes9_rust.jsonl (the hand-written rs-probe9 tasks, ninth round) follows
the task rules of bench/agent_tasks/README.md (support.benches.assert_probe_file).

Fast: reads the task file only; nothing is fetched or indexed."""
from __future__ import annotations

from support.benches import assert_probe_file


def test_rs_probe9_tasks_keep_the_rules():
    assert_probe_file("probes9_rust.jsonl", "rs-probe9")

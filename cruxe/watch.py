"""`cruxe watch`: keep the working tree's index in step with the files, by polling.

Every `interval` seconds one check of the freshness probe (`freshness.working_tree_changed`:
every directory the last scan walked, then indexed files for `budget_s` from where the last
check stopped) or a moved HEAD says whether anything changed; after a change, a short quiet
period (`debounce`) lets an editor finish writing, then one incremental sync runs. Polling,
not file events: it needs nothing beyond the standard library and works on every platform and
file system, at a cost that grows with the tree (figures in docs/BENCHMARKS.md "Watch"); where a
check costs more than WATCH_MAX_CPU_SHARE of the interval the watch checks less often and says so
(`Pace`). Memory is the probe's lists of paths (bounded by the index) and nothing per event.
"""
from __future__ import annotations

import logging
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from . import freshness
from .errors import BUSY_CODES, CruxeError
from .index import JobReport, run_index
from .project import Project, open_project

log = logging.getLogger(__name__)

WATCH_INTERVAL_S = 1.0
WATCH_DEBOUNCE_S = 0.2
# per check: with the directories, under the idle-CPU goal at the interval above (the
# measurement and the rejected settings: docs/BENCHMARKS.md, Watch)
WATCH_FILE_BUDGET_S = 0.003
# The idle goal (issue 20): checks may use this share of a core; past it the watch checks less often.
WATCH_MAX_CPU_SHARE = 0.01
WATCH_MAX_WAIT_S = 30.0  # and never less often than this
_PACE_WINDOW = 3  # the median of three leaves out one costly check


class Pace:
    """The wait between checks: `interval`, or longer while the median check of the last few costs
    more CPU than WATCH_MAX_CPU_SHARE of it (a tree too large, or a file system too slow, to poll at
    that rate), said once in a warning: the watch degrades, it never polls without a pause. The
    median leaves out the one check after each publish that reads the new manifest."""

    def __init__(self, interval: float):
        self.interval = self.wait = interval
        self.costs: deque[float] = deque(maxlen=_PACE_WINDOW)
        self.warned = False

    def record(self, cpu_s: float) -> None:
        self.costs.append(cpu_s)
        if len(self.costs) < _PACE_WINDOW:
            return
        median = sorted(self.costs)[_PACE_WINDOW // 2]
        self.wait = min(max(self.interval, median / WATCH_MAX_CPU_SHARE), max(self.interval, WATCH_MAX_WAIT_S))
        if self.wait > self.interval and not self.warned:
            self.warned = True
            log.warning("watch: a check of the tree costs %.0f ms of CPU; checking every %.2f s instead of "
                        "every %.2f s (an edit shows later; `.cruxeignore` what need not be indexed)",
                        median * 1000, self.wait, self.interval)


def changed(project: Project, budget_s: float = WATCH_FILE_BUDGET_S) -> bool:
    """Whether the working tree's ref is behind the files or HEAD (True when never indexed;
    False while a job runs: it is catching up)."""
    state = freshness.index_state(project, project.default_ref(), budget_s=budget_s)
    if state.schema_status != "compatible":
        return state.schema_status == "not_indexed"
    return state.freshness_status == "stale"  # "syncing" while a job runs


def watch(root: str | Path, home: Path | None = None, *, interval: float = WATCH_INTERVAL_S,
          debounce: float = WATCH_DEBOUNCE_S, budget_s: float = WATCH_FILE_BUDGET_S,
          stop: threading.Event | None = None, on_sync: Callable[[JobReport], None] | None = None,
          **index_args: Any) -> None:
    """Sync whenever the tree changed, until `stop` is set (or forever). `index_args` go to
    `run_index` (workers, max_file_bytes, scan_timeout_s)."""
    stop = stop or threading.Event()
    project = open_project(root, home)  # one store: its generations stay open between checks
    pace = Pace(interval)
    while not stop.wait(pace.wait):
        try:
            cpu0 = time.thread_time()
            moved = changed(project, budget_s)
            pace.record(time.thread_time() - cpu0)
            if not moved:
                continue
            stop.wait(debounce)
            report = run_index(project.root, home=home, **index_args)
        except CruxeError as e:
            if e.code not in BUSY_CODES:
                log.warning("watch: %s", e.message)
            continue
        log.info("watch: synced %d changed, %d removed file(s) in %d ms", report.changed_files,
                 report.deleted_files, report.duration_ms)
        if on_sync is not None:
            on_sync(report)


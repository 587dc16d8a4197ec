"""`cruxe watch`: keep the working tree's index in step with the files.

Where Linux inotify is available (`fsevents`), the watch waits on change events of the
directories the last scan walked and of the git directories: an event on an indexed file, a new
file of an indexable name, a directory made or removed, or an ignore/config file starts a sync; an
event on HEAD, git's index or a branch starts a check. An idle tree then costs one wake-up per
`interval` and, every WATCH_RECHECK_S and after each publish, one polling check as a safety net
(events can be lost: a queue the kernel overflowed, a file system that reports nothing, a
directory made between a scan and its watch).

Everywhere else (and with `events=False`, or past the kernel's watch limit) it polls: every
`interval` seconds one check of the freshness probe (`freshness.working_tree_changed`: every
directory the last scan walked, then indexed files for `budget_s` from where the last check
stopped) or a moved HEAD says whether anything changed, at a cost that grows with the tree
(figures in docs/BENCHMARKS.md "Watch"); where a check costs more than WATCH_MAX_CPU_SHARE of the
interval the watch checks less often and says so (`Pace`).

Either way, after a change a short quiet period (`debounce`) lets an editor finish writing, then
one incremental sync runs. Memory is the probe's lists of paths and one watch per directory
(bounded by the index), nothing per event.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from . import freshness, fsevents, vcs
from .errors import BUSY_CODES, CruxeError
from .index import JobReport, run_index
from .project import Project, open_project
from .scan import indexable_name
from .store import branch_state, tree_state

log = logging.getLogger(__name__)

WATCH_INTERVAL_S = 1.0
WATCH_DEBOUNCE_S = 0.2
# per check: with the directories, under the idle-CPU goal at the interval above (the
# measurement and the rejected settings: docs/BENCHMARKS.md, Watch)
WATCH_FILE_BUDGET_S = 0.003
# The idle goal (issue 20): checks may use this share of a core; past it the watch checks less often.
WATCH_MAX_CPU_SHARE = 0.01
WATCH_MAX_WAIT_S = 30.0  # and never less often than this
# With events: the safety-net poll's period (what events can miss is listed in the docstring).
WATCH_RECHECK_S = 30.0
# Names whose change alters what is indexed although they are not indexed themselves.
_RULE_FILES = frozenset({".gitignore", ".cruxeignore", "config.toml"})
_GIT_NAMES = frozenset({"HEAD", "index", "packed-refs", "ORIG_HEAD"})
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


class _Events:
    """The event source of a watch: inotify over the directories of the ref's last published scan
    and the git directories, re-aimed after each publish (whoever published it)."""

    def __init__(self, project: Project, events: fsevents.DirEvents):
        self.project, self.events = project, events
        self.root = str(project.root)
        self.key: tuple[str, int] | None = None  # the published state the watched set follows
        self.git: set[str] = set()
        self.complete = False
        self.next_poll = 0.0

    @classmethod
    def open(cls, project: Project) -> _Events | None:
        events = fsevents.DirEvents.open()
        return cls(project, events) if events is not None else None

    def ready(self) -> bool:
        """Whether events cover the tree as last published; False sends the caller to polling."""
        ref = self.project.default_ref()
        opened = freshness.open_generation(self.project, ref)
        if opened.gen is None or opened.schema_status != "compatible":
            return False
        bs = branch_state(opened.gen, self.project.id, ref) or {}
        key = (str(opened.gen.path), int(bs.get("cursor") or 0))
        if key != self.key:
            self._aim(opened.gen)
            self.key, self.next_poll = key, 0.0  # a poll now: what changed between the scan and the watch
        return self.complete

    def _aim(self, gen: Any) -> None:
        dirs = tree_state(gen)
        if dirs is None:
            self.complete = False
            return
        self.git = {str(d) for d in vcs.state_dirs(self.project.root)}
        wanted = [os.path.join(self.root, d) if d else self.root for d in dirs] + sorted(self.git)
        self.complete = self.events.watch(wanted)

    def due(self, interval: float, budget_s: float) -> bool:
        """Wait up to `interval` for events; True when the tree changed (a sync is due)."""
        if time.monotonic() >= self.next_poll:
            self.next_poll = time.monotonic() + WATCH_RECHECK_S
            if changed(self.project, budget_s):
                return True
        verdict = self.judge(self.events.wait(interval))
        return verdict == "sync" or (verdict == "check" and changed(self.project, budget_s))

    def judge(self, events: list[fsevents.Event]) -> str | None:
        """"sync" when an event touches what is indexed, "check" when only git's state moved."""
        verdict = None
        for e in events:
            if e.directory in self.git:  # HEAD, git's index, a branch (refs/heads/...): a check decides
                if e.name in _GIT_NAMES or f"{os.sep}refs{os.sep}heads" in e.directory:
                    verdict = "check"
                continue
            if e is fsevents.OVERFLOW or self._touches_index(e):
                return "sync"
        return verdict

    def _touches_index(self, e: fsevents.Event) -> bool:
        if not e.name or e.mask & (fsevents.IN_DELETE_SELF | fsevents.IN_MOVE_SELF):
            return True  # a watched directory itself went away
        if e.mask & fsevents.IN_ISDIR:
            return bool(e.mask & fsevents.ENTRY_CHANGES)
        # every indexed file has an indexable name (the scan admits no other): the name decides
        return e.name in _RULE_FILES or indexable_name(e.name)

    def drain(self) -> None:
        self.events.wait(0)

    def close(self) -> None:
        self.events.close()


def _polled(project: Project, pace: Pace, budget_s: float) -> bool:
    cpu0 = time.thread_time()
    moved = changed(project, budget_s)
    pace.record(time.thread_time() - cpu0)
    return moved


def watch(root: str | Path, home: Path | None = None, *, interval: float = WATCH_INTERVAL_S,
          debounce: float = WATCH_DEBOUNCE_S, budget_s: float = WATCH_FILE_BUDGET_S,
          stop: threading.Event | None = None, on_sync: Callable[[JobReport], None] | None = None,
          events: bool = True, **index_args: Any) -> None:
    """Sync whenever the tree changed, until `stop` is set (or forever). `events=False` polls even
    where inotify is available. `index_args` go to `run_index` (workers, max_file_bytes,
    scan_timeout_s)."""
    stop = stop or threading.Event()
    project = open_project(root, home)  # one store: its generations stay open between checks
    source = _Events.open(project) if events else None
    pace = Pace(interval)
    try:
        while not stop.is_set():
            try:
                if source is not None and source.ready():
                    due = source.due(interval, budget_s)
                else:
                    due = not stop.wait(pace.wait) and _polled(project, pace, budget_s)
                if not due or stop.wait(debounce):
                    continue
                if source is not None:
                    source.drain()  # what the debounce gathered: the sync below sees it all
                report = run_index(project.root, home=home, **index_args)
            except CruxeError as e:
                if e.code not in BUSY_CODES:
                    log.warning("watch: %s", e.message)
                stop.wait(interval)  # an index that cannot be read: do not retry in a loop
                continue
            log.info("watch: synced %d changed, %d removed file(s) in %d ms", report.changed_files,
                     report.deleted_files, report.duration_ms)
            if on_sync is not None:
                on_sync(report)
    finally:
        if source is not None:
            source.close()

"""The tests of bench code (the agent-task scoring, the extraction-recall runner) load it from
here: the one place that knows where the benches live and how they import each other."""
from __future__ import annotations

import importlib.util
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

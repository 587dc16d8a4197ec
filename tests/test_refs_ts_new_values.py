"""A module's singleton made with `new` (`export const timeoutManager = new TimeoutManager()`,
as @tanstack/query-core exports its managers): the value's type is the class it constructs, so
`timeoutManager.setTimeout(...)` in another file is that class's method (an inherited one
through its base), not a guess among every `setTimeout` of the repository. The signature keeps
the `new` expression: it is what says the type."""
from __future__ import annotations

from cruxe.refs import find_references
from cruxe.query.locate import locate_symbol

from support.repos import call_sites, indexed_files

MANAGER = '''\
export class Subscribable {
  subscribe(listener: () => void): () => void {
    return listener;
  }
}

export class TimeoutManager extends Subscribable {
  setTimeout(callback: () => void, delay: number): number {
    return delay;
  }
}

export const timeoutManager = new TimeoutManager()
'''

OTHER = '''\
export class Scheduler {
  setTimeout(callback: () => void): void {}
  subscribe(): void {}
}
'''

USE = '''\
import { timeoutManager } from "./manager";

export function later(fn: () => void) {
  timeoutManager.subscribe(fn);
  return timeoutManager.setTimeout(fn, 10);
}
'''

FILES = {"src/manager.ts": MANAGER, "src/scheduler.ts": OTHER, "src/use.ts": USE}


def test_a_value_made_with_new_has_the_class_it_constructs(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    assert call_sites(find_references(gen, repo, ref, "TimeoutManager.setTimeout")) == [("src/use.ts", 5)]
    assert call_sites(find_references(gen, repo, ref, "Subscribable.subscribe")) == [("src/use.ts", 4)]
    assert call_sites(find_references(gen, repo, ref, "Scheduler.setTimeout")) == []
    assert call_sites(find_references(gen, repo, ref, "Scheduler.subscribe")) == []
    hits, _ = locate_symbol(gen, repo, ref, "timeoutManager")
    assert [h.signature for h in hits] == ["export const timeoutManager = new TimeoutManager()"]

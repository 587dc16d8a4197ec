"""An ECMAScript private member asked for without its `#` (issue 17, sixth user probe).

@tanstack/pacer writes its helpers as private fields holding arrows (`#calculateWait = (attempt:
number): number => {...}`), called as `this.#calculateWait(attempt)`. An agent asking for
`calculateWait` or `AsyncRetryer.calculateWait` got no definition (`symbol_not_found` from
find_references): the index knows the name with its `#` only."""
from __future__ import annotations

import pytest

from cruxe.errors import CruxeError
from cruxe.query.locate import locate_symbol
from cruxe.refs import find_references

from support.repos import indexed_files

RETRYER = '''\
export class AsyncRetryer {
  options = { baseWait: 100, maxWait: 1000 }

  #calculateWait = (attempt: number): number => {
    return Math.min(this.options.baseWait * 2 ** (attempt - 1), this.options.maxWait)
  }

  execute = async (attempt: number): Promise<number> => {
    return this.#calculateWait(attempt)
  }
}
'''

LIMITER = '''\
export class RateLimiter {
  wait(ms: number): void {}

  private execute(): void {
    this.wait(1)
  }
}
'''


@pytest.fixture
def index(tmp_path):
    return indexed_files(tmp_path / "repo", tmp_path / "home",
                         {"src/async-retryer.ts": RETRYER, "src/rate-limiter.ts": LIMITER})


def test_a_private_member_is_found_without_its_hash(index):
    gen, repo, ref = index
    for name in ("calculateWait", "AsyncRetryer.calculateWait", "#calculateWait"):
        hits, _ = locate_symbol(gen, repo, ref, name)
        assert [(h.path, h.line_start, h.name) for h in hits] == [("src/async-retryer.ts", 4, "#calculateWait")], name
    answer = find_references(gen, repo, ref, "calculateWait")
    assert [(r["path"], r["line_start"]) for r in answer["references"]] == [("src/async-retryer.ts", 9)], answer


def test_a_name_defined_as_written_is_not_read_as_a_private_one(index):
    """`wait` is RateLimiter's method: the `#` is only a fallback, and a name no definition has
    either way stays unknown."""
    gen, repo, ref = index
    hits, _ = locate_symbol(gen, repo, ref, "wait")
    assert [(h.path, h.name) for h in hits] == [("src/rate-limiter.ts", "wait")], hits
    with pytest.raises(CruxeError) as err:
        find_references(gen, repo, ref, "calculateDelay")
    assert err.value.code == "symbol_not_found"

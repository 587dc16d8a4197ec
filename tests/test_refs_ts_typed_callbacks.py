"""A function value's parameter whose type is written (`new Observable((subscriber:
Subscriber<T>) => ...)`, as rxjs writes its creation functions): a call on it is a call of
that type's method, not a guess among every same-named method of the repository."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import call_sites, indexed_files

SUB = '''\
export class Subscriber<T> {
  next(value: T): void {}
  complete(): void {}
}

export class Other {
  next(): void {}
  complete(): void {}
}

export class Observable<T> {
  constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => void) {}
}
'''

USE = '''\
import { Observable, Subscriber } from "./sub";

export function fromArray<T>(array: T[]) {
  return new Observable((subscriber: Subscriber<T>) => {
    subscriber.next(array[0]);
    subscriber.complete();
  });
}

export function each<T>(items: T[]) {
  items.forEach(function (item: T, target?: Subscriber<T>) {
    target?.complete();
  });
}
'''


def test_a_typed_parameter_of_a_function_value_types_its_calls(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/sub.ts": SUB, "src/use.ts": USE})
    assert call_sites(find_references(gen, repo, ref, "Subscriber.next")) == [("src/use.ts", 5)]
    assert call_sites(find_references(gen, repo, ref, "Subscriber.complete")) == [("src/use.ts", 6), ("src/use.ts", 12)]
    for other in ("Other.next", "Other.complete"):
        assert call_sites(find_references(gen, repo, ref, other)) == [], other

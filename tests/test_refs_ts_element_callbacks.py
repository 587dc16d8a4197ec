"""Callbacks given to a collection's own methods (`this.#observers.forEach((observer) =>
observer.destroy())`, `this.getAll().forEach((query) => query.onFocus())`, as
@tanstack/query-core iterates its observers and queries): the parameter is an element, of the
type the field, the returning method or the `new Map<K, V>()` writes, so a call on it is that
type's method and not a guess among every same-named method of the repository."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import call_sites, indexed_files

FILES = {"src/obs.ts": '''export class QueryObserver {
  destroy(): void {}
  refetch(): void {}
}
export class Other {
  destroy(): void {}
  refetch(): void {}
}
export class Query {
  onFocus(): void {}
}
export class Mutation {
  onFocus(): void {}
}
''', "src/many.ts": '''import { QueryObserver, Query } from "./obs";

export class Many {
  #observers: Array<QueryObserver> = [];
  #list: QueryObserver[] = [];
  #byKey = new Map<string, Query>();

  getAll(): Array<Query> {
    return [];
  }

  destroy() {
    this.#observers.forEach((observer) => {
      observer.destroy();
    });
    this.#list.map((o) => o.refetch());
  }

  onFocus() {
    this.getAll().forEach((query) => {
      query.onFocus();
    });
    this.#byKey.forEach((q, key) => q.onFocus());
  }
}
'''}


def test_a_callback_of_a_collections_method_gets_the_element_type(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    assert call_sites(find_references(gen, repo, ref, "QueryObserver.destroy")) == [("src/many.ts", 14)]
    assert call_sites(find_references(gen, repo, ref, "QueryObserver.refetch")) == [("src/many.ts", 16)]
    assert call_sites(find_references(gen, repo, ref, "Query.onFocus")) == [("src/many.ts", 21), ("src/many.ts", 23)]
    for other in ("Other.destroy", "Other.refetch", "Mutation.onFocus"):
        assert call_sites(find_references(gen, repo, ref, other)) == [], other

"""Calls through ES private fields (`this.#cache.build()`), as @tanstack/query-core writes its
classes: a `#name` member is part of a receiver chain like any other field, its declared type
(`#cache: Cache`) types it, and a local assigned from such a call (`const q =
this.#cache.build()`) is typed by the method's written return type. Before, the `#` stopped the
chain: every such call was left `ambiguous` when another class had a method of the same name."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import call_sites, indexed_files

CACHE = '''\
import { Query } from "./query";

export class Cache {
  build(key: string): Query {
    return new Query(key);
  }
  find(key: string): Query | undefined {
    return undefined;
  }
}
'''

QUERY = '''\
export class Query {
  constructor(readonly key: string) {}
  fetch(): Promise<string> {
    return Promise.resolve(this.key);
  }
}
'''

OTHER = '''\
export class MutationCache {
  build(name: string): number {
    return name.length;
  }
}

export class Observer {
  fetch(): void {}
}
'''

CLIENT = '''\
import { Cache } from "./cache";

export class Client {
  #cache: Cache;
  #count = 0;

  constructor(cache: Cache) {
    this.#cache = cache;
  }

  getCache(): Cache {
    return this.#cache;
  }

  ensure(key: string) {
    return this.#cache.build(key);
  }

  fetchQuery(key: string) {
    const query = this.#cache.build(key);
    return query.fetch();
  }

  prefetch(key: string) {
    return this.getCache().build(key).fetch();
  }
}
'''

FILES = {"src/cache.ts": CACHE, "src/query.ts": QUERY, "src/other.ts": OTHER, "src/client.ts": CLIENT}


def test_a_call_on_a_private_field_is_resolved_through_its_declared_type(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    answer = find_references(gen, repo, ref, "Cache.build")
    assert call_sites(answer) == [("src/client.ts", 16), ("src/client.ts", 20), ("src/client.ts", 25)], answer
    other = find_references(gen, repo, ref, "MutationCache.build")
    assert call_sites(other) == [], other


def test_a_local_assigned_from_a_call_on_a_private_field_is_typed(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    answer = find_references(gen, repo, ref, "Query.fetch")
    assert call_sites(answer) == [("src/client.ts", 21), ("src/client.ts", 25)], answer
    other = find_references(gen, repo, ref, "Observer.fetch")
    assert call_sites(other) == [], other

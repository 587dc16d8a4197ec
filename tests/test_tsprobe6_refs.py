"""Calls through an interface that extends a class, left unresolved by the sixth TypeScript probe.

@tanstack/db declares `interface Collection<T extends object = Record<string, unknown>, TKey ...,
TUtils ..., TSchema ..., TInsertInput ...> extends CollectionImpl<T, TKey, TUtils, TSchema,
TInsertInput>` and types its values `Collection`: `this.collection.subscribeChanges(...)` reaches
`CollectionImpl.subscribeChanges` only through the interface's base. The header is longer than
the signature the extractor keeps, so the kept text ends inside the base's type arguments
(`extends CollectionImpl<T, TKey, ...`), and the base was lost; so was one whose type arguments
nest three deep."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import indexed_files

COLLECTION = '''\
import type { StandardSchemaV1 } from "@standard-schema/spec"

type UtilsRecord = Record<string, unknown>

export interface Collection<
  T extends object = Record<string, unknown>,
  TKey extends string | number = string | number,
  TUtils extends UtilsRecord = UtilsRecord,
  TSchema extends StandardSchemaV1 = StandardSchemaV1,
  TInsertInput extends object = T,
> extends CollectionImpl<T, TKey, TUtils, TSchema, TInsertInput> {
  readonly utils: TUtils
}

export interface KeyedCollection<T extends Map<string, Set<Array<number>>>> extends CollectionImpl {
  readonly keys: T
}

export class CollectionImpl<
  TOutput extends object = Record<string, unknown>,
  TKey extends string | number = string | number,
  TUtils extends UtilsRecord = {},
  TSchema extends StandardSchemaV1 = StandardSchemaV1,
  TInput extends object = TOutput,
> {
  subscribeChanges(callback: (changes: Array<TOutput>) => void): () => void {
    return () => callback([])
  }
}
'''

POOLED = '''\
export class PooledQuery {
  subscribeChanges(callback: () => void): () => void {
    return callback
  }
}
'''

SUBSCRIBER = '''\
import type { Collection, KeyedCollection } from "../../collection/index.js"

export class CollectionSubscriber {
  constructor(
    private alias: string,
    private collection: Collection,
  ) {}

  subscribe(): () => void {
    return this.collection.subscribeChanges(() => {})
  }
}

export function watch(keyed: KeyedCollection): () => void {
  return keyed.subscribeChanges(() => {})
}
'''

FILES = {"db/collection/index.ts": COLLECTION, "db/query/pooled.ts": POOLED,
         "db/query/live/subscriber.ts": SUBSCRIBER}


def test_calls_through_an_interface_with_a_long_header_reach_the_class_it_extends(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    answer = find_references(gen, repo, ref, "CollectionImpl.subscribeChanges")
    calls = [(r["path"], r["line_start"]) for r in answer["references"] if r.get("edge_type") == "calls"]
    assert calls == [("db/query/live/subscriber.ts", 10), ("db/query/live/subscriber.ts", 15)], answer
    assert answer["unresolved_count"] == 0, answer
    pooled = find_references(gen, repo, ref, "PooledQuery.subscribeChanges")
    assert pooled["references"] == [], pooled


# @tanstack/store (after alien-signals): a factory returns its inner functions, and each module
# destructures them from the call; their calls are bare calls of the destructured names.
ALIEN = '''\
export interface ReactiveNode {
  deps?: ReactiveNode
  flags: number
}

export function createReactiveSystem({
  update,
}: {
  update(sub: ReactiveNode): boolean
}) {
  return {
    link,
    unlink,
  }

  function link(dep: ReactiveNode, sub: ReactiveNode): void {
    sub.deps = dep
    update(sub)
  }

  function unlink(dep: ReactiveNode, sub: ReactiveNode): ReactiveNode | undefined {
    sub.deps = undefined
    return dep.deps
  }
}
'''

ATOM = '''\
import { createReactiveSystem } from './alien'
import type { ReactiveNode } from './alien'

const { link, unlink } = createReactiveSystem({
  update(node: ReactiveNode): boolean {
    return node.flags > 0
  },
})

export function purgeDeps(sub: ReactiveNode) {
  let dep = sub.deps
  while (dep !== undefined) {
    dep = unlink(dep, sub)
  }
}

export function track(dep: ReactiveNode, sub: ReactiveNode) {
  link(dep, sub)
  const system = createReactiveSystem({ update: () => true })
  system.unlink(dep, sub)
}
'''

OTHER = '''\
export class Graph {
  unlink(node: number): void {}
}

export function detach(unlink: (node: number) => void) {
  unlink(1)
}
'''


def test_a_factorys_inner_functions_are_reached_through_its_result(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"store/alien.ts": ALIEN, "store/atom.ts": ATOM, "graph/graph.ts": OTHER})
    answer = find_references(gen, repo, ref, "unlink", path="store/alien.ts")
    calls = [(r["path"], r["line_start"]) for r in answer["references"] if r.get("edge_type") == "calls"]
    assert calls == [("store/atom.ts", 13), ("store/atom.ts", 20)], answer
    linked = find_references(gen, repo, ref, "link", path="store/alien.ts")
    assert [(r["path"], r["line_start"]) for r in linked["references"] if r.get("edge_type") == "calls"] \
        == [("store/atom.ts", 18)], linked
    graph = find_references(gen, repo, ref, "Graph.unlink")
    assert graph["references"] == [], graph

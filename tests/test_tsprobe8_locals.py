"""A local that takes the name of an imported function (`const atom = this.records.getAtom(id)`
in tldraw's Store.createCache, a file importing the function `atom`) is that local where it is
seen: its reads and calls there are no uses of the import. Before, `if (!atom)` was listed
among the function's references. The local is seen in its own block only: a call of the
import after that block is still the import's."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import indexed_files, marked_line

ATOM = '''\
export interface Atom<T> {
  get(): T
}

export function atom<T>(name: string, value: T): Atom<T> {
  return { get: () => value }
}
'''

STORE = '''\
import { atom, Atom } from './atom'

export class Store {
  private records = new Map<string, Atom<object>>()
  history = atom('history', 0)  // call history

  createCache(create: (id: string, a: Atom<object>) => number) {
    return {
      get: (id: string) => {
        const atom = this.records.get(id)
        if (!atom) return undefined
        return create(id, atom)
      },
    }
  }

  each(ids: string[]) {
    return ids.map((atom) => atom.length)
  }

  run(tasks: Array<() => void>) {
    for (const atom of tasks) {
      atom()
    }
  }

  later(flag: boolean, onError?: (e: unknown) => void) {
    if (flag) {
      const atom = 1
      console.log(atom)
    }
    try {
      return atom('later', 2)  // call later
    } catch (atom) {
      onError?.(atom)
    }
    return atom
  }
}
'''

FILES = {"src/atom.ts": ATOM, "src/store.ts": STORE}


def test_a_local_of_an_imported_name_is_no_use_of_the_import(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    answer = find_references(gen, repo, ref, "atom", path="src/atom.ts")
    used = sorted((r["path"], r["line_start"], r["edge_type"]) for r in answer["references"]
                  if r["edge_type"] != "imports")
    last = len(STORE.splitlines()) - 2  # `return atom`: the function itself, outside every local
    assert used == [("src/store.ts", marked_line(STORE, "// call history"), "calls"),
                    ("src/store.ts", marked_line(STORE, "// call later"), "calls"),
                    ("src/store.ts", last, "references")]


CHECKED = '''\
import * as checks from './checks'

export function collect(): checks.Check[] {
  const checks: checks.Check[] = []  // namespace in the type
  return checks  // the local
}
'''


def test_a_local_shadows_no_namespace_in_a_type():
    """zod's `const checks: checks.$ZodCheck<never>[] = ...`: the type's qualifier is the
    imported namespace even where the local `checks` is seen; the value read is the local."""
    from cruxe.languages.typescript import extract_typescript
    refs = {(r.to_name, r.line) for r in extract_typescript(CHECKED.encode(), "src/use.ts").references
            if r.edge_type == "references" and not r.receiver}
    assert ("checks", marked_line(CHECKED, "// namespace in the type")) in refs
    assert ("checks", marked_line(CHECKED, "// the local")) not in refs

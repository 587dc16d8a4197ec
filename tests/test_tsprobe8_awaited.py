"""A local holding an awaited call's result (`const store = await this.getStore()`, as msw's
WebSocketIndexedDBClientStore reads its IndexedDB object store) is typed by what the callee's
written promise resolves to. `Promise<IDBObjectStore>` is a type no repository file declares:
`store.put(...)` is IndexedDB's, never the repository's one `put` (tldraw's `Store.put`, which
the name alone chose before). `Promise<Registry>` reaches that class's method among several of
the name. A type parameter (`<T>(): Promise<T>`) says nothing: the name-based fallback stays."""
from __future__ import annotations

from cruxe.refs import find_references

from support.repos import call_sites, indexed_files, marked_line

RECORDS = '''\
export class RecordStore {
  put(records: object[]): void {
    for (const r of records) {
      console.log(r)
    }
  }
}
'''

CLIENTS = '''\
export interface SerializedClient {
  id: string
}

export class ClientStore {
  private db: Promise<IDBDatabase>

  constructor(db: Promise<IDBDatabase>) {
    this.db = db
  }

  public async add(client: SerializedClient): Promise<void> {
    const store = await this.getStore()
    const request = store.put(client)  // idb
    request.onsuccess = () => undefined
  }

  public async read<T>(): Promise<T> {
    const db = await this.db
    return db as T
  }

  public async load(): Promise<void> {
    const records = await this.read()
    records.put([])  // guessed
  }

  private async getStore(): Promise<IDBObjectStore> {
    const db = await this.db
    return db.transaction('clients', 'readwrite').objectStore('clients')
  }
}
'''

REGISTRY = '''\
export class Registry {
  remove(id: string): void {
    console.log(id)
  }
}

export class Cache {
  remove(id: string): void {
    console.log(id)
  }
}

export class Owner {
  private async registry(): Promise<Registry> {
    return new Registry()
  }

  async drop(id: string) {
    const registry = await this.registry()
    registry.remove(id)  // registry
  }
}
'''

FILES = {"src/records.ts": RECORDS, "src/clients.ts": CLIENTS, "src/registry.ts": REGISTRY}


def test_an_awaited_result_is_what_the_promise_resolves_to(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", FILES)
    guessed = marked_line(CLIENTS, "// guessed")
    assert call_sites(find_references(gen, repo, ref, "RecordStore.put")) == [("src/clients.ts", guessed)]
    registry = marked_line(REGISTRY, "// registry")
    assert call_sites(find_references(gen, repo, ref, "Registry.remove")) == [("src/registry.ts", registry)]
    assert call_sites(find_references(gen, repo, ref, "Cache.remove")) == []

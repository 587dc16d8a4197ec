"""A node trace through a TypeScript package's compiled output (issue 17, sixth user probe).

A TypeScript package runs as the JavaScript its build emits, file for file: @tanstack/db's
`src/collection/lifecycle.ts` is `dist/esm/collection/lifecycle.js`, so a user's trace names
`.js` files at the compiled lines. No indexed file ended so, no frame was a place, and the answer
was the message's one emitting site (the error class's constructor) without the functions the run
went through. The frame's TypeScript source is the place now when it defines the function the
frame names (the line is the compiled file's, so the name says which definition)."""
from __future__ import annotations

from cruxe.query import search_code

from support.repos import indexed_files

ERRORS = '''\
export class CollectionStateError extends Error {
  constructor(message: string) {
    super(message)
    this.name = `CollectionStateError`
  }
}

export class InvalidCollectionStatusTransitionError extends CollectionStateError {
  constructor(from: string, to: string, collectionId: string) {
    super(
      `Invalid collection status transition from "${from}" to "${to}" for collection "${collectionId}"`,
    )
  }
}
'''

LIFECYCLE = '''\
import { InvalidCollectionStatusTransitionError } from '../errors'

type CollectionStatus = `idle` | `loading` | `ready` | `error` | `cleaned-up`

export class CollectionLifecycleManager {
  public status: CollectionStatus = `idle`

  constructor(private readonly id: string) {}

  public validateStatusTransition(from: CollectionStatus, to: CollectionStatus): void {
    const allowed: Record<CollectionStatus, Array<CollectionStatus>> = {
      idle: [`loading`, `error`, `cleaned-up`],
      loading: [`ready`, `error`, `cleaned-up`],
      ready: [`cleaned-up`, `error`],
      error: [`cleaned-up`, `idle`],
      'cleaned-up': [`loading`, `error`],
    }
    if (!allowed[from].includes(to)) {
      throw new InvalidCollectionStatusTransitionError(from, to, this.id)
    }
  }

  public setStatus(next: CollectionStatus): void {
    this.validateStatusTransition(this.status, next)
    this.status = next
  }
}
'''

PASTE = ('CollectionStateError: Invalid collection status transition from "cleaned-up" to "ready" for collection '
         '"todos"\n'
         '    at CollectionLifecycleManager.validateStatusTransition '
         '(file:///app/node_modules/@tanstack/db/dist/esm/collection/lifecycle.js:98:13)\n'
         '    at CollectionLifecycleManager.setStatus '
         '(file:///app/node_modules/@tanstack/db/dist/esm/collection/lifecycle.js:120:10)\n'
         '    at Object.<anonymous> (file:///app/server/main.js:12:5)')


def test_frames_in_compiled_javascript_are_their_typescript_sources_places(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/errors.ts": ERRORS, "src/collection/lifecycle.ts": LIFECYCLE})
    hits, _, _ = search_code(gen, repo, ref, PASTE)
    assert [(h.path, h.name, h.line_start) for h in hits[:3]] == [
        ("src/collection/lifecycle.ts", "validateStatusTransition", 10),
        ("src/collection/lifecycle.ts", "setStatus", 23),
        ("src/errors.ts", "constructor", 9)], hits


def test_a_compiled_frame_whose_function_the_source_lacks_is_no_place(tmp_path):
    """`lifecycle.js:98` in a function `lifecycle.ts` does not define (another build, a bundle's
    helper): its compiled line says nothing about the source, so the frame names no place."""
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home",
                                   {"src/errors.ts": ERRORS, "src/collection/lifecycle.ts": LIFECYCLE})
    paste = PASTE.replace("validateStatusTransition", "assertTransition").replace("setStatus", "applyStatus")
    hits, _, _ = search_code(gen, repo, ref, paste)
    assert (hits[0].path, hits[0].name) == ("src/errors.ts", "constructor"), hits
    assert all(h.signals.get("stack_frame", 0) == 0 for h in hits), hits

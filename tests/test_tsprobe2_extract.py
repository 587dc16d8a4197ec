"""TypeScript extraction found using Cruxe on tiptap and prosemirror (user probe 2)."""
from __future__ import annotations

from cruxe.languages.typescript import extract_typescript

# prosemirror documents constructor parameters with `///` lines; tiptap's command files declare
# each command as an interface property whose object type carries `/** */` docs
SOURCE = '''\
export class Mark {
  constructor(
    /// The type of this mark, with a comma, here.
    readonly type: MarkType,
    /* the attributes */ readonly attrs: Attrs
  ) {}
}

declare module '@tiptap/core' {
  interface Commands<ReturnType> {
    wrapInList: {
      /**
       * Wrap a node in a list.
       * @example editor.commands.wrapInList('bulletList')
       */
      wrapInList: (typeOrName: string, attributes?: Record<string, any>) => ReturnType
    }
  }
}

export function fetchIt(url = "http://example.com/a" /* a string keeps its slashes */): void {}
'''


def signatures() -> dict[str, list[str]]:
    got: dict[str, list[str]] = {}
    for s in extract_typescript(SOURCE.encode(), "src/x.ts").symbols:
        got.setdefault(s.name, []).append(s.signature)
    return got


def test_signatures_leave_comments_out():
    sigs = signatures()
    assert sigs["constructor"] == ["constructor( readonly type: MarkType, readonly attrs: Attrs )"]
    outer, inner = sigs["wrapInList"]
    assert "/**" not in outer and "Wrap a node" not in outer and "@example" not in outer
    assert outer.startswith("wrapInList: {") and "wrapInList: (typeOrName: string" in outer
    assert inner == "wrapInList: (typeOrName: string, attributes?: Record<string, any>) => ReturnType"
    assert sigs["fetchIt"] == ['export function fetchIt(url = "http://example.com/a" ): void']

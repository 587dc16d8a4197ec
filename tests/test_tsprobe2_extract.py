"""TypeScript extraction found using Cruxe on tiptap and prosemirror (user probe 2)."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.languages.typescript import extract_typescript

from support.incremental import resolved_file

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


DOCS = '''\
/// Find the first position at which this fragment and another
/// fragment differ.
export function findDiffStart(a: Fragment, b: Fragment): number | null { return null }

let x = 1 // a remark on x, not a doc of what follows
function follows() {}

// eslint-disable-next-line no-unused-vars
// Compiles an automaton into match states.
function dfa(nfa: Edge[][]): ContentMatch { return nfa as any }

// a comment with a blank line after it

function apart() {}
'''


def test_runs_of_line_comments_above_a_definition_are_its_doc():
    docs = {s.name: s.doc for s in extract_typescript(DOCS.encode(), "src/d.ts").symbols}
    assert docs["findDiffStart"] == "Find the first position at which this fragment and another\nfragment differ."
    assert docs["dfa"] == "Compiles an automaton into match states."
    assert docs["follows"] == ""
    assert docs["apart"] == ""


CLASS_VALUES = '''\
export class Base {
  greet(): string { return "hi" }
}

export let TransformError = class extends Error {}

export const Child = class Named extends Base {
  hello(): string { return super.greet() }
}
'''


def test_a_class_expression_bound_to_a_name_is_a_class_with_its_bases():
    symbols = extract_typescript(CLASS_VALUES.encode(), "src/c.ts").symbols
    syms = {s.name: s for s in symbols}
    assert (syms["TransformError"].kind, syms["TransformError"].signature) == \
        ("class", "export let TransformError = class extends Error")
    assert (syms["Child"].kind, syms["Child"].signature) == ("class", "export const Child = class Named extends Base")
    assert symbols[syms["hello"].parent].name == "Child"


def test_super_inside_a_class_expression_reaches_the_base(make_repo):
    root = make_repo({"src/c.ts": CLASS_VALUES})
    run_index(root)
    assert resolved_file(root, "src/c.ts", 8, "greet") == "src/c.ts"

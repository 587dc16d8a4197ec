"""TypeScript extraction found wanting by the fifth user probe (issue 17): an overloaded function's
doc comment sits above its first signature, so a question in the doc's words found the bodyless
signature (query-core's `replaceEqualDeep`) and not the implementation below it."""
from __future__ import annotations

from cruxe.languages import typescript


OVERLOADED = '''\
/**
 * Returns `a` if `b` is deeply equal: structural sharing between JSON values.
 */
export function replaceEqualDeep<T>(a: unknown, b: T): T
export function replaceEqualDeep(a: any, b: any): any {
  return a === b ? a : b
}

/** Unrelated. */
export function other(): void {}
export function another(): void {}
'''


def test_an_overload_implementation_carries_the_doc_of_its_first_signature():
    """query-core's `replaceEqualDeep`: the doc comment sits above the first overload signature, and
    a question in the doc's words found the bodyless signature and not the implementation."""
    syms = typescript.extract_typescript(OVERLOADED.encode(), "src/utils.ts").symbols
    docs = [(s.name, s.line_start, "structural sharing" in s.doc) for s in syms]
    assert docs == [("replaceEqualDeep", 4, True), ("replaceEqualDeep", 5, True), ("other", 10, False),
                    ("another", 11, False)], docs

"""TypeScript messages whose template holes hold code with backticks or braces (issue 17, third
user probe: redux's combineReducers writes `${actionType ? `"${String(actionType)}"` : '(unknown
type)'}` inside its message). The scan ended the message at the nested backtick and read the
rest inside out, and a hole with braces (`${fn({a: 1})}`) was no hole: its code went into the
message's words."""
from __future__ import annotations

from cruxe.literals import emitted_segments

NESTED = '''\
function reduce(action, key) {
  if (action) {
    throw new Error(
      `When called with an action of type ${
        action ? `"${String(action)}"` : '(unknown type)'
      }, the slice reducer for key "${key}" returned undefined. ` +
        `To ignore an action, you must explicitly return the previous state.`
    )
  }
  throw new Error(`Failed with ${count({ a: 1 })} items`)
}
'''


def test_a_hole_holding_a_nested_template_is_one_hole():
    assert emitted_segments(NESTED, "typescript")[0] == [
        "when", "called", "with", "an", "action", "of", "type", "|", "the", "slice", "reducer", "for", "key",
        "|", "returned", "undefined", "to", "ignore", "an", "action", "you", "must", "explicitly", "return",
        "the", "previous", "state", "|"]


def test_a_hole_holding_braces_is_one_hole():
    assert emitted_segments(NESTED, "typescript")[1] == ["failed", "with", "|", "items", "|"]


def test_an_unterminated_template_with_many_holes_is_scanned_in_linear_time():
    import time
    text = "throw new Error(`" + "x ${a} ${ $" * 4000
    started = time.perf_counter()
    emitted_segments(text, "typescript")
    assert time.perf_counter() - started < 2.0

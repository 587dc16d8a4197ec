"""A message given to a project's throwing helper (fifth user probe, issue 17): mobx throws
through `die("'extendObservable' expects an object as first argument")` and `die(`actions should
have valid names, got: '${actionName}'`)`, as immer does and as Perl/PHP scripts `die`; the
literal was no emitting site, so the pasted message found only `die`'s own `throw`."""
from __future__ import annotations

from cruxe.literals import emitted_segments

SOURCE = '''\
export function createAction(actionName: string, fn: Function) {
    if (typeof fn !== "function") {
        die("`action` can only be invoked on functions")
    }
    if (typeof actionName !== "string" || !actionName) {
        die(`actions should have valid names, got: '${actionName}'`)
    }
    invariant(fn.length < 3, "an action takes at most two arguments")
    register("not a message")
}
'''


def test_the_argument_of_a_throwing_helper_is_an_emitted_message():
    emitted = emitted_segments(SOURCE, "typescript")
    assert emitted[:3] == [
        ["action", "can", "only", "be", "invoked", "on", "functions", "|"],
        ["actions", "should", "have", "valid", "names", "got", "|"],
        ["an", "action", "takes", "at", "most", "two", "arguments", "|"],
    ]
    assert len(emitted) == 3  # an ordinary call's string stays unmarked


def test_a_bracketed_tag_before_a_pasted_message_is_its_own_segment():
    """mobx's `console.warn("[MobX] " + (strict ? "Since strict-mode is enabled, ..." : "...") +
    atom.name_)`: the tag is another literal than the message, and the paste's first phrase
    joined them ("mobx since strict ..."), which no stored phrase holds."""
    from cruxe.literals import message_segments

    pasted = ("[MobX] Since strict-mode is enabled, changing (observed) observable values without using an "
              "action is not allowed. Tried to modify: Todo@3.finished")
    segments = message_segments(pasted)
    assert segments[0][:3] == ("since", "strict", "mode") and ("mobx",) in segments, segments

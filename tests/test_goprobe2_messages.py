"""Go messages found by the second user probe (BurntSushi/toml, mitchellh/mapstructure):
a project's own panicking helpers (`p.panicItemf(it, "Invalid integer %q: ...", v)`,
`encPanic(fmt.Errorf(...))`) emit what their arguments say, and a pasted error that a wrapper
printed around an inner message (`toml: line 3 (last key "a"): <inner>`) finds the site of
the inner message before the wrapper's formatter."""
from __future__ import annotations

from cruxe.literals import emitted_segments


def test_a_call_of_a_panicking_helper_emits_its_message():
    assert emitted_segments('\t\tp.panicItemf(it, "Invalid integer %q: cannot have leading zeroes", it.val)\n',
                            "go") == [["invalid", "integer", "|", "cannot", "have", "leading", "zeroes", "|"]]
    assert emitted_segments('\tencPanic(fmt.Errorf("unsupported type for key \'%s\': %s", key, k))\n', "go") == [
        ["unsupported", "type", "for", "key", "|"]]
    assert emitted_segments('\tmustPanic("two words")\n', "go") == [["two", "words", "|"]]
    # a name that merely holds the letters is no panicking helper
    assert emitted_segments('\tx := hispanic("two words")\n', "go") == []
    assert emitted_segments('\tx := panics("two words")\n', "go") == []

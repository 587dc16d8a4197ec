"""Go messages found by the fourth user probe (spf13/pflag): a printf-style wrapper named for
an emitting verb with Go's `f` (or `ln`) suffix emits what its format says
(`f.failf("unknown shorthand flag: %q in -%s", c, shorthands)`, pflag's every parse error), as
`Errorf`, `Fatalf` and `panicf` already did; a paste of it found no emitting site."""
from __future__ import annotations

from cruxe.literals import emitted_segments


def test_a_printf_style_wrapper_of_an_emitting_verb_emits_its_message():
    assert emitted_segments('\t\terr = f.failf("unknown shorthand flag: %q in -%s", c, shorthands)\n', "go") == [
        ["unknown", "shorthand", "flag", "|", "in", "|"]]
    assert emitted_segments('\tp.abortln("could not open the file", name)\n', "go") == [
        ["could", "not", "open", "the", "file", "|"]]
    # a name that merely ends in the letter is none
    assert emitted_segments('\tx := self("two words")\n', "go") == []
    assert emitted_segments('\tx := leaf("two words")\n', "go") == []

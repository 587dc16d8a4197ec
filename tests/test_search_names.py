"""A name asked of `search_code` answers first the definition `locate_symbol` answers first
(issue 17 item 2: an identifier query's exact definition first). Retrieval's text statistics
used to decide between same-named definitions of other case and between a type and its own
members, where locate's tiers are surer."""
from __future__ import annotations

import pytest

from cruxe.query import locate_symbol, search_code
from support.repos import indexed_files

REPO = {
    # a struct whose name differs from the asked name only by case, said many times in its text
    "core/src/span.rs": (
        "/// Current: the current span, as the current dispatcher sees the current thread.\n"
        "/// The current span of the current thread is current until the current guard drops.\n"
        "#[derive(Debug)]\npub struct Current {\n    current: Option<u64>,\n    current_id: u64,\n}\n"),
    "lib/src/span.rs": (
        "pub struct Span;\n\nimpl Span {\n    pub fn current() -> Span {\n        Span\n    }\n}\n"),
    # a method asked by its type, beside the package function of the same name that calls it
    "viper/viper.go": (
        "package viper\n\ntype Viper struct {\n\tkeys map[string]any\n}\n\nvar v = &Viper{}\n\n"
        "// Get can retrieve any value given the key to use.\n// Get is case-insensitive for a key.\n"
        "func Get(key string) any { return v.Get(key) }\n\n"
        "func (v *Viper) Get(key string) any {\n\tlcaseKey := key\n\treturn v.keys[lcaseKey]\n}\n"),
    # a class asked by name, and its members, which say its name in their text
    "rich/console.py": (
        "class ConsoleOptions:\n    \"\"\"Options.\"\"\"\n\n    size: int = 0\n\n"
        "    def update_width(self, width: int) -> 'ConsoleOptions':\n"
        "        \"\"\"Update just the width, return a copy of ConsoleOptions.\"\"\"\n"
        "        options: ConsoleOptions = self.copy()\n        options.min_width = options.max_width = max(0, width)\n"
        "        return options\n\n"
        "    def update_height(self, height: int) -> 'ConsoleOptions':\n"
        "        \"\"\"Update the height, and return a copy of ConsoleOptions.\"\"\"\n"
        "        options: ConsoleOptions = self.copy()\n        options.height = height\n        return options\n"),
}


@pytest.fixture
def indexed(tmp_path):
    return indexed_files(tmp_path / "repo", tmp_path / "home", REPO)


@pytest.mark.parametrize("name, path, line", [
    ("current", "lib/src/span.rs", 4),  # not the struct `Current`
    ("ConsoleOptions", "rich/console.py", 1),  # not its method `update_width`
    ("Viper.Get", "viper/viper.go", 13),  # not the package's function `Get`
])
def test_a_name_asked_of_search_code_answers_first_what_locate_answers_first(indexed, name, path, line):
    gen, repo, ref = indexed
    located, _ = locate_symbol(gen, repo, ref, name)
    assert (located[0].path, located[0].line_start) == (path, line)
    hits, _, info = search_code(gen, repo, ref, name)
    assert info["intent"] == "symbol"
    assert (hits[0].path, hits[0].line_start) == (path, line), [(h.path, h.line_start, h.name) for h in hits[:3]]
    signals = hits[0].signals  # the lift is in the explanation, which still sums to the score
    assert round(sum(v for k, v in signals.items() if k not in ("final_score", "kind_match")), 3) \
        == pytest.approx(signals["final_score"], abs=0.01)


def test_a_type_and_a_word_naming_its_member_is_the_member(indexed):
    gen, repo, ref = indexed
    hits, _, info = search_code(gen, repo, ref, "ConsoleOptions update_height")
    assert info["intent"] == "symbol" and (hits[0].name, hits[0].path) == ("update_height", "rich/console.py")
    _, _, info = search_code(gen, repo, ref, "ConsoleOptions handling")  # no such member: a question
    assert info["intent"] == "natural_language"

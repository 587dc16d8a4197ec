"""A question answered by a Rust function without a doc comment (sixth user probe: semver's
`impl Ord for Prerelease { fn cmp .. }`, whose body comments say the ordering rules): the
symbols channel reads names and doc comments, so only the snippets channel can find it;
it gets half the symbols channel's vote at its snippets rank, and comes before the documented
types and functions that share a few of the question's words (search._undocumented_votes)."""
from __future__ import annotations

from pathlib import Path

from cruxe.query import search_code
from cruxe.query.search import _doc_commented

from support.locations import FIXTURES
from support.repos import indexed_files

FIXTURE = Path(FIXTURES) / "rust" / "prerelease"


def test_the_undocumented_function_that_does_what_is_asked_comes_first(tmp_path):
    source = (FIXTURE / "version.rs").read_text()
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", {"src/version.rs": source})
    question = ("sort two pre-release tags: all-digit parts go by their numeric value and below parts with "
                "letters, and with an equal prefix the tag with more parts goes higher")
    hits, _, intent = search_code(gen, repo, ref, question, limit=5)
    want = next(i + 1 for i, text in enumerate(source.splitlines()) if "fn cmp(&self, rhs: &Self) -> Ordering" in text)
    assert intent["intent"] == "natural_language"
    assert (hits[0].name, hits[0].line_start) == ("cmp", want), [(h.name, h.line_start) for h in hits]


def test_a_doc_comment_is_told_from_a_plain_comment_and_attributes():
    assert _doc_commented(["    /// Whether the tag is empty.", "    pub fn is_empty(&self) -> bool {"])
    assert _doc_commented(["#[inline]", "/// The tag's parts.", "pub fn parts(&self) {"])
    assert _doc_commented(["#[doc = \"Parses a version.\"]", "pub fn parse() {"])
    assert not _doc_commented(["    // a release sorts last", "    fn cmp(&self, rhs: &Self) -> Ordering {"])
    assert not _doc_commented(["#[inline]", "fn cmp(&self, rhs: &Self) -> Ordering {", "    /// not its doc"])

"""Conjunctive probes (query/probes.py, issue 17): a definition that says two rare words of a
question together joins the candidates, although many definitions saying more of the
question's common words fill every channel's fetch."""
from __future__ import annotations

from dataclasses import replace

import pytest

from cruxe.query import planner, probes
from cruxe.query.search import plan_query, run_plan
from cruxe.store import Field as F

from support.repos import indexed_files

# Sixty functions whose doc comments say most of the question's common words, thirty that say
# one of its two rarer words each, and one whose doc comment says both rarer words together
# (`lowercase`, `hyphens` for the question's `hyphen`) and nothing else of the question.
DISTRACTORS = 60
HALVES = 30


def _repo() -> dict[str, str]:
    files = {}
    for i in range(DISTRACTORS):
        files[f"pages/page{i}.py"] = (
            f"def render_page_{i}(request):\n"
            f"    \"\"\"Put the title of the form into a web address that is safe to turn into a page.\"\"\"\n"
            f"    return request.title + str({i})\n")
    for i in range(HALVES):
        files[f"text/case{i}.py"] = (f"def lower_{i}(s):\n    \"\"\"Return s in lowercase letters.\"\"\"\n"
                                     f"    return s.lower()\n")
        files[f"text/dash{i}.py"] = (f"def dashes_{i}(s):\n    \"\"\"Count the hyphens in s.\"\"\"\n"
                                     f"    return s.count('-')\n")
    files["text/words.py"] = (
        "def slugify(value):\n"
        "    \"\"\"Convert to lowercase, drop what is not a letter and join the words by hyphens.\"\"\"\n"
        "    return '-'.join(value.lower().split())\n")
    return files


QUESTION = "turn an article title into a lowercase hyphen separated form safe to put in a web address"


@pytest.fixture(scope="module")
def slugs(tmp_path_factory):
    return indexed_files(tmp_path_factory.mktemp("slugs"), tmp_path_factory.mktemp("slugshome"), _repo())


def test_the_rarest_words_are_probed_with_their_inflections(slugs):
    gen, _, _ = slugs
    words = probes.rare_words(gen, ("title", "lowercase", "hyphen", "web", "whether", "zebra"))
    # rarest first; a word no doc comment or name holds (`zebra`) and function words are left out
    assert [w[0] for w in words[:2]] == ["lowercase", "hyphen"]
    assert "hyphens" in words[1]
    assert all(w[0] not in ("zebra", "whether") for w in words)


def test_a_pair_is_a_conjunction_of_both_words_in_doc_or_name():
    clauses = probes.pair_clauses([("a", "as"), ("b",), ("c",)])
    assert len(clauses) == 3  # every pair once
    first = clauses[0]
    assert [[(c.field, c.terms) for c in side] for side in first.all_of] == [
        [(F.DOC_TOKENS, ("a", "as")), (F.NAME_TOKENS, ("a", "as"))],
        [(F.DOC_TOKENS, ("b",)), (F.NAME_TOKENS, ("b",))]]


def test_the_definition_holding_two_rare_words_joins_the_candidates(slugs):
    gen, repo, ref = slugs
    p = plan_query(gen, repo, ref, QUESTION)  # each channel fetches fewer hits than there are distractors
    assert all(c.fetch < DISTRACTORS for c in p.channels)
    hits, _ = run_plan(gen, repo, ref, replace(p, limit=10 * DISTRACTORS))  # every candidate
    assert "slugify" in [h.name for h in hits]


def test_only_questions_in_words_are_probed(slugs):
    gen, repo, ref = slugs
    assert any(c.name == "probes" for c in plan_query(gen, repo, ref, QUESTION).channels)
    for query in ("slugify", "render_page_1", "pages/page1.py"):
        assert not any(c.name == "probes" for c in plan_query(gen, repo, ref, query).channels)
    # the pure plan never holds it: choosing the words needs the index
    assert not any(c.name == "probes" for c in planner.plan(QUESTION).channels)

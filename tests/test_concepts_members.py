"""A question answered by one method of a long class (issue 17 user probes, py-probe: rich's
`Text.detect_indentation`, `Console.is_terminal`): the class keeps its methods in its own snippet
chunk, and the chunk's best-matching line may lie in another method that says the question's
words more often. The snippets channel then surfaces each method holding the chunk's next best
lines too, not only the one holding the best line."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.project import open_project
from cruxe.query import plan_query
from cruxe.query.search import MAX_CHUNK_MEMBERS, _candidates
from cruxe.store import search_index

TEXT = '''\
class Text:
    """Styled text."""

    def with_guides(self, size=None):
        """Draw guide lines at every indentation level.

        However many spaces one indentation level takes, a guide is drawn at each level of
        each line; a blank line keeps the indentation of the line above.
        """
        size = size or self.indentation_width()
        return [self.guide(line, size) for line in self.lines]

    def indentation_width(self):
        """The width in spaces of one level of indentation in this code."""
        widths = {len(line) - len(line.lstrip(" ")) for line in self.lines}
        return min((w for w in widths if w), default=1)

    def guide(self, line, size):
        return line
'''


def _snippet_candidates(root, query):
    run_index(root)
    project = open_project(root)
    ref = project.default_ref()
    gen = project.store.current_generation(ref)
    p = plan_query(gen, project.id, ref, query, limit=10)
    channel = next(c for c in p.channels if c.index == "snippets")
    docs, clauses = search_index(gen, "snippets", channel.clauses, channel.fetch, project.id, ref, None, ())
    return [(h.path, h.name) for h in _candidates(gen, project.id, ref, "snippets", docs, clauses, p, {}, {})]


def test_a_class_chunk_surfaces_each_method_its_matching_lines_are_in(make_repo):
    hits = _snippet_candidates(make_repo({"text.py": TEXT}), "how many spaces one level of indentation takes")
    assert hits[:2] == [("text.py", "with_guides"), ("text.py", "indentation_width")], hits
    assert len(hits) <= MAX_CHUNK_MEMBERS


def test_a_name_query_keeps_one_hit_per_chunk(make_repo):
    hits = _snippet_candidates(make_repo({"text.py": TEXT}), "indentation_width")
    assert len([h for h in hits if h[0] == "text.py"]) == 1, hits

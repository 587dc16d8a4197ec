"""A line of the repository's code pasted as a query (whole, or its first words) is answered
first by where it is: the definition it is in, or the line itself; source before the tests
that repeat it. Text that is on many lines (an idiom) or a bare name is left to retrieval.
`bench/pasted_lines.py` measures it on the kit's corpora against `rg -F`."""
from __future__ import annotations

import pytest

from cruxe.query import search_code
from support.repos import indexed_files

COOKIE_LOOP = "\tfor _, cookie := range cookies {\n\t\tjar.add(cookie)\n\t}\n"
REPO = {
    # many functions saying the same identifiers: the words alone do not find the line
    "jar/jar.go": "package jar\n\n" + "".join(
        f"// Cookies{i} returns the cookies of the jar, cookie by cookie.\n"
        f"func Cookies{i}(jar *Jar, cookies []Cookie) []Cookie {{\n\tfor i := range cookies {{\n"
        f"\t\tjar.cookie(cookies[i])\n\t}}\n\treturn cookies\n}}\n\n" for i in range(12))
    + "func SetCookies(jar *Jar, cookies []Cookie) {\n\tjar.lock()\n" + COOKIE_LOOP + "\tjar.unlock()\n}\n",
    "jar/jar_test.go": "package jar\n\nfunc TestSet(t *T) {\n\tcookies := testCookies()\n" + COOKIE_LOOP + "}\n",
    "src/bytes.rs": ("pub struct Bytes { len: usize }\n\npub trait Buf {\n    fn remaining(&self) -> usize;\n}\n\n"
                     "impl Buf for Bytes {\n    fn remaining(&self) -> usize {\n        self.len\n    }\n}\n"),
    "app/session.py": ("class Session:\n    def send(self, request, stream=False, timeout=None):\n"
                       "        return self.adapter.send(request)\n\n"
                       + "".join(f"    def get{i}(self, url):\n        return self.request('GET', url)\n\n" for i in range(8))),
}


@pytest.fixture
def indexed(tmp_path):
    return indexed_files(tmp_path / "repo", tmp_path / "home", REPO)


@pytest.mark.parametrize("query, path, line, result_type", [
    ("for _, cookie := range cookies {", "jar/jar.go", 101, "symbol"),  # the function it is in
    ("for _, cookie := range", "jar/jar.go", 101, "symbol"),  # its first words
    ("impl Buf for Bytes", "src/bytes.rs", 7, "snippet"),  # a line no definition holds
    ("def send(self, request", "app/session.py", 2, "symbol"),  # the definition it starts
    ("// Cookies3 returns the cookies", "jar/jar.go", 28, "symbol"),  # the definition it documents
])
def test_a_pasted_line_is_answered_first_by_where_it_is(indexed, query, path, line, result_type):
    gen, repo, ref = indexed
    hits, _, _ = search_code(gen, repo, ref, query)
    first = hits[0]
    assert (first.path, first.result_type) == (path, result_type), [(h.path, h.line_start, h.name) for h in hits[:3]]
    assert first.line_start <= line <= first.line_end
    assert first.signals["pasted_line"] > 0 and first.signals["final_score"] == first.score


def test_the_source_line_comes_before_the_test_that_repeats_it(indexed):
    gen, repo, ref = indexed
    hits, _, _ = search_code(gen, repo, ref, "for _, cookie := range cookies {")
    assert [(h.path, h.name) for h in hits[:2]] == [("jar/jar.go", "SetCookies"), ("jar/jar_test.go", "TestSet")]


def test_an_idiom_on_many_lines_a_bare_name_and_prose_are_left_to_retrieval(indexed):
    gen, repo, ref = indexed
    hits, _, _ = search_code(gen, repo, ref, "return self.request('GET', url)")  # on 8 lines
    assert all(h.signals["pasted_line"] == 0 for h in hits)
    hits, _, _ = search_code(gen, repo, ref, "Session.send.request")  # spelled out nowhere as a line
    assert all(h.signals["pasted_line"] == 0 for h in hits)
    hits, _, _ = search_code(gen, repo, ref, "returns the cookies of the jar")  # a question a doc comment says
    assert all(h.signals["pasted_line"] == 0 for h in hits)

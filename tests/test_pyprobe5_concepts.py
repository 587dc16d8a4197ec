"""A question in words against a module-level value whose data says them (py-probe5, issue 17):
pyparsing's railroad-diagram HTML template, a string assigned to a variable, came first for a
question about a heading's anchor in markdown's table of contents, above every function, and the
module docstring assigned to `__doc__` sat in the first five for a question about caching. A
value's lines after its first are its data, not code doing the work: the function that says the
question in its name, doc comment and body comes first (query/coverage.py)."""
from __future__ import annotations

import pytest

from cruxe.query import search_code
from cruxe.query import signals as sig

from support.repos import indexed_files

TEMPLATE_REPO = {
    "diagram/template.py": (
        "PAGE_TEMPLATE = '''\n"
        "<!DOCTYPE html>\n<html>\n<body>\n"
        "<h1>Table of contents</h1>\n"
        "<p>Every heading text is turned into an anchor that is URL safe.</p>\n"
        "{% for heading in headings %}\n"
        "<a href=\"#{{ heading.anchor }}\">{{ heading.text }}</a>\n"
        "{% endfor %}\n"
        "</body>\n</html>\n"
        "'''\n"),
    "toc/anchors.py": (
        "import re\n\n\n"
        "def make_anchor(heading: str, separator: str) -> str:\n"
        "    \"\"\"An id safe to use in a URL.\"\"\"\n"
        "    value = re.sub(r'[^\\w\\s-]', '', heading).strip().lower()\n"
        "    return re.sub(r'[{}\\s]+'.format(separator), separator, value)\n\n\n"
        "def render_list(items: list) -> str:\n"
        "    \"\"\"The list of entries as nested HTML.\"\"\"\n"
        "    return ''.join('<li>%s</li>' % item for item in items)\n"),
}
QUESTION = "how is a heading's text turned into a URL-safe anchor for the table of contents?"


@pytest.fixture(scope="module")
def template_repo(tmp_path_factory):
    return indexed_files(tmp_path_factory.mktemp("template"), tmp_path_factory.mktemp("templatehome"),
                         TEMPLATE_REPO)


def test_the_function_comes_before_a_template_that_says_the_question(template_repo):
    gen, repo, ref = template_repo
    hits, _, _ = search_code(gen, repo, ref, QUESTION, limit=10)
    names = [h.name for h in hits]
    assert "PAGE_TEMPLATE" in names, names  # still found: listed after the work
    assert names.index("make_anchor") < names.index("PAGE_TEMPLATE"), names
    template = hits[names.index("PAGE_TEMPLATE")]
    assert template.signals["bodyless_penalty"] == sig.BODYLESS_PENALTY


def test_a_value_named_like_the_question_keeps_its_name_evidence(template_repo):
    # the value's first line and name still count: a question naming it finds it first
    gen, repo, ref = template_repo
    hits, _, _ = search_code(gen, repo, ref, "where is the page template defined?", limit=10)
    assert hits[0].name == "PAGE_TEMPLATE", [h.name for h in hits]

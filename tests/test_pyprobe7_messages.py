"""A pasted message's answer says the line that emits it (issue 17, seventh Python probe): the
answer is the innermost definition around the raise, and structlog's `ConsoleRenderer.__init__`
is 151 lines long, so `ValueError: Only one default column formatter allowed.` answered
545-695 and the agent had to read or search the method again for the raise. `emits_at` gives the
line (the best-fitting emitting line inside the result), at the `signature` and `context` detail
levels; `location` stays FR-102's five fields."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.tools import Server

BODY = "".join(f"        self.option_{i} = options.get('option_{i}')\n" for i in range(30))
FILES = {
    "render/render/dev.py": (
        "class ConsoleRenderer:\n"
        "    def __init__(self, columns=None, **options):\n"
        + BODY +
        "        defaults = [c for c in columns or () if c.key == '']\n"
        "        if not defaults:\n"
        "            raise ValueError(\"Must pass a default column formatter (a column with `key=''`).\")\n"
        "        if len(defaults) > 1:\n"
        "            raise ValueError('Only one default column formatter allowed.')\n"
        "        self.columns = columns\n\n\n"
        "def pad(s, length):\n"
        "    return s + ' ' * max(0, length - len(s))\n"),
}
RAISE_LINE = 2 + 30 + 5  # the second raise, after the class and def lines, the body and three lines


def test_a_pasted_message_s_answer_says_the_emitting_line(make_repo):
    root = make_repo(FILES)
    run_index(root)
    server = Server(root)
    query = "ValueError: Only one default column formatter allowed."
    payload, is_error = server.call_tool("search_code", {"query": query})
    assert not is_error, payload
    first = payload["results"][0]
    assert (first["path"], first["name"], first["line_start"]) == ("render/render/dev.py", "__init__", 2)
    assert first["emits_at"] == RAISE_LINE
    payload, _ = server.call_tool("search_code", {"query": query, "detail_level": "context"})
    assert payload["results"][0]["emits_at"] == RAISE_LINE
    payload, _ = server.call_tool("search_code", {"query": query, "detail_level": "location"})
    assert "emits_at" not in payload["results"][0]
    # a question in words is no pasted message: no emitting line to give
    payload, _ = server.call_tool("search_code", {"query": "pad a string with spaces to a width"})
    assert payload["results"] and all("emits_at" not in r for r in payload["results"])

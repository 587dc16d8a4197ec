"""A pasted exception whose message the repository does not write (it comes from a dependency or
the OS: httpx maps httpcore's `UnsupportedProtocol`, whose text is httpcore's) but whose class
the repository defines (issue 17, third Python probe: `httpx.UnsupportedProtocol: Request URL is
missing an 'http://' or 'https://' protocol.` answered click's `format_message` first). With no
site emitting the message, the class the paste names is the place to start: it comes first
(`stack_frame`, as a trace's own places), the word matches after it."""
from __future__ import annotations

from cruxe.index import run_index
from cruxe.tools import Server

FILES = {
    "pkg/__init__.py": "",
    "pkg/_exceptions.py": ("class TransportError(Exception):\n    pass\n\n\n"
                           "class UnsupportedProtocol(TransportError):\n    \"\"\"Attempted to make a request to an "
                           "unsupported protocol.\"\"\"\n"),
    "pkg/transport.py": ("import core\n\nfrom ._exceptions import UnsupportedProtocol\n\n"
                         "EXCEPTIONS = {core.UnsupportedProtocol: UnsupportedProtocol}\n"),
    "pkg/urls.py": ("def missing_protocol(url):\n    \"\"\"Is the request URL missing its protocol? An URL with "
                    "http or https is fine.\"\"\"\n    return '://' not in url\n"),
    "pkg/errors.py": "def fail(url):\n    raise ValueError(f'The URL {url} has no host.')\n",
}


def _top(root, query: str) -> tuple[list[tuple[str, int]], dict]:
    payload, is_error = Server(root).call_tool("search_code", {"query": query})
    assert not is_error, payload
    return [(r["path"], r["line_start"]) for r in payload["results"]], payload


def test_a_foreign_message_of_a_repository_exception_class_answers_the_class_first(make_repo):
    root = make_repo(FILES)
    run_index(root)
    found, payload = _top(root, "pkg.UnsupportedProtocol: Request URL is missing an 'http://' or 'https://' "
                                "protocol.")
    assert found[0] == ("pkg/_exceptions.py", 5)
    assert ("pkg/urls.py", 1) in found  # the word matches stay, after it
    assert any(w.startswith("no_emitting_site") for w in payload["metadata"]["warnings"])


def test_a_message_the_repository_emits_keeps_its_site_first(make_repo):
    root = make_repo({**FILES, "pkg/_exceptions.py": FILES["pkg/_exceptions.py"] + (
        "\n\ndef check(url):\n    raise UnsupportedProtocol(f'Request URL {url} is missing a protocol.')\n")})
    run_index(root)
    found, _ = _top(root, "pkg.UnsupportedProtocol: Request URL 'example.org' is missing a protocol.")
    assert found[0][0] == "pkg/_exceptions.py" and found[0][1] >= 9

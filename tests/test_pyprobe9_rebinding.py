"""A method called on a local in the value of the assignment that binds that local again is the
method of the class the earlier binding shows (issue 17, ninth Python probe: starlette's
`HTTPSRedirectMiddleware` and `StaticFiles` write `url = URL(scope=scope)` and then
`url = url.replace(...)`; both calls were left `opaque`, `replace` being a str method name, and
`URL.replace` listed neither caller, while `redirect_url = url.replace(...)` resolved). The new
binding takes effect only after its value is computed, in a branch too. A rebinding inside a loop,
reached again after it ran once, decides nothing."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FILES = {
    "web/datastructures.py": ("class URL:\n"
                              "    def __init__(self, url='', scope=None):\n"
                              "        self._url = url\n"
                              "\n"
                              "    @property\n"
                              "    def path(self):\n"  # 6
                              "        return self._url\n"
                              "\n"
                              "    def replace(self, **kwargs):\n"  # 9
                              "        return URL(self._url)\n"),
    "web/redirect.py": ("from web.datastructures import URL\n"
                        "\n"
                        "\n"
                        "def to_https(scope):\n"
                        "    url = URL(scope=scope)\n"
                        "    url = url.replace(scheme='https')\n"  # 6
                        "    return url\n"
                        "\n"
                        "\n"
                        "def with_slash(scope):\n"
                        "    url = URL(scope=scope)\n"
                        "    if scope:\n"
                        "        url = url.replace(path=url.path + '/')\n"  # 13: in a branch, still after the use
                        "    return url\n"
                        "\n"
                        "\n"
                        "def trail(scope, parts):\n"
                        "    url = URL(scope=scope)\n"
                        "    for part in parts:\n"
                        "        url = url.replace(path=part)\n"  # 20: a loop runs it on its own result
                        "    return url\n"),
}


def test_the_value_of_a_rebinding_reads_the_binding_before_it(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "URL.replace")["references"]) == [("web/redirect.py", 6), ("web/redirect.py", 13)]


def test_a_rebinding_in_a_loop_decides_nothing(make_repo):
    root = make_repo(FILES)
    run_index(root)
    out = refs(root, "URL.replace")
    # not tied to the class, and not dropped: still a candidate for the agent to read
    assert ("web/redirect.py", 20) not in set(sites(out["references"]))
    assert [(u["path"], u["line_start"]) for u in out["unresolved"]] == [("web/redirect.py", 20)]

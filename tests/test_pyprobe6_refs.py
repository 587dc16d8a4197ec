"""Python references the sixth probe (sqlparse, h11, jsonschema, boltons) met:
- a package whose `__init__` imports its own submodules by name (sqlparse's `from sqlparse import
  formatter`, `from . import lexer`): `formatter.validate_options(...)` in the `__init__`, and
  `sqlparse.formatter.validate_options(...)` in a module that did `import sqlparse`, call the
  submodule's function. The package's own import of the name led back to the package, a cycle
  that answered nothing, and the submodule was never tried (both calls were left unresolved);
- a mixin, a class with no bases of its own (sqlparse's `NameAliasMixin`, mixed into `Identifier`
  beside `TokenList`), calling `self.token_next_by(...)` that a class it is mixed with defines: with
  one method of that name in the repository, that is the one called (the calls were left unknown,
  as an attribute the class lacks). A class with bases keeps the rule it had: what it lacks may come
  from an outside base; nor is it a guess when the class assigns the name itself (a callback held in
  `self.on_close`)."""
from __future__ import annotations

from cruxe.index import run_index

from support.references import refs, sites

FILES = {
    "sqlfmt/setup.py": "from setuptools import setup\n\nsetup(name='sqlfmt')\n",
    "sqlfmt/sqlfmt/__init__.py": ("from sqlfmt import formatter\n"
                                  "from . import lexer\n\n\n"
                                  "def format(sql, **options):\n"
                                  "    options = formatter.validate_options(options)\n"
                                  "    return ' '.join(lexer.tokenize(sql))\n"),
    "sqlfmt/sqlfmt/formatter.py": "def validate_options(options):\n    return dict(options)\n",
    "sqlfmt/sqlfmt/lexer.py": "def tokenize(text):\n    return text.split()\n",
    "sqlfmt/sqlfmt/cli.py": ("import sqlfmt\n\n\n"
                             "def main(argv):\n"
                             "    opts = sqlfmt.formatter.validate_options({'reindent': True})\n"
                             "    return sqlfmt.lexer.tokenize(argv[0]), opts\n"),
}


def test_a_package_importing_its_own_submodule_reaches_the_submodule(make_repo):
    root = make_repo(FILES)
    run_index(root)
    assert sites(refs(root, "validate_options")["references"]) == [("sqlfmt/sqlfmt/__init__.py", 6),
                                                                    ("sqlfmt/sqlfmt/cli.py", 5)]
    assert sites(refs(root, "tokenize")["references"]) == [("sqlfmt/sqlfmt/__init__.py", 7),
                                                            ("sqlfmt/sqlfmt/cli.py", 6)]


MIXIN = {
    "sqlmini/__init__.py": "",
    "sqlmini/sql.py": (
        "class NameAliasMixin:\n"
        "    \"\"\"Implements get_real_name and get_alias.\"\"\"\n\n"
        "    def get_real_name(self):\n"
        "        dot_idx, _ = self.token_next_by(m=('Punctuation', '.'))\n"
        "        return self._get_first_name(dot_idx, real_name=True)\n\n\n"
        "class TokenList:\n"
        "    def __init__(self, tokens=None):\n"
        "        self.tokens = tokens or []\n"
        "        [setattr(token, 'parent', self) for token in self.tokens]\n\n"
        "    def token_next_by(self, i=None, m=None, t=None, idx=-1, end=None):\n"
        "        return idx + 1, None\n\n"
        "    def _get_first_name(self, idx=None, real_name=False):\n"
        "        return None\n\n\n"
        "class Identifier(NameAliasMixin, TokenList):\n"
        "    \"\"\"Represents an identifier.\"\"\"\n\n\n"
        "class Logged(Exception):\n"
        "    def describe(self):\n"
        "        return self.with_traceback(None), self.token_next_by()\n"),
    "sqlmini/stream.py": (
        "class Stream:\n"
        "    def __init__(self, on_close):\n"
        "        self.on_close = on_close\n\n"
        "    def close(self):\n"
        "        self.on_close()\n\n\n"
        "class Channel:\n"
        "    def on_close(self):\n"
        "        return None\n\n"
        "    def open(self):\n"
        "        return Stream(self.on_close)\n"),
}


def test_a_mixin_calls_the_method_a_class_it_is_mixed_with_defines(make_repo):
    root = make_repo(MIXIN)
    run_index(root)
    assert sites(refs(root, "token_next_by")["references"]) == [("sqlmini/sql.py", 5)]
    assert sites(refs(root, "_get_first_name")["references"]) == [("sqlmini/sql.py", 6)]
    # a class that assigns the name holds a value of its own under it (here a callback)
    assert ("sqlmini/stream.py", 6) not in sites(refs(root, "on_close")["references"])

"""Gitignore rules with git's wildmatch semantics, matched without catastrophic backtracking.

A pattern is parsed as git parses it (`dir.c`: trailing spaces trimmed unless escaped, `!`
negates, a trailing `/` makes it directory-only, a `/` elsewhere anchors it to the ignore file's
directory; without one it matches the base name at any depth) and matched as `wildmatch` with
`WM_PATHNAME` matches: on bytes, so `?` and `[...]` take one byte as git does; `*`, `?` and
classes never match `/`; `**` is special only as a whole path segment (leading `**/`, `/**/`,
trailing `/**`), elsewhere a run of stars is one `*`.

Matching is translated to a regular expression whose worst case is polynomial. Regex
translations that turn `*` into `[^/]*` chains backtrack through every way of splitting a name
between the stars (`*a*a*a*a*a*a*a*a*a*a*a*a*b` against a long run of `a` never finishes). Here
each piece of a segment between two stars is searched for at its leftmost position and kept
there (an atomic group): a later star can absorb whatever an earlier, leftmost choice leaves
over, so no other split can succeed where that one fails. The same argument holds one level up
for path segments between two `**`. Each segment must end where a path component ends, so no
segment's match is revisited either. A pattern costs at most about (pattern length x path
length) steps per path.

A layer's rules are joined into one alternation, last rule first, so the regex engine reports
the last rule that matches (gitignore's "last match wins") in a single call per path.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_PATTERN_BYTES = 4096  # real patterns are short; a longer line is an attack or an accident
MAX_PATTERNS = 10_000  # per ignore file: compiling the rules costs time in proportion to them

# git's own ctype (ctype.c), ASCII only: no byte of 128 or more is in any class.
_POSIX_CLASSES: dict[bytes, frozenset[int]] = {
    b"alnum": frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    b"alpha": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset([*range(32), 127]),
    b"digit": frozenset(b"0123456789"),
    b"graph": frozenset(range(33, 127)),
    b"lower": frozenset(b"abcdefghijklmnopqrstuvwxyz"),
    b"print": frozenset(range(32, 127)),
    b"punct": frozenset(c for c in range(33, 127) if not chr(c).isalnum()),
    b"space": frozenset(b" \t\n\r"),
    b"upper": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    b"xdigit": frozenset(b"0123456789ABCDEFabcdef"),
}
_SLASH = ord("/")

_STAR, _SLASH_TOKEN = "star", "sep"  # token kinds besides a one-byte regex fragment


class PatternError(ValueError):
    """A pattern git would accept but that cannot match anything (or not what was meant)."""


@dataclass(frozen=True, slots=True)
class Rule:
    negated: bool
    dir_only: bool
    basename: bool  # no slash: matched against the last path component at any depth
    regex: bytes  # matches the whole subject (base name, or path below the ignore file)


# ---- parsing a line ----------------------------------------------------------------------------

def _trim_trailing_spaces(line: bytes) -> bytes:
    """git's rule: trailing spaces go unless the last one is escaped with a backslash."""
    last_space = None
    i = 0
    while i < len(line):
        c = line[i]
        if c == 0x20:
            if last_space is None:
                last_space = i
        elif c == 0x5C:  # backslash: the next byte is taken literally
            i += 1
            if i >= len(line):
                return line
            last_space = None
        else:
            last_space = None
        i += 1
    return line if last_space is None else line[:last_space]


def compile_line(line: bytes, notes: list[str] | None = None) -> Rule | None:
    """One line of an ignore file as a rule; None for a blank line or a comment.

    Raises PatternError for a line git keeps but that can never match (a trailing backslash,
    an unclosed `[`, an unknown `[:class:]`, a lone `!`). A class with a reversed range, which
    git reads as matching nothing, is kept as git keeps it, with a note added to `notes`.
    """
    if not line or line[0] == 0x23:  # '#'
        return None
    line = _trim_trailing_spaces(line)
    if not line:
        return None
    negated = line[0] == 0x21  # '!'
    if negated:
        line = line[1:]
        if not line:
            raise PatternError("'!' with no pattern after it negates nothing")
    dir_only = line.endswith(b"/")
    if dir_only:
        line = line[:-1]
    if not line:
        raise PatternError("an empty pattern matches nothing")
    basename = b"/" not in line  # git counts any '/', escaped or inside brackets
    if line.startswith(b"/"):
        line = line[1:]
    tokens = _tokenize(line, [] if notes is None else notes)
    regex = _segment(tokens) if basename else _path_regex(tokens)
    return Rule(negated, dir_only, basename, regex)


def _tokenize(p: bytes, notes: list[str]) -> list:
    """Bytes of a pattern -> tokens: a regex fragment for one byte, (_STAR, run length), _SLASH_TOKEN."""
    out: list = []
    i, n = 0, len(p)
    while i < n:
        c = p[i]
        if c == 0x5C:  # backslash
            if i + 1 >= n:
                raise PatternError("a trailing backslash escapes nothing; git never matches it")
            i += 1
            out.append(_SLASH_TOKEN if p[i] == _SLASH else _byte(p[i]))
        elif c == 0x2A:  # '*'
            j = i
            while j < n and p[j] == 0x2A:
                j += 1
            out.append((_STAR, j - i))
            i = j - 1
        elif c == 0x3F:  # '?'
            out.append(b"[^/]")
        elif c == 0x5B:  # '['
            members, i = _bracket(p, i, notes)
            out.append(_class_regex(members))
        elif c == _SLASH:
            out.append(_SLASH_TOKEN)
        else:
            out.append(_byte(c))
        i += 1
    return out


def _byte(c: int) -> bytes:
    return b"\\x%02x" % c


def _bracket(p: bytes, i: int, notes: list[str]) -> tuple[frozenset[int], int]:
    """The bytes a `[...]` starting at p[i] matches, and the index of its closing `]`.
    Follows wildmatch's loop: the first member may be `]`, `-` is a range only between two
    single bytes, `\\` escapes, `[:name:]` is a class and `[:` without `:]` is a literal `[`."""
    n = len(p)
    i += 1
    negate = i < n and p[i] in (0x21, 0x5E)  # '!' or '^'
    if negate:
        i += 1
    members: set[int] = set()
    prev = 0  # the previous single byte, 0 after a range or a class (then '-' is literal)
    first = True
    while True:
        if i >= n:
            raise PatternError("'[' is never closed; git never matches it")
        c = p[i]
        if c == 0x5D and not first:  # ']'
            break
        first = False
        if c == 0x5C:
            i += 1
            if i >= n:
                raise PatternError("a trailing backslash escapes nothing; git never matches it")
            c = p[i]
            members.add(c)
        elif c == 0x2D and prev and i + 1 < n and p[i + 1] != 0x5D:  # '-' between two bytes
            i += 1
            hi = p[i]
            if hi == 0x5C:
                i += 1
                if i >= n:
                    raise PatternError("a trailing backslash escapes nothing; git never matches it")
                hi = p[i]
            if hi < prev:
                notes.append(f"the range {chr(prev)}-{chr(hi)} is reversed and matches nothing, as in git")
            members.update(range(prev, hi + 1))
            c = 0
        elif c == 0x5B and i + 1 < n and p[i + 1] == 0x3A:  # '[:'
            c, i = _posix_class(p, i, members)
        else:
            members.add(c)
        prev = c
        i += 1
    if negate:
        members = set(range(256)) - members
    members.discard(_SLASH)  # with WM_PATHNAME a class never matches '/'
    return frozenset(members), i


def _posix_class(p: bytes, i: int, members: set[int]) -> tuple[int, int]:
    """`[:name:]` at p[i]: adds its members; returns (0, index of its last ']'), or the literal
    `[` (and its index) when no `:]` closes it, as wildmatch does."""
    end = p.find(b"]", i + 2)
    if end < 0:
        raise PatternError("'[' is never closed; git never matches it")
    if end - (i + 2) < 1 or p[end - 1] != 0x3A:  # no ':]': a literal '['
        members.add(0x5B)
        return 0x5B, i
    name = p[i + 2:end - 1]
    if name not in _POSIX_CLASSES:
        raise PatternError(f"unknown character class [:{name.decode('ascii', 'replace')}:]; git never matches it")
    members.update(_POSIX_CLASSES[name])
    return 0, end


def _class_regex(members: frozenset[int]) -> bytes:
    if not members:
        return b"(?!)"
    parts: list[bytes] = []
    run_start = prev = -2
    for c in sorted(members) + [-1]:
        if c == prev + 1:
            prev = c
            continue
        if run_start >= 0:
            parts.append(_byte(run_start) if run_start == prev else _byte(run_start) + b"-" + _byte(prev))
        run_start = prev = c
    return b"[" + b"".join(parts) + b"]"


# ---- tokens to regex ---------------------------------------------------------------------------

def _segment(tokens: list) -> bytes:
    """One path component's tokens: the pieces between stars, each after the first found at its
    leftmost place and kept there; the last must end the component."""
    pieces: list[bytes] = [b""]
    for t in tokens:
        if isinstance(t, tuple):  # a run of stars (inside a segment they are one `*`)
            pieces.append(b"")
        else:
            pieces[-1] += t
    if len(pieces) == 1:
        body = pieces[0]
    else:
        body = pieces[0] + b"".join(b"(?>[^/]*?" + p + b")" for p in pieces[1:-1]) + b"[^/]*" + pieces[-1]
    return b"(?>" + body + b"(?![^/]))"


def _path_regex(tokens: list) -> bytes:
    """A pattern with a slash: its segments, where a segment that is only two or more stars
    is git's `**` (zero or more components; one or more when it ends the pattern)."""
    segments: list[list] = [[]]
    for t in tokens:
        if t is _SLASH_TOKEN:
            segments.append([])
        else:
            segments[-1].append(t)
    groups: list[list[bytes]] = [[]]  # runs of ordinary segments between `**`s
    for seg in segments:
        if len(seg) == 1 and isinstance(seg[0], tuple) and seg[0][1] >= 2:
            if groups[-1] or len(groups) == 1:
                groups.append([])
            continue  # consecutive `**` segments act as one
        groups[-1].append(_segment(seg))
    out: list[bytes] = []
    for i, group in enumerate(groups):
        body, last = b"/".join(group), i == len(groups) - 1
        if i == 0:
            if group:
                out.append(body if last else body + b"/")
        elif last and not group:
            out.append(b".+")  # a trailing `**`: everything below, not the directory itself
        elif last:
            out.append(b"(?:[^/]*+/)*" + body)
        else:
            out.append(b"(?>(?:[^/]*+/)*?" + body + b"/)")
    return b"".join(out)


# ---- a file's rules ----------------------------------------------------------------------------

class RuleSet:
    """The rules of one ignore file. `decide` answers for one path below the file's directory:
    True (excluded), False (re-included by a `!` rule) or None (no rule matches)."""

    def __init__(self, rules: list[Rule]):
        self.rules = rules
        self._files = (self._build(False, True), self._build(False, False))
        self._dirs = (self._build(True, True), self._build(True, False))

    def _build(self, dirs: bool, basename: bool) -> tuple[re.Pattern | None, list[tuple[int, bool]]]:
        """One alternation, last rule first, each alternative ending in an empty group: the
        group that matched (`lastindex`) names the last matching rule, (index, negated)."""
        alts: list[bytes] = []
        meta: list[tuple[int, bool]] = [(-1, False)]
        for i in range(len(self.rules) - 1, -1, -1):
            r = self.rules[i]
            if r.basename == basename and (dirs or not r.dir_only):
                alts.append(r.regex + b"()")
                meta.append((i, r.negated))
        return (re.compile(b"|".join(alts), re.DOTALL) if alts else None), meta

    def decide(self, path: bytes, name: bytes, is_dir: bool) -> bool | None:
        (name_re, name_meta), (path_re, path_meta) = self._dirs if is_dir else self._files
        best = (-1, False)
        if name_re is not None:
            m = name_re.fullmatch(name)
            if m:
                best = name_meta[m.lastindex]
        if path_re is not None and path_meta[1][0] > best[0]:
            m = path_re.fullmatch(path)
            if m and path_meta[m.lastindex][0] > best[0]:
                best = path_meta[m.lastindex]
        return None if best[0] < 0 else not best[1]


def parse(data: bytes, source: str, warnings: list[str]) -> RuleSet:
    """An ignore file's bytes as rules. A line that cannot be used is warned about (naming the
    file and line) and skipped; the other lines still apply."""
    if data.startswith(b"\xef\xbb\xbf"):  # git skips a UTF-8 byte-order mark
        data = data[3:]
    rules: list[Rule] = []
    for lineno, line in enumerate(data.split(b"\n"), 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if line.startswith(b"#"):
            continue  # a comment, however long
        shown = line.decode("utf-8", "replace")
        if len(line) > MAX_PATTERN_BYTES:
            warnings.append(f"{source}:{lineno}: ignore pattern of {len(line)} bytes is over the "
                            f"{MAX_PATTERN_BYTES}-byte limit; skipped")
            continue
        notes: list[str] = []
        try:
            rule = compile_line(line, notes)
        except PatternError as e:
            warnings.append(f"{source}:{lineno}: invalid ignore pattern {shown!r} skipped ({e})")
            continue
        if notes:
            warnings.append(f"{source}:{lineno}: invalid ignore pattern {shown!r} ({'; '.join(notes)})")
        if rule is None:
            continue
        if len(rules) == MAX_PATTERNS:
            warnings.append(f"{source}:{lineno}: over {MAX_PATTERNS} ignore patterns; "
                            f"this line and the rest of the file are not used")
            break
        rules.append(rule)
    return RuleSet(rules)

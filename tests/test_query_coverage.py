"""The second look at a question's first results (query/coverage.py, issue 17): the definition
whose name, doc comment and body together say the question comes before things that match one
or two of its words strongly (a type named like one word, a constant), and the explanation of
the composed score stays exact."""
from __future__ import annotations

import pytest

from cruxe import shape
from cruxe.query import coverage as cv
from cruxe.query import search_code
from cruxe.query import signals as sig

from support.repos import indexed_files


def ranked(hits):
    return [(h.result_type, h.path, h.name, h.score) for h in hits]


# ---- concepts and their weights -----------------------------------------------------------------

def test_a_word_and_its_inflections_are_one_concept_and_function_words_none():
    cs = cv.concepts(("read", "reads", "reader", "whether", "buffer"))
    assert [c.word for c in cs] == ["read", "buffer"]
    assert "buf" in cs[1].forms  # the spelling code uses counts as the word itself
    assert "queue" in cs[1].related and "queue" not in cs[1].forms  # a relative counts less


def said(cs, name, text):
    return cv.Said.of(cs, name, text)


def test_saying_every_concept_once_beats_saying_one_many_times():
    cs = cv.concepts(("retry", "delay", "attempt"))
    rows = [said(cs, "retry_loop", "retry retry retry retry the retry"),
            said(cs, "next_attempt", "how long to delay before we retry"),
            said(cs, "unrelated", "nothing of the question here")]
    one, every, none = cv.scores(rows)
    assert every > one > none == 0.0


def test_a_concept_every_result_holds_decides_nothing_and_a_rare_one_much():
    cs = cv.concepts(("bytes", "exactly"))
    rows = [said(cs, "Buffer", "bytes bytes bytes"), said(cs, "ReadFull", "reads exactly len bytes"),
            said(cs, "Next", "the next bytes")]
    buffer, read_full, nxt = cv.scores(rows)
    # `bytes` is in all three: it tells them apart hardly at all; `exactly` decides
    assert read_full > 5 * max(buffer, nxt)


def test_a_relative_counts_less_than_the_word_and_mentions_saturate():
    cs = cv.concepts(("secret",))
    rows = [said(cs, "", "the secret"), said(cs, "", "the password"), said(cs, "", "secret secret secret"),
            said(cs, "", "other words only")]
    word, relative, thrice, _ = cv.scores(rows)
    assert word > relative > 0.0
    assert word < thrice < 1.0  # more mentions count more, never past the whole concept


# ---- the ranking ----------------------------------------------------------------------------------

# A question whose words a type and a constant match by name, and a function whose doc comment
# says all of it; other files make the words common enough that BM25 does not decide alone.
READ_FULL_REPO = {
    "bytes/buffer.go": (
        "package bytes\n\n"
        "// A Buffer is a variable-sized buffer of bytes with Read and Write methods.\n"
        "// The zero value for Buffer is an empty buffer ready to use.\n"
        "type Buffer struct {\n\tbuf []byte // contents are the bytes buf[off : len(buf)]\n"
        "\toff int // read at &buf[off], write at &buf[len(buf)]\n}\n\n"
        "// MinRead is the minimum slice size passed to a Read call by Buffer.ReadFrom.\n"
        "const MinRead = 512\n\n"
        "// Read reads the next len(p) bytes from the buffer or until the buffer is drained.\n"
        "func (b *Buffer) Read(p []byte) (n int, err error) {\n"
        "\tn = copy(p, b.buf[b.off:])\n\tb.off += n\n\treturn n, nil\n}\n"),
    "io/io.go": (
        "package io\n\n"
        "// ErrShortBuffer means that a read required a longer buffer than was provided.\n"
        "var ErrShortBuffer = errors.New(\"short buffer\")\n\n"
        "// ShortReadBuffer is the size in bytes of the buffer of a short read.\n"
        "var ShortReadBuffer = 64\n\n"
        "// ReadFull reads exactly len(buf) bytes from r into buf.\n"
        "// It returns the number of bytes copied and an error if fewer bytes were read.\n"
        "func ReadFull(r Reader, buf []byte) (n int, err error) {\n"
        "\treturn ReadAtLeast(r, buf, len(buf))\n}\n\n"
        "// ReadAtLeast reads from r into buf until it has read at least min bytes.\n"
        "func ReadAtLeast(r Reader, buf []byte, min int) (n int, err error) {\n"
        "\tfor n < min && err == nil {\n\t\tvar nn int\n\t\tnn, err = r.Read(buf[n:])\n\t\tn += nn\n\t}\n"
        "\treturn n, err\n}\n"),
    "bufio/bufio.go": (
        "package bufio\n\n"
        "// Available returns how many bytes are unused in the buffer.\n"
        "func (b *Writer) Available() int { return len(b.buf) - b.n }\n\n"
        "// Buffered returns the number of bytes that have been written into the current buffer.\n"
        "func (b *Writer) Buffered() int { return b.n }\n"),
}
QUESTION = "read exactly as many bytes as the buffer holds and fail on a short read"


@pytest.fixture(scope="module")
def read_full(tmp_path_factory):
    return indexed_files(tmp_path_factory.mktemp("readfull"), tmp_path_factory.mktemp("readfullhome"),
                         READ_FULL_REPO)


def test_the_function_that_says_the_whole_question_comes_before_word_matches(read_full):
    gen, repo, ref = read_full
    hits, _, _ = search_code(gen, repo, ref, QUESTION)
    assert hits[0].name == "ReadFull", ranked(hits)
    first = hits[0].signals
    assert first["query_coverage"] == sig.QUERY_COVERAGE_BOOST  # the window's best says the most


def test_a_constant_saying_less_than_a_function_is_listed_after_it(read_full):
    gen, repo, ref = read_full
    hits, _, _ = search_code(gen, repo, ref, QUESTION, limit=20)
    short = next(h for h in hits if h.name == "ErrShortBuffer")
    assert short.signals["bodyless_penalty"] == sig.BODYLESS_PENALTY
    assert [h.name for h in hits].index("ReadFull") < [h.name for h in hits].index("ErrShortBuffer")
    # a definition with a body never gets it
    assert all(h.signals["bodyless_penalty"] == 0.0 for h in hits if h.kind in ("function", "method"))


def test_a_type_saying_less_than_a_function_is_listed_after_it_too(read_full):
    # a type's doc comment says what it holds, not what is done with it: `Buffer`, named like a
    # word of the question, says less of it than `ReadFull` and gets the penalty a constant gets
    gen, repo, ref = read_full
    hits, _, _ = search_code(gen, repo, ref, QUESTION, limit=20)
    buffer = next(h for h in hits if h.name == "Buffer")
    assert buffer.kind == "struct" and buffer.signals["bodyless_penalty"] == sig.BODYLESS_PENALTY


def test_a_full_explanation_adds_up_with_coverage_and_the_bodyless_penalty(read_full):
    gen, repo, ref = read_full
    hits, _, _ = search_code(gen, repo, ref, QUESTION, limit=20)
    parts = ("bm25_score", "exact_match_boost", "qualified_name_boost", "path_affinity", "definition_boost",
             "kind_match", "test_file_penalty", "declaration_penalty", "query_coverage", "bodyless_penalty")
    reasons = shape.ranking_reasons(hits, "full")
    assert any(r["query_coverage"] for r in reasons) and any(r["bodyless_penalty"] for r in reasons)
    for r in reasons:
        assert round(sum(r[k] for k in parts), 6) == r["final_score"]


def test_a_name_query_gets_no_coverage(read_full):
    gen, repo, ref = read_full
    hits, _, _ = search_code(gen, repo, ref, "ErrShortBuffer")
    assert hits[0].name == "ErrShortBuffer"
    assert all(h.signals["query_coverage"] == h.signals["bodyless_penalty"] == 0.0 for h in hits)


# A package's doc comment is a snippet (lines outside any definition) that says a question's
# words as prose about the whole package; the function that does it comes first.
PACKAGE_DOC = {**READ_FULL_REPO, "io/doc.go": (
    "// Package io reads: exactly as many bytes as a buffer holds, failing on a short read,\n"
    "// is what a reader of this package does, read after read, buffer after buffer.\n"
    "package io\n")}


def test_a_snippet_gets_its_share_of_the_coverage_and_the_function_comes_first(tmp_path):
    gen, repo, ref = indexed_files(tmp_path / "repo", tmp_path / "home", PACKAGE_DOC)
    hits, _, _ = search_code(gen, repo, ref, QUESTION, limit=20)
    doc = next(h for h in hits if h.path == "io/doc.go")
    assert doc.result_type == "snippet" and 0 < doc.signals["query_coverage"] <= sig.QUERY_COVERAGE_BOOST * cv.SNIPPET_SHARE
    assert hits[0].name == "ReadFull", ranked(hits)

"""A Go call of a method that a type of the repository gets from an outside package's type it
embeds (seventh user probe: go-chi's `compressResponseWriter` embeds `http.ResponseWriter`, and
`cw.Header()` in its own methods). The type has no method of that name, so the call was a guess
by the name: ambiguous among the repository's `Header` methods (echo's `Response`, chi's
`basicWriter`), and listed among their unresolved references. Such a call is external now: on
the method's receiver, on a typed local, and through a type of the repository that embeds the
outside one."""
from __future__ import annotations

import pytest

from support.gofields import indexed_call_targets
from support.gofields import marker_line as _line

WRITERS = '''\
package a

import "net/http"

type Response struct{}

func (r *Response) Header() http.Header { return nil }

type basicWriter struct{}

func (b *basicWriter) Header() http.Header { return nil }
'''
COMPRESS = '''\
package a

import "net/http"

type compressWriter struct {
	http.ResponseWriter
	encoding string
}

type gzipWriter struct {
	*compressWriter
}

type plainWriter struct {
	encoding string
}

func (cw *compressWriter) isCompressable() bool {
	return cw.Header().Get("Content-Type") != "" // receiver
}

func wrap(w http.ResponseWriter) {
	cw := &compressWriter{ResponseWriter: w}
	cw.Header().Set("Vary", "Accept-Encoding") // typed local
	gw := &gzipWriter{cw}
	gw.Header().Del("Content-Length") // embedded twice
	pw := &plainWriter{}
	pw.Header() // nothing embedded
}
'''


@pytest.fixture()
def calls(tmp_path, monkeypatch) -> dict:
    return indexed_call_targets(tmp_path, monkeypatch, {"a/writers.go": WRITERS, "a/compress.go": COMPRESS})


@pytest.mark.parametrize("marker", ["// receiver", "// typed local", "// embedded twice"])
def test_a_method_promoted_from_an_outside_type_is_external(calls, marker):
    assert calls[("a/compress.go", _line(COMPRESS, marker), "Header")] == ("", "external")


def test_a_type_embedding_nothing_keeps_the_guess(calls):
    assert calls[("a/compress.go", _line(COMPRESS, "// nothing embedded"), "Header")] == ("", "ambiguous")

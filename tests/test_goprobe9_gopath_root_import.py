"""A Go project without a go.mod that imports its own root package (ninth user probe:
dgrijalva/jwt-go's `cmd/jwt/app.go` imports `jwt "github.com/dgrijalva/jwt-go"` and calls
`jwt.GetSigningMethod`, as do its `request/` package and its `jwt_test` files). With no module
line to map the path, only a repository directory of two components or more that ends it
counted, so `jwt-go/` was never found: every such call was external and find_references missed
it. One component counts now when the importing file lies inside that directory; a file
elsewhere importing a path that ends with the same name stays outside."""
from __future__ import annotations

import pytest

from support.gofields import marker_line
from support.incremental import call_targets
from support.repos import indexed_files

SIGNING = '''\
package jwt

import "sync"

var signingMethods = map[string]func() SigningMethod{}
var signingMethodLock = new(sync.RWMutex)

// SigningMethod can be used to add new methods for signing or verifying tokens.
type SigningMethod interface {
	Alg() string
}

// RegisterSigningMethod registers the "alg" name and a factory function for a signing method.
func RegisterSigningMethod(alg string, f func() SigningMethod) {
	signingMethodLock.Lock()
	defer signingMethodLock.Unlock()
	signingMethods[alg] = f
}

// GetSigningMethod gets a signing method from an "alg" string.
func GetSigningMethod(alg string) (method SigningMethod) {
	signingMethodLock.RLock()
	defer signingMethodLock.RUnlock()
	if methodF, ok := signingMethods[alg]; ok {
		method = methodF()
	}
	return
}
'''
APP = '''\
package main

import (
	"flag"
	"fmt"

	jwt "github.com/dgrijalva/jwt-go"
)

var flagAlg = flag.String("alg", "", "signing algorithm identifier")

func signToken() error {
	alg := jwt.GetSigningMethod(*flagAlg) // aliased
	if alg == nil {
		return fmt.Errorf("Couldn't find signing method: %v", *flagAlg)
	}
	return nil
}
'''
REQUEST = '''\
package request

import (
	"net/http"

	"github.com/dgrijalva/jwt-go"
)

// MethodOf reads the signing method a request names in its header.
func MethodOf(req *http.Request) jwt.SigningMethod {
	return jwt.GetSigningMethod(req.Header.Get("X-Alg")) // by package name
}
'''
ELSEWHERE = '''\
package server

import "github.com/someone/jwt-go"

func check(alg string) bool {
	return jwt.GetSigningMethod(alg) != nil // another project's package
}
'''


@pytest.fixture()
def calls(tmp_path, monkeypatch) -> dict:
    root = tmp_path / "repo"
    indexed_files(root, tmp_path / "home", {"jwt-go/signing_method.go": SIGNING, "jwt-go/cmd/jwt/app.go": APP,
                                            "jwt-go/request/request.go": REQUEST, "server/check.go": ELSEWHERE})
    monkeypatch.setenv("CRUXE_HOME", str(tmp_path / "home"))
    return call_targets(root)


@pytest.mark.parametrize("path, text, marker", [("jwt-go/cmd/jwt/app.go", APP, "// aliased"),
                                                ("jwt-go/request/request.go", REQUEST, "// by package name")])
def test_a_project_imports_its_own_root_package(calls, path, text, marker):
    assert calls[(path, marker_line(text, marker), "GetSigningMethod")][0] == "jwt.GetSigningMethod"


def test_the_same_last_element_from_outside_stays_external(calls):
    assert calls[("server/check.go", marker_line(ELSEWHERE, "// another project's"), "GetSigningMethod")][0] == ""

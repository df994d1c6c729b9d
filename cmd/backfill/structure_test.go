package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// TestFlagsAndWiringOnly keeps this package what docs/architecture.md
// says it is, flags and wiring: no function over 60 lines (logic that
// grows goes to the package it belongs to, with its tests there).
func TestFlagsAndWiringOnly(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	funcs := 0
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				funcs++
				from, to := fset.Position(fd.Pos()), fset.Position(fd.End())
				if n := to.Line - from.Line + 1; n > 60 {
					t.Errorf("%s:%d: %s is %d lines long (at most 60 here: move its logic to a package)", from.Filename, from.Line, fd.Name.Name, n)
				}
			}
		}
	}
	if funcs < 50 {
		t.Fatalf("only %d functions found: the test reads the wrong directory", funcs)
	}
}

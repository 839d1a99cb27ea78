package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoHandlerOpensATransaction holds the controllers to the layers: a write is a unit of work in models, which
// owns its transaction (docs/architecture.md, Units of work), so no code of the controllers calls a Tx method.
func TestNoHandlerOpensATransaction(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("controllers", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Tx" {
					t.Errorf("%s opens a transaction: move the write into a unit of work of models",
						fset.Position(call.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

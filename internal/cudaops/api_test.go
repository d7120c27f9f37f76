package cudaops

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// apiEntry is one exported function or method: its receiver type (""
// for functions), name and signature as printed from the source.
type apiEntry struct{ recv, fn, sig string }

func (e apiEntry) name() string {
	if e.recv == "" {
		return e.fn
	}
	return e.recv + "." + e.fn
}

// exportedAPI parses the package's non-test files that build with tags
// (cgo on) and returns its exported functions and methods and exported
// type names (as entries with sig "type").
func exportedAPI(t testing.TB, tags []string) map[apiEntry]bool {
	t.Helper()
	ctx := build.Default
	ctx.CgoEnabled = true
	ctx.BuildTags = tags
	pkg, err := ctx.ImportDir(".", 0)
	if err != nil {
		t.Fatalf("tags %v: %v", tags, err)
	}
	files := append(slices.Clone(pkg.GoFiles), pkg.CgoFiles...)
	fset := token.NewFileSet()
	api := map[apiEntry]bool{}
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(".", name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if !decl.Name.IsExported() {
					continue
				}
				recv := ""
				if decl.Recv != nil {
					var b bytes.Buffer
					printer.Fprint(&b, fset, decl.Recv.List[0].Type)
					recv = strings.TrimPrefix(b.String(), "*")
					if !ast.IsExported(recv) {
						continue
					}
				}
				var b bytes.Buffer
				printer.Fprint(&b, fset, decl.Type)
				api[apiEntry{recv, decl.Name.Name, b.String()}] = true
			case *ast.GenDecl:
				for _, s := range decl.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() {
						api[apiEntry{"", ts.Name.Name, "type"}] = true
					}
				}
			}
		}
	}
	return api
}

// TestAPIPairs checks the fence from the source: the builds without CUDA,
// with cuda, and with cuda,cublas export the same functions, methods and
// types with identical signatures (parameter names included). It runs in
// every build, since it only parses files.
func TestAPIPairs(t *testing.T) {
	base := exportedAPI(t, nil)
	if len(base) < 20 {
		t.Fatalf("only %d exported names in the default build", len(base))
	}
	for _, tags := range [][]string{{"cuda"}, {"cuda", "cublas"}} {
		got := exportedAPI(t, tags)
		for e := range base {
			if !got[e] {
				t.Errorf("tags %v: missing or different: %s %s", tags, e.name(), e.sig)
			}
		}
		for e := range got {
			if !base[e] {
				t.Errorf("tags %v: not in the default build, or different there: %s %s", tags, e.name(), e.sig)
			}
		}
	}
	if t.Failed() {
		var names []string
		for e := range maps.Keys(base) {
			names = append(names, e.name()+" "+e.sig)
		}
		slices.Sort(names)
		t.Logf("default build:\n%s", strings.Join(names, "\n"))
	}
}

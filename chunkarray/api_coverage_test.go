package chunkarray

// The numpy / dask.array function list of docs/api.md and README.md (issue
// 13: "README lists every function with its Dask name"). Every public
// function of dask.array 2022.12 (testdata/dask_api.txt, written by
// testdata/gen_dask_api.py) is matched with chunkarray's exported API,
// read from this package's source: a package function or an *Array or
// *RandomState method whose name is the dask name without underscores,
// case aside (cumsum: Cumsum or x.Cumsum), or an entry of apiAliases. The
// list is written to docs/api.md and between README.md's api markers; the
// test fails when either is not what the API now is:
//
//	go test ./chunkarray -run TestAPICoverage -update-api

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update-api", false, "rewrite docs/api.md and README.md's function list")

// apiAliases names the chunkarray function (or "x.Method") of a dask name
// the rule does not find, as numpy's ufunc names that Go spells shorter.
var apiAliases = map[string]string{
	"da absolute":             "Abs",
	"da subtract":             "Sub",
	"da multiply":             "Mul",
	"da divide":               "Div",
	"da true_divide":          "Div",
	"da negative":             "Neg",
	"da power":                "Pow",
	"da floor_divide":         "FloorDiv",
	"da remainder":            "Mod",
	"da from_array":           "FromNDArray",
	"da asarray":              "FromNDArray",
	"da asanyarray":           "FromNDArray",
	"da array":                "FromNDArray",
	"da degrees":              "Rad2Deg",
	"da radians":              "Deg2Rad",
	"da bitwise_not":          "Invert",
	"da around":               "Round",
	"da fix":                  "Trunc",
	"da isnull":               "IsNaN",
	"da expand_dims":          "x.ExpandDims",
	"da transpose":            "x.T",
	"da.random randint":       "r.Integers",
	"da.random random_sample": "r.Uniform",
	"da.random random":        "r.Uniform",
}

// exportedAPI returns the exported package functions and the exported
// methods of Array ("x.Name") and RandomState ("r.Name") of the package in
// dir, by name without case.
func exportedAPI(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || !fd.Name.IsExported() {
					continue
				}
				name := fd.Name.Name
				if fd.Recv != nil {
					typ := fd.Recv.List[0].Type
					if st, ok := typ.(*ast.StarExpr); ok {
						typ = st.X
					}
					id, ok := typ.(*ast.Ident)
					if !ok {
						continue
					}
					switch id.Name {
					case "Array":
						name = "x." + name
					case "RandomState":
						name = "r." + name
					default:
						continue
					}
				}
				out[strings.ToLower(name)] = name
			}
		}
	}
	return out
}

type apiRow struct{ ns, dask, ours string }

func apiRows(t *testing.T) []apiRow {
	f, err := os.Open(filepath.Join("testdata", "dask_api.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	api := exportedAPI(t, ".")
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	var rows []apiRow
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ns, name, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("dask_api.txt: bad line %q", line)
		}
		r := apiRow{ns: ns, dask: name}
		if a, ok := apiAliases[line]; ok {
			r.ours = api[strings.ToLower(a)] // "" where a is not (yet) exported
		} else if ns == "da.random" {
			r.ours = api["r."+norm(name)]
		} else if v, ok := api[norm(name)]; ok {
			r.ours = v
		} else {
			r.ours = api["x."+norm(name)]
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// apiTable renders the rows as markdown: counts, then one table of four
// columns (two name pairs per line) per namespace.
func apiTable(rows []apiRow) string {
	var b strings.Builder
	covered := 0
	for _, r := range rows {
		if r.ours != "" {
			covered++
		}
	}
	fmt.Fprintf(&b, "chunkarray covers %d of the %d public functions of dask.array %s (namespace, linalg, fft, random).\n", covered, len(rows), "2022.12")
	fmt.Fprintf(&b, "`F` is `chunkarray.F`, `x.M` a method of `*chunkarray.Array`, `r.M` of `*chunkarray.RandomState`; — not yet.\n")
	var nss []string
	for _, r := range rows {
		if !slices.Contains(nss, r.ns) {
			nss = append(nss, r.ns)
		}
	}
	for _, ns := range nss {
		var sub []apiRow
		c := 0
		for _, r := range rows {
			if r.ns == ns {
				sub = append(sub, r)
				if r.ours != "" {
					c++
				}
			}
		}
		fmt.Fprintf(&b, "\n`%s`: %d of %d\n\n| dask | tessera | dask | tessera | dask | tessera |\n|---|---|---|---|---|---|\n", ns, c, len(sub))
		for i := 0; i < len(sub); i += 3 {
			b.WriteString("|")
			for j := i; j < i+3; j++ {
				if j >= len(sub) {
					b.WriteString(" | |")
					continue
				}
				ours := "—"
				if sub[j].ours != "" {
					ours = "`" + sub[j].ours + "`"
				}
				fmt.Fprintf(&b, " %s | %s |", sub[j].dask, ours)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

const (
	apiBegin = "<!-- api:begin (go test ./chunkarray -run TestAPICoverage -update-api) -->\n"
	apiEnd   = "<!-- api:end -->\n"
)

func TestAPICoverage(t *testing.T) {
	table := apiTable(apiRows(t))
	doc := "# chunkarray and dask.array, function by function\n\n" +
		"Written by `go test ./chunkarray -run TestAPICoverage -update-api` from\n" +
		"`chunkarray/testdata/dask_api.txt` (dask.array's public functions, by\n" +
		"`chunkarray/testdata/gen_dask_api.py`) and chunkarray's exported API.\n\n" + table
	docPath := filepath.Join("..", "docs", "api.md")
	readmePath := filepath.Join("..", "README.md")
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(readme), apiBegin)
	j := strings.Index(string(readme), apiEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no api markers %q … %q", apiBegin, apiEnd)
	}
	newReadme := string(readme[:i]) + apiBegin + "<details><summary>Every function, with its dask.array name</summary>\n\n" + table + "\n</details>\n" + string(readme[j:])
	if *updateAPI {
		if err := os.WriteFile(docPath, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(readmePath, []byte(newReadme), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(docPath)
	if err != nil || string(got) != doc {
		t.Errorf("docs/api.md is not current (%v): go test ./chunkarray -run TestAPICoverage -update-api", err)
	}
	if string(readme) != newReadme {
		t.Errorf("README.md's function list is not current: go test ./chunkarray -run TestAPICoverage -update-api")
	}
}

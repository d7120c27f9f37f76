package graph

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// CheckPath allows everything until RestrictPaths, then only the given
// directories and below, seeing through symbolic links and "..".
func TestRestrictPaths(t *testing.T) {
	defer UnrestrictPaths()
	root := t.TempDir()
	data, other := filepath.Join(root, "data"), filepath.Join(root, "other")
	for _, d := range []string{data, other, filepath.Join(data, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(other, filepath.Join(data, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath("test", "/etc/passwd"); err != nil {
		t.Fatalf("unrestricted: %v", err)
	}
	if err := RestrictPaths([]string{data}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{filepath.Join(data, "a.npy"), true},
		{filepath.Join(data, "sub", "new", "store.zarr"), true}, // not there yet
		{data, true},
		{filepath.Join(data, "..", "other", "a.npy"), false},
		{filepath.Join(data, "escape", "a.npy"), false}, // a link out
		{filepath.Join(data, "sub", "..", "..", "other"), false},
		{other, false},
		{"/etc/passwd", false},
		{root + "/data-evil/a.npy", false}, // a sibling sharing the prefix
	} {
		err := CheckPath("npy read", tc.path)
		if tc.ok != (err == nil) {
			t.Errorf("CheckPath(%s) = %v, want allowed %v", tc.path, err, tc.ok)
		}
		var pe *PathError
		if err != nil && (!errors.Is(err, ErrPathRefused) || !errors.As(err, &pe) || pe.Op != "npy read" || pe.Path != tc.path) {
			t.Errorf("CheckPath(%s): %v, want a *PathError naming the op and path", tc.path, err)
		}
	}
	if err := RestrictPaths(nil); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath("store", filepath.Join(data, "a.npy")); !errors.Is(err, ErrPathRefused) {
		t.Errorf("no directories: %v, want refused", err)
	}
	if err := RestrictPaths([]string{filepath.Join(root, "missing")}); err == nil {
		t.Error("RestrictPaths of a missing directory: no error")
	}
	if name, ok := ErrorName(&PathError{Op: "x", Path: "y"}); !ok || name != "graph.ErrPathRefused" {
		t.Errorf("ErrorName = %q, %v", name, ok)
	}
}

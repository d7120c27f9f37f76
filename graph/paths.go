package graph

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Ops that read or write files (npy, zarr and raw reads, stores) ask
// CheckPath first. A process that runs tasks for others, a worker of the
// distributed scheduler, confines them with RestrictPaths to the
// directories it was started with (`tessera worker -data-dir`): a client
// may only name files there. In any other process (Sync, Threaded, a
// LocalCluster's workers) nothing is restricted.
//
// The setting is process-wide, like the op registry, because it describes
// the process: a worker process serves one cluster with one set of
// directories. A context value was the alternative, rejected because the
// storage interfaces the ops write through (chunkarray's targets) take no
// context, and a per-task setting would have to be threaded through all
// of them for a value that never changes in a process.

// ErrPathRefused is the cause of CheckPath's error for a path outside the
// directories of RestrictPaths; it crosses processes by name
// ("graph.ErrPathRefused"), so errors.Is finds it on the client.
var ErrPathRefused = errors.New("path outside the directories this process may use")

func init() { RegisterError("graph.ErrPathRefused", ErrPathRefused) }

// PathError is CheckPath's error: Op is the operation that asked, Path the
// path it named, Dirs the directories allowed (none: the process was given
// none, so no file may be used).
type PathError struct {
	Op   string
	Path string
	Dirs []string
}

func (e *PathError) Error() string {
	if len(e.Dirs) == 0 {
		return fmt.Sprintf("%s: %s: %v: this worker was started without -data-dir, so its tasks may use no files", e.Op, e.Path, ErrPathRefused)
	}
	return fmt.Sprintf("%s: %s: %v (%s; see the worker's -data-dir)", e.Op, e.Path, ErrPathRefused, strings.Join(e.Dirs, ", "))
}

func (e *PathError) Unwrap() error { return ErrPathRefused }

var pathPolicy struct {
	sync.RWMutex
	set  bool
	dirs []string // resolved: absolute, symbolic links evaluated
}

// RestrictPaths confines the files that ops of this process may use to
// dirs and below (an empty list: no file at all). Each directory must
// exist; it is resolved to an absolute path with symbolic links evaluated,
// as every checked path is, so that a link cannot lead out.
func RestrictPaths(dirs []string) error {
	resolved := make([]string, 0, len(dirs))
	for _, d := range dirs {
		r, err := resolvePath(d)
		if err != nil {
			return fmt.Errorf("graph: data directory %s: %w", d, err)
		}
		fi, err := os.Stat(r)
		if err != nil {
			return fmt.Errorf("graph: data directory %s: %w", d, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("graph: data directory %s is not a directory", d)
		}
		resolved = append(resolved, r)
	}
	pathPolicy.Lock()
	defer pathPolicy.Unlock()
	pathPolicy.set, pathPolicy.dirs = true, resolved
	return nil
}

// UnrestrictPaths undoes RestrictPaths (for tests and for a process that
// stops serving as a worker).
func UnrestrictPaths() {
	pathPolicy.Lock()
	defer pathPolicy.Unlock()
	pathPolicy.set, pathPolicy.dirs = false, nil
}

// CheckPath returns nil when the process may use path, and a *PathError
// naming op otherwise. Without RestrictPaths every path is allowed. The
// path need not exist (a store about to be written): its deepest existing
// parent is resolved.
func CheckPath(op, path string) error {
	pathPolicy.RLock()
	set, dirs := pathPolicy.set, pathPolicy.dirs
	pathPolicy.RUnlock()
	if !set {
		return nil
	}
	r, err := resolvePath(path)
	if err == nil {
		for _, d := range dirs {
			if within(d, r) {
				return nil
			}
		}
	}
	return &PathError{Op: op, Path: path, Dirs: dirs}
}

// resolvePath makes p absolute and evaluates the symbolic links of its
// deepest existing part; the rest is appended as written (cleaned, so
// "x/../.." cannot climb out unseen).
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for cur := abs; ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within reports whether p is dir or below it (both resolved).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

package viz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tessera-go/tessera/graph"
)

// ErrNoGraphviz is wrapped by Render's error when a format needs the
// graphviz dot binary and it is not on PATH.
var ErrNoGraphviz = errors.New("graphviz dot binary not found on PATH: install the Debian package graphviz (apt-get install graphviz)")

// RenderError reports a failed Render, naming the file.
type RenderError struct {
	Path   string
	Format string
	Err    error
}

func (e *RenderError) Error() string {
	return fmt.Sprintf("viz: render %s (%s): %v", e.Path, e.Format, e.Err)
}

func (e *RenderError) Unwrap() error { return e.Err }

// Format returns the output format of a file name: its extension, for
// .dot, .gv, .svg, .png and .pdf; "" otherwise.
func Format(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".dot", ".gv":
		return "dot"
	case ".svg":
		return "svg"
	case ".png":
		return "png"
	case ".pdf":
		return "pdf"
	}
	return ""
}

// Render draws g into the file path, in format "dot", "svg", "png" or
// "pdf"; "" takes the format from path's extension. DOT is written
// directly; the other formats pipe it through the graphviz dot binary,
// and when that is missing the error wraps ErrNoGraphviz. The picture is
// written to a temporary file in path's directory and renamed into place,
// so a failed or cancelled Render leaves no partial file (and an existing
// file at path unchanged). Cancelling ctx kills dot.
func Render(ctx context.Context, g *graph.Graph, path, format string, opts Options) (err error) {
	if format == "" {
		format = Format(path)
		if format == "" {
			return &RenderError{Path: path, Format: format, Err: fmt.Errorf("cannot tell the format from the extension %q (want .dot, .svg, .png or .pdf)", filepath.Ext(path))}
		}
	}
	switch format {
	case "dot", "svg", "png", "pdf":
	default:
		return &RenderError{Path: path, Format: format, Err: &OptionError{Field: "format", Value: format}}
	}
	fail := func(err error) error { return &RenderError{Path: path, Format: format, Err: err} }
	src, err := DOT(g, opts)
	if err != nil {
		return err
	}
	var dotBin string
	if format != "dot" {
		if dotBin, err = exec.LookPath("dot"); err != nil {
			return fail(ErrNoGraphviz)
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fail(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if format == "dot" {
		if _, err := tmp.Write(src); err != nil {
			return fail(err)
		}
	} else {
		cmd := exec.CommandContext(ctx, dotBin, "-T"+format)
		cmd.Stdin = bytes.NewReader(src)
		cmd.Stdout = tmp
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return fail(ctx.Err())
			}
			msg := strings.TrimSpace(stderr.String())
			if msg != "" {
				return fail(fmt.Errorf("dot -T%s: %w: %s", format, err, msg))
			}
			return fail(fmt.Errorf("dot -T%s: %w", format, err))
		}
	}
	if err := tmp.Close(); err != nil {
		return fail(err)
	}
	// CreateTemp makes the file 0600; a picture is for reading.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}

package quickstart

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const (
	programMarker = "<!-- quickstart:main.go -->"
	outputMarker  = "<!-- quickstart:output -->"
	closeMarker   = "<!-- /quickstart -->"
	modulePath    = "github.com/tessera-go/tessera"
)

// errNoMarker says the text has no such marker at all, which for the real
// README means the quick start is not marked (yet), not that it is broken.
var errNoMarker = errors.New("marker absent")

// extract returns the body of the one fenced block between marker and the
// next closeMarker. A marker without its close, or a section that is not
// exactly one fenced block, is an error naming the marker.
func extract(text, marker string) (string, error) {
	i := strings.Index(text, marker)
	if i < 0 {
		return "", fmt.Errorf("%s: %w", marker, errNoMarker)
	}
	rest := text[i+len(marker):]
	j := strings.Index(rest, closeMarker)
	if j < 0 {
		return "", fmt.Errorf("%s: no %s after it", marker, closeMarker)
	}
	section := strings.Trim(rest[:j], "\n")
	lines := strings.Split(section, "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "```") || lines[len(lines)-1] != "```" {
		return "", fmt.Errorf("%s: the section is not one fenced code block", marker)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if strings.HasPrefix(l, "```") {
			return "", fmt.Errorf("%s: the section holds more than one fenced code block", marker)
		}
	}
	body := strings.Join(lines[1:len(lines)-1], "\n")
	if body != "" {
		body += "\n"
	}
	return body, nil
}

// quickStart returns the program and the output marked in text.
func quickStart(text string) (program, output string, err error) {
	if program, err = extract(text, programMarker); err != nil {
		return "", "", err
	}
	if output, err = extract(text, outputMarker); err != nil {
		return "", "", err
	}
	return program, output, nil
}

func TestExtract(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	program, output, err := quickStart(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(program, "package main\n") || !strings.HasSuffix(program, "}\n") || strings.Contains(program, "```") {
		t.Errorf("program not extracted whole:\n%s", program)
	}
	if want := "3² + 4² = 25\nsum of squares: 333332833333500000\n"; output != want {
		t.Errorf("output = %q, want %q", output, want)
	}

	for _, c := range []struct{ name, text, want string }{
		{"absent", "# README\n", "marker absent"},
		{"unclosed", programMarker + "\n```go\npackage main\n```\n", "no " + closeMarker},
		{"not a block", programMarker + "\npackage main\n" + closeMarker, "not one fenced code block"},
		{"unterminated", programMarker + "\n```go\npackage main\n" + closeMarker, "not one fenced code block"},
		{"two blocks", programMarker + "\n```go\na\n```\n```go\nb\n```\n" + closeMarker, "more than one"},
	} {
		_, err := extract(c.text, programMarker)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one saying %q", c.name, err, c.want)
		}
	}
	if _, err := extract("x", programMarker); !errors.Is(err, errNoMarker) {
		t.Errorf("absent marker: err = %v, want errNoMarker", err)
	}
	if got, err := extract(outputMarker+"\n```\n```\n"+closeMarker, outputMarker); err != nil || got != "" {
		t.Errorf("empty block: %q, %v", got, err)
	}
}

// runQuickStart writes program into a new module outside the repository
// that requires this checkout, runs it and returns its standard output.
func runQuickStart(t *testing.T, program string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a program; skipped under -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	// GOWORK=off: a go.work above the temporary directory must not pull
	// the module into a workspace; GOPROXY and the module cache are the
	// caller's, so a warm cache works offline.
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	run := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(gobin, args...)
		cmd.Dir = dir
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("go %s: %v\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
		}
		return stdout.Bytes()
	}
	run("mod", "init", "example")
	run("mod", "edit", "-require", modulePath+"@v0.0.0", "-replace", modulePath+"="+root)
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	run("mod", "tidy")
	return string(run("run", "."))
}

// TestFixture runs the fixture's program end to end, so the machinery is
// tested whether or not README.md is marked yet.
func TestFixture(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	program, output, err := quickStart(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if got := runQuickStart(t, program); got != output {
		t.Errorf("testdata/README.md: the program printed\n%s\nthe fixture says\n%s", got, output)
	}
}

// TestREADME runs README.md's quick start and compares its output with
// the README's.
func TestREADME(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	program, output, err := quickStart(string(b))
	if errors.Is(err, errNoMarker) {
		t.Skipf("README.md has no marked quick start (%v): nothing to check", err)
	}
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	if got := runQuickStart(t, program); got != output {
		t.Errorf("README.md's quick start printed\n%s\nthe README says\n%s", got, output)
	}
}

// Package deploycheck holds one test: that the deployment examples in
// deploy/, the cluster guide docs/cluster.md and the README stay true
// to the tessera command. It has no non-test code.
//
// Every invocation of tessera found there (ExecStart of the systemd units,
// the command lists of deploy/kubernetes.yaml, the lines of the sh code
// blocks) is parsed as Go's flag package would parse it, and each flag is
// looked up in the flags that `tessera <command> -h` prints. Documentation
// that names a removed or misspelt flag fails here instead of on a user's
// machine. The manifest is checked only as far as it can be without a
// Kubernetes API server: every document has apiVersion, kind and
// metadata.name, and the Services and Secrets it refers to are in it.
package deploycheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// checked are the tessera commands whose flags are checked; a program
// token followed by another word is not an invocation of interest (a path
// such as deploy/tessera in `go build -o deploy/tessera`).
var checked = []string{"scheduler", "worker", "slurm", "certs", "bench"}

// userWorkerRole is the argument with which a user's binary that calls
// distributed.MaybeWorker runs as a worker; it takes tessera worker's flags.
const userWorkerRole = "tessera-worker"

// invocation is one command line found in a file.
type invocation struct {
	where   string   // file:line
	command string   // one of checked
	args    []string // the arguments after the command
}

// flagSet is what `tessera <command> -h` says of the command's flags:
// each flag's name and whether it takes a value (bool flags do not).
type flagSet struct {
	missing string          // why the command's flags are unknown; "" when known
	value   map[string]bool // flag name -> takes a value
}

// repoRoot returns the module's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root: %v", err)
	}
	return root
}

var (
	buildOnce sync.Once
	buildBin  string
	buildErr  error
)

// tesseraBinary builds cmd/tessera once per test binary run.
func tesseraBinary(t *testing.T) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "deploycheck")
		if err != nil {
			buildErr = err
			return
		}
		buildBin = filepath.Join(dir, "tessera")
		cmd := exec.Command(gobin, "build", "-o", buildBin, "./cmd/tessera")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/tessera: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// TestMain removes the binary tesseraBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildBin != "" {
		os.RemoveAll(filepath.Dir(buildBin))
	}
	os.Exit(code)
}

// defaultsLine matches a flag as flag.PrintDefaults prints it: two spaces,
// -name, then " type" for flags that take a value, then a tab or the end
// of the line.
var defaultsLine = regexp.MustCompile(`^  -([^\s=]+)( [^\t]+)?(\t.*)?$`)

// parseHelp reads the flags out of a command's -h output.
func parseHelp(out []byte) map[string]bool {
	flags := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if m := defaultsLine.FindStringSubmatch(sc.Text()); m != nil {
			flags[m[1]] = m[2] != ""
		}
	}
	return flags
}

// commandFlags runs `tessera <command> -h` for every checked command.
func commandFlags(t *testing.T) map[string]flagSet {
	t.Helper()
	bin := tesseraBinary(t)
	sets := map[string]flagSet{}
	for _, c := range checked {
		// -h makes the flag package print the defaults and fail with
		// flag.ErrHelp; the exit status is the command's choice.
		out, _ := exec.Command(bin, c, "-h").CombinedOutput()
		flags := parseHelp(out)
		switch {
		case bytes.Contains(out, []byte("unknown command")):
			sets[c] = flagSet{missing: fmt.Sprintf("tessera has no %q command yet", c)}
		case len(flags) == 0:
			t.Fatalf("tessera %s -h printed no flags:\n%s", c, out)
		default:
			sets[c] = flagSet{value: flags}
		}
	}
	return sets
}

// splitContinued joins lines ending in a backslash with the next line and
// returns the logical lines with the number of the line each starts on.
func splitContinued(text string, first int) (lines []string, numbers []int) {
	var cur strings.Builder
	start := -1
	for i, l := range strings.Split(text, "\n") {
		if start < 0 {
			start = first + i
		}
		trimmed := strings.TrimRight(l, " \t\r")
		if body, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(body)
			cur.WriteByte(' ')
			continue
		}
		cur.WriteString(trimmed)
		lines = append(lines, cur.String())
		numbers = append(numbers, start)
		cur.Reset()
		start = -1
	}
	return lines, numbers
}

// endsCommand reports whether a shell token ends the command before it:
// a comment, a pipe, a list operator or a redirection.
func endsCommand(tok string) bool {
	return strings.ContainsAny(tok[:1], "#|&;<>)") || strings.Contains(tok, ">")
}

// findInvocations returns the tessera invocations among tokens: a program
// whose base name is tessera followed by a checked command, or any program
// followed by userWorkerRole (a user's binary run as a worker).
func findInvocations(where string, tokens []string) []invocation {
	var found []invocation
	for i := 0; i+1 < len(tokens); i++ {
		var command string
		switch {
		case tokens[i+1] == userWorkerRole:
			command = "worker"
		case filepath.Base(tokens[i]) == "tessera" && slices.Contains(checked, tokens[i+1]):
			command = tokens[i+1]
		default:
			continue
		}
		var args []string
		for _, a := range tokens[i+2:] {
			if endsCommand(a) {
				break
			}
			args = append(args, a)
		}
		found = append(found, invocation{where: where, command: command, args: args})
	}
	return found
}

// shellInvocations finds the invocations in the sh code blocks of a
// Markdown text; first is the number of text's first line.
func shellInvocations(name, text string, first int) []invocation {
	var found []invocation
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimSpace(lines[i])
		if fence != "```sh" && fence != "```bash" {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
			end++
		}
		block := strings.Join(lines[i+1:end], "\n")
		logical, numbers := splitContinued(block, first+i+1)
		for j, l := range logical {
			l = strings.TrimPrefix(strings.TrimSpace(l), "$ ")
			found = append(found, findInvocations(fmt.Sprintf("%s:%d", name, numbers[j]), strings.Fields(l))...)
		}
		i = end
	}
	return found
}

// clusterGuide is the guide to running on several machines, which must
// show tessera commands; the README's commands are checked too, but the
// README may show none (it links to the guide).
const clusterGuide = "docs/cluster.md"

// docInvocations returns the invocations in the sh blocks of the cluster
// guide, which must have some, and of README.md, which may have none.
func docInvocations(t *testing.T, root string) []invocation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(clusterGuide)))
	if err != nil {
		t.Fatal(err)
	}
	found := shellInvocations(clusterGuide, string(b), 1)
	if len(found) == 0 {
		t.Fatalf("%s shows no tessera command", clusterGuide)
	}
	b, err = os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(found, shellInvocations("README.md", string(b), 1)...)
}

// unitInvocations returns the invocations in a systemd unit's ExecStart,
// which every unit must have.
func unitInvocations(t *testing.T, path string) []invocation {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join("deploy", filepath.Base(path))
	lines, numbers := splitContinued(string(b), 1)
	sections := map[string]bool{}
	var found []invocation
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			sections[l] = true
		}
		cmd, ok := strings.CutPrefix(l, "ExecStart=")
		if !ok {
			continue
		}
		// systemd's prefixes: ignore failure, argv[0], privileges.
		cmd = strings.TrimLeft(cmd, "-@:+!")
		inv := findInvocations(fmt.Sprintf("%s:%d", name, numbers[i]), strings.Fields(cmd))
		if len(inv) == 0 {
			t.Errorf("%s:%d: ExecStart runs no tessera command: %s", name, numbers[i], cmd)
		}
		found = append(found, inv...)
	}
	for _, s := range []string{"[Unit]", "[Service]", "[Install]"} {
		if !sections[s] {
			t.Errorf("%s has no %s section", name, s)
		}
	}
	if len(found) == 0 {
		t.Errorf("%s has no ExecStart", name)
	}
	return found
}

// manifestDoc is what the test reads of one Kubernetes document.
type manifestDoc struct {
	line                   int // where the document starts
	apiVersion, kind, name string
	commands               []invocation
	secretNames            []string // secretName: values
}

// topField reads "key: value" at column 0.
func topField(l, key string) (string, bool) {
	v, ok := strings.CutPrefix(l, key+":")
	if !ok {
		return "", false
	}
	return strings.Trim(strings.TrimSpace(v), `"'`), true
}

// parseManifest splits the manifest into documents on lines "---" and reads
// each minimally. Container commands must be one-line flow lists (JSON
// arrays, which YAML reads as lists) so that they can be checked here.
func parseManifest(t *testing.T, path string) []manifestDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join("deploy", filepath.Base(path))
	var docs []manifestDoc
	var cur *manifestDoc
	inMetadata := false
	for i, l := range strings.Split(string(b), "\n") {
		n := i + 1
		if strings.TrimRight(l, " \r") == "---" {
			docs = append(docs, manifestDoc{line: n + 1})
			cur = &docs[len(docs)-1]
			inMetadata = false
			continue
		}
		body := strings.TrimSpace(l)
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		if cur == nil {
			docs = append(docs, manifestDoc{line: n})
			cur = &docs[len(docs)-1]
		}
		if l[0] != ' ' {
			inMetadata = false
			if v, ok := topField(l, "apiVersion"); ok {
				cur.apiVersion = v
			} else if v, ok := topField(l, "kind"); ok {
				cur.kind = v
			} else if strings.TrimRight(l, " \r") == "metadata:" {
				inMetadata = true
			}
			continue
		}
		if inMetadata {
			if v, ok := topField(strings.TrimPrefix(l, "  "), "name"); ok && !strings.HasPrefix(l, "   ") {
				cur.name = v
			}
		}
		key, value, _ := strings.Cut(strings.TrimPrefix(body, "- "), ":")
		value = strings.TrimSpace(value)
		switch key {
		case "args":
			t.Errorf("%s:%d: args: write the whole command in command: so that its flags can be checked", name, n)
		case "command":
			var argv []string
			if err := json.Unmarshal([]byte(value), &argv); err != nil {
				t.Errorf("%s:%d: command is not a one-line list of strings: %v", name, n, err)
				continue
			}
			inv := findInvocations(fmt.Sprintf("%s:%d", name, n), argv)
			if len(inv) == 0 {
				t.Errorf("%s:%d: command runs no tessera command: %v", name, n, argv)
			}
			cur.commands = append(cur.commands, inv...)
		case "secretName":
			cur.secretNames = append(cur.secretNames, strings.Trim(value, `"'`))
		}
	}
	// Documents that hold only comments (before the first ---) are not
	// documents.
	docs = slices.DeleteFunc(docs, func(d manifestDoc) bool {
		return d.apiVersion == "" && d.kind == "" && d.name == "" && len(d.commands) == 0
	})
	return docs
}

// checkFlags parses inv's arguments as the flag package would and reports
// flags the command lacks, missing values, and flags after the first
// positional argument (which the flag package leaves unparsed).
func checkFlags(inv invocation, fs flagSet) []string {
	var errs []string
	positional := ""
	for i := 0; i < len(inv.args); i++ {
		a := inv.args[i]
		if len(a) < 2 || a[0] != '-' {
			if positional == "" {
				positional = a
			}
			continue
		}
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if positional != "" {
			errs = append(errs, fmt.Sprintf("%s: tessera %s: %s comes after the argument %q, so it is not parsed as a flag", inv.where, inv.command, a, positional))
			continue
		}
		takesValue, ok := fs.value[name]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s: tessera %s has no flag -%s", inv.where, inv.command, name))
			continue
		}
		if takesValue && !hasValue {
			if i+1 == len(inv.args) {
				errs = append(errs, fmt.Sprintf("%s: tessera %s: -%s needs a value", inv.where, inv.command, name))
			}
			i++
		} else if !takesValue && hasValue && value != "true" && value != "false" {
			errs = append(errs, fmt.Sprintf("%s: tessera %s: -%s is a switch, not %q", inv.where, inv.command, name, value))
		}
	}
	return errs
}

func TestManifest(t *testing.T) {
	root := repoRoot(t)
	docs := parseManifest(t, filepath.Join(root, "deploy", "kubernetes.yaml"))
	if len(docs) == 0 {
		t.Fatal("deploy/kubernetes.yaml has no documents")
	}
	seen := map[string]int{}
	services := map[string]bool{}
	secrets := map[string]bool{}
	for _, d := range docs {
		if d.apiVersion == "" || d.kind == "" || d.name == "" {
			t.Errorf("deploy/kubernetes.yaml:%d: document lacks apiVersion, kind or metadata.name (got %q, %q, %q)", d.line, d.apiVersion, d.kind, d.name)
			continue
		}
		id := d.kind + "/" + d.name
		if prev, ok := seen[id]; ok {
			t.Errorf("deploy/kubernetes.yaml:%d: %s again (first at line %d)", d.line, id, prev)
		}
		seen[id] = d.line
		switch d.kind {
		case "Service":
			services[d.name] = true
		case "Secret":
			secrets[d.name] = true
		}
	}
	for _, want := range []string{"Secret", "Service", "Deployment"} {
		if !slices.ContainsFunc(docs, func(d manifestDoc) bool { return d.kind == want }) {
			t.Errorf("deploy/kubernetes.yaml has no %s", want)
		}
	}
	workers := 0
	for _, d := range docs {
		for _, s := range d.secretNames {
			if !secrets[s] {
				t.Errorf("%s/%s mounts Secret %q, which the manifest does not define", d.kind, d.name, s)
			}
		}
		for _, inv := range d.commands {
			if inv.command != "worker" {
				continue
			}
			workers++
			// A worker dials the scheduler by its Service's name.
			i := slices.Index(inv.args, "-scheduler")
			if i < 0 || i+1 == len(inv.args) {
				t.Errorf("%s: worker without -scheduler", inv.where)
				continue
			}
			host, _, _ := strings.Cut(inv.args[i+1], ":")
			if !services[host] {
				t.Errorf("%s: worker dials %s, which is no Service of the manifest", inv.where, inv.args[i+1])
			}
		}
	}
	if workers == 0 {
		t.Error("deploy/kubernetes.yaml runs no worker")
	}
}

func TestFlags(t *testing.T) {
	root := repoRoot(t)
	var all []invocation
	all = append(all, docInvocations(t, root)...)
	b, err := os.ReadFile(filepath.Join(root, "deploy", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, shellInvocations(filepath.Join("deploy", "README.md"), string(b), 1)...)
	for _, u := range []string{"tessera-scheduler.service", "tessera-worker.service"} {
		all = append(all, unitInvocations(t, filepath.Join(root, "deploy", u))...)
	}
	for _, d := range parseManifest(t, filepath.Join(root, "deploy", "kubernetes.yaml")) {
		all = append(all, d.commands...)
	}
	sets := commandFlags(t)
	for _, c := range checked {
		t.Run(c, func(t *testing.T) {
			fs := sets[c]
			n := 0
			for _, inv := range all {
				if inv.command != c {
					continue
				}
				n++
				if fs.missing != "" {
					continue
				}
				for _, e := range checkFlags(inv, fs) {
					t.Error(e)
				}
			}
			if fs.missing != "" {
				t.Skipf("%s; %d invocations not checked", fs.missing, n)
			}
			t.Logf("%d invocations checked", n)
		})
	}
}

func TestCheckFlags(t *testing.T) {
	fs := flagSet{value: map[string]bool{"scheduler": true, "threads": true, "json": false}}
	for _, tc := range []struct {
		name string
		line string
		want int // errors
	}{
		{"ok", "tessera worker -scheduler h:1 -threads=2 -json", 0},
		{"double dash", "tessera worker --scheduler h:1", 0},
		{"unknown", "tessera worker -scheduler h:1 -thread 2", 1},
		{"missing value", "tessera worker -scheduler", 1},
		{"after positional", "tessera worker extra -threads 2", 1},
		{"switch with value", "tessera worker -json=yes", 1},
		{"comment ends", "tessera worker -threads 2 # -nope", 0},
		{"redirect ends", "tessera worker -threads 2 2>log -nope", 0},
		{"user binary", "./myprog tessera-worker -scheduler h:1 -nope", 1},
		{"not a command", "go build -o deploy/tessera ./cmd/tessera", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := findInvocations("x", strings.Fields(tc.line))
			if tc.want < 0 {
				if len(inv) != 0 {
					t.Fatalf("found %v, want none", inv)
				}
				return
			}
			if len(inv) != 1 || inv[0].command != "worker" {
				t.Fatalf("found %v, want one worker invocation", inv)
			}
			if got := checkFlags(inv[0], fs); len(got) != tc.want {
				t.Errorf("got %d errors %q, want %d", len(got), got, tc.want)
			}
		})
	}
}

func TestParseHelp(t *testing.T) {
	// As flag.PrintDefaults prints a bool flag, a short flag and a long one.
	out := "usage: tessera worker -scheduler HOST:PORT [flags]\n" +
		"  -json\n    \tprint JSON\n" +
		"  -n int\tcount (default 1)\n" +
		"  -scheduler string\n    \tthe scheduler's address\n"
	got := parseHelp([]byte(out))
	want := map[string]bool{"json": false, "n": true, "scheduler": true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// Package quickstart holds one test: that the quick start of README.md
// still compiles against the module and prints what the README says it
// prints. It has no non-test code.
//
// The README marks the program with <!-- quickstart:main.go --> and its
// output with <!-- quickstart:output -->, each closed by <!-- /quickstart -->
// around one fenced block. The test writes the program into a fresh module
// outside the repository that requires this checkout through a replace
// directive, as a user's first program would, runs it with `go run .` and
// compares its standard output with the README's block, so a renamed
// function or a changed result fails here rather than in a reader's
// terminal. It needs the go command and the module cache (or GOPROXY) to
// hold the module's dependencies, and is skipped under -short.
package quickstart

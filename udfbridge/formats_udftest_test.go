package udfbridge_test

import (
	"testing"

	"github.com/tessera-go/tessera/udfbridge"
	"github.com/tessera-go/tessera/udfbridge/udftest"
)

// TestFormatsConformance runs the exported Dataset conformance suite on a
// file of each detector format (fixtures written by the package's own
// generators, FormatFixtures).
func TestFormatsConformance(t *testing.T) {
	for _, f := range udfbridge.FormatFixtures(t, t.TempDir()) {
		t.Run(f.Name, func(t *testing.T) { udftest.CheckDataset(t, f.DS, f.Data) })
	}
}

package cudaops

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// kernelsInPTX lists the .entry names of the committed PTX.
func kernelsInPTX(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("kernels/kernels.ptx")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(`).FindAllSubmatch(b, -1) {
		names = append(names, string(m[1]))
	}
	slices.Sort(names)
	return names
}

// TestPTXEntries checks that kernels.cu, kernels.ptx and the names the Go
// side resolves (kernelNames in device_cuda.go, read from the source so
// that this runs in every build) agree.
func TestPTXEntries(t *testing.T) {
	ptx := kernelsInPTX(t)
	cu, err := os.ReadFile("kernels/kernels.cu")
	if err != nil {
		t.Fatal(err)
	}
	var inCU []string
	for _, m := range regexp.MustCompile(`(?m)^[A-Z_]+\((\w+), (?:float|double)\)$`).FindAllSubmatch(cu, -1) {
		inCU = append(inCU, string(m[1]))
	}
	slices.Sort(inCU)
	src, err := os.ReadFile("device_cuda.go")
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(src, []byte("var kernelNames = []string{"))
	j := bytes.Index(src[i:], []byte("\n}\n"))
	var inGo []string
	for _, m := range regexp.MustCompile(`"(\w+)"`).FindAllSubmatch(src[i:i+j], -1) {
		inGo = append(inGo, string(m[1]))
	}
	slices.Sort(inGo)
	if len(ptx) == 0 || !slices.Equal(ptx, inCU) || !slices.Equal(ptx, inGo) {
		t.Errorf("kernels.ptx has %v\nkernels.cu defines %v\nkernelNames has %v", ptx, inCU, inGo)
	}
}

// TestPTXUpToDate regenerates the PTX with the nvcc of fetch-cuda.sh, when
// it is there, and compares it with the committed one; without it, it
// skips (CI has no CUDA toolkit).
func TestPTXUpToDate(t *testing.T) {
	nvcc, err := filepath.Abs("../../.cuda/root/usr/lib/nvidia-cuda-toolkit/bin/nvcc")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(nvcc); err != nil {
		t.Skip("no nvcc under .cuda/ (internal/cudaops/tools/fetch-cuda.sh fetches it)")
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("no gcc for nvcc")
	}
	out := filepath.Join(t.TempDir(), "kernels.ptx")
	cmd := exec.Command(nvcc, "-ccbin", cc, "-allow-unsupported-compiler",
		"-ptx", "-arch=compute_80", "-O3", "-std=c++14", "-o", out, "kernels.cu")
	cmd.Dir = "kernels"
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvcc: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("kernels/kernels.ptx")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("kernels/kernels.ptx is stale: run go generate ./internal/cudaops")
	}
}

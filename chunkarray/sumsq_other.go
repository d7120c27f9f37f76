//go:build !amd64

package chunkarray

// sumSqInt32 is the kernel of sum(int64(x)**2) over an int32 run.
func sumSqInt32(x []int32) int64 { return sumSqRun[int32, int64, int64](x) }

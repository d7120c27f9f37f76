package npy

import (
	"os"
	"syscall"
)

// mapFile maps the first size bytes of f read-only, or returns nil where
// the file cannot be mapped (size 0 or beyond the address space). The
// pages are populated by the call (MAP_POPULATE): the reads touch most of
// them, and one fault per page costs more than the read it replaces.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
}

func unmapFile(b []byte) error { return syscall.Munmap(b) }

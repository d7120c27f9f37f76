//go:build !linux

package npy

import "os"

// mapFile is not available here: Fortran-order rows are read with ReadAt.
func mapFile(*os.File, int64) ([]byte, error) { return nil, nil }

func unmapFile([]byte) error { return nil }

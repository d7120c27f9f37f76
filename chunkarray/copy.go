package chunkarray

import "github.com/tessera-go/tessera/nd"

// copyRegion copies src into the region sl of dst, a C-contiguous array
// this package allocated. src is converted to dst's dtype when they differ.
func copyRegion(dst *nd.Array, sl []nd.Slice1, src *nd.Array) error {
	view, err := dst.Slice(sl...)
	if err != nil {
		return err
	}
	return nd.Assign(view, src)
}

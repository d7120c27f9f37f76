package npy

// EncodeHeader returns the header numpy 1.24 writes for h, from the magic
// string to the newline before the data, padded so that the data starts
// on a 64-byte boundary; its length is the data offset. Writers that fill
// the data themselves (chunkarray's ToNPY writes each block at its offset)
// write this first. h.DataOffset, Major and Minor are ignored.
func EncodeHeader(h Header) []byte {
	h.Fortran = h.Fortran && len(h.Shape) > 1
	return encodeHeader(h)
}

package blosc

import "encoding/binary"

// unshuffle undoes blosc's byte shuffle of one block: src holds the block as
// ts streams, stream j being byte j of every element, followed by the
// len%ts bytes that did not make a whole element, stored as they were. It
// writes the elements to dst (same length as src).
func unshuffle(dst, src []byte, ts int) {
	n := len(src) / ts // whole elements
	switch ts {
	case 2:
		s0, s1 := src[:n], src[n:2*n]
		d := dst[:2*n]
		for i := range n {
			d[2*i] = s0[i]
			d[2*i+1] = s1[i]
		}
	case 4:
		s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
		d := dst[:4*n]
		for i := range n {
			v := uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16 | uint32(s3[i])<<24
			binary.LittleEndian.PutUint32(d[4*i:], v)
		}
	case 8:
		s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
		s4, s5, s6, s7 := src[4*n:5*n], src[5*n:6*n], src[6*n:7*n], src[7*n:8*n]
		d := dst[:8*n]
		for i := range n {
			lo := uint32(s0[i]) | uint32(s1[i])<<8 | uint32(s2[i])<<16 | uint32(s3[i])<<24
			hi := uint32(s4[i]) | uint32(s5[i])<<8 | uint32(s6[i])<<16 | uint32(s7[i])<<24
			binary.LittleEndian.PutUint64(d[8*i:], uint64(lo)|uint64(hi)<<32)
		}
	default:
		for j := range ts {
			s := src[j*n : (j+1)*n]
			for i, b := range s {
				dst[i*ts+j] = b
			}
		}
	}
	copy(dst[n*ts:], src[n*ts:])
}

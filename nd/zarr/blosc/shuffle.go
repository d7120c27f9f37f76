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
		i := 0
		// Eight elements at a time: a 64-bit word from each stream, two 4×4
		// byte transposes side by side (as for type size 8 below).
		for ; i+8 <= n; i += 8 {
			r0 := binary.LittleEndian.Uint64(s0[i:])
			r1 := binary.LittleEndian.Uint64(s1[i:])
			r2 := binary.LittleEndian.Uint64(s2[i:])
			r3 := binary.LittleEndian.Uint64(s3[i:])
			const m1, m2 = 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF
			t := (r0>>8 ^ r1) & m1
			r1 ^= t
			r0 ^= t << 8
			t = (r2>>8 ^ r3) & m1
			r3 ^= t
			r2 ^= t << 8
			t = (r0>>16 ^ r2) & m2
			r2 ^= t
			r0 ^= t << 16
			t = (r1>>16 ^ r3) & m2
			r3 ^= t
			r1 ^= t << 16
			// rk holds element i+k in its low half and i+4+k in its high one.
			o := d[4*i : 4*i+32]
			const lo = 0xFFFFFFFF
			binary.LittleEndian.PutUint64(o[0:], r0&lo|r1<<32)
			binary.LittleEndian.PutUint64(o[8:], r2&lo|r3<<32)
			binary.LittleEndian.PutUint64(o[16:], r0>>32|r1&^lo)
			binary.LittleEndian.PutUint64(o[24:], r2>>32|r3&^lo)
		}
		for ; i < n; i++ {
			d[4*i], d[4*i+1], d[4*i+2], d[4*i+3] = s0[i], s1[i], s2[i], s3[i]
		}
	case 8:
		s0, s1, s2, s3 := src[:n], src[n:2*n], src[2*n:3*n], src[3*n:4*n]
		s4, s5, s6, s7 := src[4*n:5*n], src[5*n:6*n], src[6*n:7*n], src[7*n:8*n]
		d := dst[:8*n]
		i := 0
		// Eight elements at a time: a 64-bit word from each stream, an 8×8
		// byte transpose that swaps the off-diagonal 1×1, then 2×2, then
		// 4×4 blocks with shifts and masks, eight words out. Plain variables,
		// not an array: the first version kept the words in a [8]uint64
		// indexed in loops, which the compiler left in memory, and it ran
		// slower than the byte loop it replaced (BenchmarkUnshuffle8, best of
		// six on a loaded 2-core machine: byte loop 697 µs, array version
		// 0.65-0.93 ms, this one 340 µs, per MiB).
		for ; i+8 <= n; i += 8 {
			r0 := binary.LittleEndian.Uint64(s0[i:])
			r1 := binary.LittleEndian.Uint64(s1[i:])
			r2 := binary.LittleEndian.Uint64(s2[i:])
			r3 := binary.LittleEndian.Uint64(s3[i:])
			r4 := binary.LittleEndian.Uint64(s4[i:])
			r5 := binary.LittleEndian.Uint64(s5[i:])
			r6 := binary.LittleEndian.Uint64(s6[i:])
			r7 := binary.LittleEndian.Uint64(s7[i:])
			const m1, m2, m4 = 0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF
			t := (r0>>8 ^ r1) & m1
			r1 ^= t
			r0 ^= t << 8
			t = (r2>>8 ^ r3) & m1
			r3 ^= t
			r2 ^= t << 8
			t = (r4>>8 ^ r5) & m1
			r5 ^= t
			r4 ^= t << 8
			t = (r6>>8 ^ r7) & m1
			r7 ^= t
			r6 ^= t << 8

			t = (r0>>16 ^ r2) & m2
			r2 ^= t
			r0 ^= t << 16
			t = (r1>>16 ^ r3) & m2
			r3 ^= t
			r1 ^= t << 16
			t = (r4>>16 ^ r6) & m2
			r6 ^= t
			r4 ^= t << 16
			t = (r5>>16 ^ r7) & m2
			r7 ^= t
			r5 ^= t << 16

			t = (r0>>32 ^ r4) & m4
			r4 ^= t
			r0 ^= t << 32
			t = (r1>>32 ^ r5) & m4
			r5 ^= t
			r1 ^= t << 32
			t = (r2>>32 ^ r6) & m4
			r6 ^= t
			r2 ^= t << 32
			t = (r3>>32 ^ r7) & m4
			r7 ^= t
			r3 ^= t << 32

			o := d[8*i : 8*i+64]
			binary.LittleEndian.PutUint64(o[0:], r0)
			binary.LittleEndian.PutUint64(o[8:], r1)
			binary.LittleEndian.PutUint64(o[16:], r2)
			binary.LittleEndian.PutUint64(o[24:], r3)
			binary.LittleEndian.PutUint64(o[32:], r4)
			binary.LittleEndian.PutUint64(o[40:], r5)
			binary.LittleEndian.PutUint64(o[48:], r6)
			binary.LittleEndian.PutUint64(o[56:], r7)
		}
		for ; i < n; i++ {
			o := d[8*i : 8*i+8]
			o[0], o[1], o[2], o[3] = s0[i], s1[i], s2[i], s3[i]
			o[4], o[5], o[6], o[7] = s4[i], s5[i], s6[i], s7[i]
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

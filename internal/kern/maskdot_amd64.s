//go:build !purego

#include "textflag.h"

// func dot4AVX2(acc *float32, x *float32, xs int, m *float32, ks, np, nc int)
//
// Four frames (xs bytes apart) by nc columns (16: two vectors, or 8: one)
// of masks whose pixel rows are ks bytes apart, over np > 0 pixels. Each
// (frame, vector) pair has its own accumulator, started at zero; per
// pixel the mask row is loaded once and each frame's value is broadcast
// and multiplied into it with one fused multiply-add. The accumulators
// are stored to acc, frame f's at byte 64·f.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-56
	MOVQ acc+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ xs+16(FP), R8
	MOVQ m+24(FP), DX
	MOVQ ks+32(FP), R9
	MOVQ np+40(FP), CX
	MOVQ nc+48(FP), AX
	LEAQ (SI)(R8*2), R11
	ADDQ R8, R11          // frame 3
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	CMPQ AX, $8
	JEQ  loop4x8

loop4x16:
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y8, Y10, Y0
	VFMADD231PS  Y9, Y10, Y1
	VBROADCASTSS (SI)(R8*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VFMADD231PS  Y9, Y11, Y3
	VBROADCASTSS (SI)(R8*2), Y12
	VFMADD231PS  Y8, Y12, Y4
	VFMADD231PS  Y9, Y12, Y5
	VBROADCASTSS (R11), Y13
	VFMADD231PS  Y8, Y13, Y6
	VFMADD231PS  Y9, Y13, Y7
	ADDQ         $4, SI
	ADDQ         $4, R11
	ADDQ         R9, DX
	DECQ         CX
	JNZ          loop4x16
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y3, 96(DI)
	VMOVUPS      Y4, 128(DI)
	VMOVUPS      Y5, 160(DI)
	VMOVUPS      Y6, 192(DI)
	VMOVUPS      Y7, 224(DI)
	VZEROUPPER
	RET

loop4x8:
	VMOVUPS      (DX), Y8
	VBROADCASTSS (SI), Y10
	VFMADD231PS  Y8, Y10, Y0
	VBROADCASTSS (SI)(R8*1), Y11
	VFMADD231PS  Y8, Y11, Y2
	VBROADCASTSS (SI)(R8*2), Y12
	VFMADD231PS  Y8, Y12, Y4
	VBROADCASTSS (R11), Y13
	VFMADD231PS  Y8, Y13, Y6
	ADDQ         $4, SI
	ADDQ         $4, R11
	ADDQ         R9, DX
	DECQ         CX
	JNZ          loop4x8
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y2, 64(DI)
	VMOVUPS      Y4, 128(DI)
	VMOVUPS      Y6, 192(DI)
	VZEROUPPER
	RET

// func dot1AVX2(acc *float32, x *float32, m *float32, ks, np, nc int)
//
// dot4AVX2 for one frame: the same fused multiply-adds in the same order.
TEXT ·dot1AVX2(SB), NOSPLIT, $0-48
	MOVQ   acc+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   m+16(FP), DX
	MOVQ   ks+24(FP), R9
	MOVQ   np+32(FP), CX
	MOVQ   nc+40(FP), AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	CMPQ   AX, $8
	JEQ    loop1x8

loop1x16:
	VBROADCASTSS (SI), Y10
	VFMADD231PS  (DX), Y10, Y0
	VFMADD231PS  32(DX), Y10, Y1
	ADDQ         $4, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          loop1x16
	VMOVUPS      Y0, (DI)
	VMOVUPS      Y1, 32(DI)
	VZEROUPPER
	RET

loop1x8:
	VBROADCASTSS (SI), Y10
	VFMADD231PS  (DX), Y10, Y0
	ADDQ         $4, SI
	ADDQ         R9, DX
	DECQ         CX
	JNZ          loop1x8
	VMOVUPS      Y0, (DI)
	VZEROUPPER
	RET

// func cvtU16AVX2(dst *float32, src *uint16, n int)
//
// n (a positive multiple of 8) uint16 zero-extended and converted to
// float32, eight at a time.
TEXT ·cvtU16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

cvt:
	VPMOVZXWD (SI), Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JNZ       cvt
	VZEROUPPER
	RET

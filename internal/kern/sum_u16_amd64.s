//go:build !purego

#include "textflag.h"

// func colSumsAVX2(dst *float32, src *uint16, cols, rows, stride int)
//
// For each block of columns: zero the accumulators, add every row's
// values (zero-extended to int32, converted to float32) in row order,
// then add the accumulators into dst. Column k's additions are those of
// the scalar loop, in the same order.
TEXT ·colSumsAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ cols+16(FP), CX
	MOVQ rows+24(FP), R8
	MOVQ stride+32(FP), R9
	SHLQ $1, R9           // row stride in bytes
	XORQ AX, AX           // first column of the block

block64:
	LEAQ   64(AX), BX
	CMPQ   BX, CX
	JGT    block8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	LEAQ   (SI)(AX*2), DX // the block in row 0
	MOVQ   R8, R10        // rows left

row64:
	TESTQ     R10, R10
	JZ        store64
	VPMOVZXWD (DX), Y8
	VPMOVZXWD 16(DX), Y9
	VPMOVZXWD 32(DX), Y10
	VPMOVZXWD 48(DX), Y11
	VPMOVZXWD 64(DX), Y12
	VPMOVZXWD 80(DX), Y13
	VPMOVZXWD 96(DX), Y14
	VPMOVZXWD 112(DX), Y15
	VCVTDQ2PS Y8, Y8
	VCVTDQ2PS Y9, Y9
	VCVTDQ2PS Y10, Y10
	VCVTDQ2PS Y11, Y11
	VCVTDQ2PS Y12, Y12
	VCVTDQ2PS Y13, Y13
	VCVTDQ2PS Y14, Y14
	VCVTDQ2PS Y15, Y15
	VADDPS    Y8, Y0, Y0
	VADDPS    Y9, Y1, Y1
	VADDPS    Y10, Y2, Y2
	VADDPS    Y11, Y3, Y3
	VADDPS    Y12, Y4, Y4
	VADDPS    Y13, Y5, Y5
	VADDPS    Y14, Y6, Y6
	VADDPS    Y15, Y7, Y7
	ADDQ      R9, DX
	DECQ      R10
	JMP       row64

store64:
	LEAQ    (DI)(AX*4), DX
	VADDPS  (DX), Y0, Y0
	VADDPS  32(DX), Y1, Y1
	VADDPS  64(DX), Y2, Y2
	VADDPS  96(DX), Y3, Y3
	VADDPS  128(DX), Y4, Y4
	VADDPS  160(DX), Y5, Y5
	VADDPS  192(DX), Y6, Y6
	VADDPS  224(DX), Y7, Y7
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	VMOVUPS Y3, 96(DX)
	VMOVUPS Y4, 128(DX)
	VMOVUPS Y5, 160(DX)
	VMOVUPS Y6, 192(DX)
	VMOVUPS Y7, 224(DX)
	MOVQ    BX, AX
	JMP     block64

block8:
	LEAQ   8(AX), BX
	CMPQ   BX, CX
	JGT    done
	VXORPS Y0, Y0, Y0
	LEAQ   (SI)(AX*2), DX
	MOVQ   R8, R10

row8:
	TESTQ     R10, R10
	JZ        store8
	VPMOVZXWD (DX), Y8
	VCVTDQ2PS Y8, Y8
	VADDPS    Y8, Y0, Y0
	ADDQ      R9, DX
	DECQ      R10
	JMP       row8

store8:
	VADDPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	MOVQ    BX, AX
	JMP     block8

done:
	VZEROUPPER
	RET

// func leafSumsAVX2(x *uint16, lens *int32, n int, out *float32)
//
// Per leaf: lane j of Y0 is accumulator r_j over the longest prefix whose
// length is a multiple of 8; the lanes are combined as
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) by two horizontal adds and one
// scalar add; the tail is then added one value at a time.
TEXT ·leafSumsAVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ lens+8(FP), R8
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DI

leaf:
	TESTQ  CX, CX
	JZ     leafdone
	MOVLQSX (R8), DX      // leaf length
	MOVQ   DX, BX
	SHRQ   $3, BX         // chunks of 8
	VXORPS Y0, Y0, Y0

chunk:
	TESTQ     BX, BX
	JZ        hsum
	VPMOVZXWD (SI), Y1
	VCVTDQ2PS Y1, Y1
	VADDPS    Y1, Y0, Y0
	ADDQ      $16, SI
	DECQ      BX
	JMP       chunk

hsum:
	VEXTRACTF128 $1, Y0, X1 // r4..r7
	VHADDPS      X1, X0, X0 // r0+r1, r2+r3, r4+r5, r6+r7
	VHADDPS      X0, X0, X0 // (r0+r1)+(r2+r3), (r4+r5)+(r6+r7), ...
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	ANDQ         $7, DX

tail:
	TESTQ      DX, DX
	JZ         store
	MOVWLZX    (SI), AX
	VCVTSI2SSL AX, X1, X1
	VADDSS     X1, X0, X0
	ADDQ       $2, SI
	DECQ       DX
	JMP        tail

store:
	VMOVSS X0, (DI)
	ADDQ   $4, DI
	ADDQ   $4, R8
	DECQ   CX
	JMP    leaf

leafdone:
	VZEROUPPER
	RET

// func leafSums4AVX2(x *uint16, stride int, lens *int32, n int, out *float32)
//
// leafSumsAVX2 for four rows at once (rows stride bytes apart, the same
// leaves in each): four independent accumulators instead of one chain.
// out[4*i+j] is leaf i of row j. The four horizontal sums are done
// together: two VHADDPS pair lanes within rows, a third pairs the pairs,
// and the high half (r4..r7 of each row) is added to the low half, which
// is ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) per row. Tail values are added
// one column at a time, four rows side by side.
TEXT ·leafSums4AVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ stride+8(FP), AX
	MOVQ lens+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ out+32(FP), DI
	LEAQ (SI)(AX*1), R9
	LEAQ (R9)(AX*1), R10
	LEAQ (R10)(AX*1), R11

leaf4:
	TESTQ   CX, CX
	JZ      leaf4done
	MOVLQSX (R8), DX
	MOVQ    DX, BX
	SHRQ    $3, BX
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3

chunk4:
	TESTQ     BX, BX
	JZ        hsum4
	VPMOVZXWD (SI), Y4
	VPMOVZXWD (R9), Y5
	VPMOVZXWD (R10), Y6
	VPMOVZXWD (R11), Y7
	VCVTDQ2PS Y4, Y4
	VCVTDQ2PS Y5, Y5
	VCVTDQ2PS Y6, Y6
	VCVTDQ2PS Y7, Y7
	VADDPS    Y4, Y0, Y0
	VADDPS    Y5, Y1, Y1
	VADDPS    Y6, Y2, Y2
	VADDPS    Y7, Y3, Y3
	ADDQ      $16, SI
	ADDQ      $16, R9
	ADDQ      $16, R10
	ADDQ      $16, R11
	DECQ      BX
	JMP       chunk4

hsum4:
	VHADDPS      Y1, Y0, Y4 // a01 a23 b01 b23 | a45 a67 b45 b67
	VHADDPS      Y3, Y2, Y5 // c01 c23 d01 d23 | c45 c67 d45 d67
	VHADDPS      Y5, Y4, Y6 // a0123 b0123 c0123 d0123 | a4567 b4567 c4567 d4567
	VEXTRACTF128 $1, Y6, X7
	VADDPS       X7, X6, X6 // one sum per row
	ANDQ         $7, DX

tail4:
	TESTQ     DX, DX
	JZ        store4
	MOVWLZX   (SI), AX
	MOVWLZX   (R9), BX
	MOVWLZX   (R10), R12
	MOVWLZX   (R11), R13
	VMOVD     AX, X8
	VPINSRD   $1, BX, X8, X8
	VPINSRD   $2, R12, X8, X8
	VPINSRD   $3, R13, X8, X8
	VCVTDQ2PS X8, X8
	VADDPS    X8, X6, X6
	ADDQ      $2, SI
	ADDQ      $2, R9
	ADDQ      $2, R10
	ADDQ      $2, R11
	DECQ      DX
	JMP       tail4

store4:
	VMOVUPS X6, (DI)
	ADDQ    $16, DI
	ADDQ    $4, R8
	DECQ    CX
	JMP     leaf4

leaf4done:
	VZEROUPPER
	RET

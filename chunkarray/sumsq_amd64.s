#include "textflag.h"

// func sumSqInt32AVX2(x []int32) int64
TEXT ·sumSqInt32AVX2(SB), NOSPLIT, $0-32
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-16, DX

loop:
	CMPQ AX, DX
	JGE  reduce
	VPMOVSXDQ (SI)(AX*4), Y4
	VPMOVSXDQ 16(SI)(AX*4), Y5
	VPMOVSXDQ 32(SI)(AX*4), Y6
	VPMOVSXDQ 48(SI)(AX*4), Y7
	VPMULDQ   Y4, Y4, Y4
	VPMULDQ   Y5, Y5, Y5
	VPMULDQ   Y6, Y6, Y6
	VPMULDQ   Y7, Y7, Y7
	VPADDQ    Y4, Y0, Y0
	VPADDQ    Y5, Y1, Y1
	VPADDQ    Y6, Y2, Y2
	VPADDQ    Y7, Y3, Y3
	ADDQ      $16, AX
	JMP       loop

reduce:
	VPADDQ       Y1, Y0, Y0
	VPADDQ       Y3, Y2, Y2
	VPADDQ       Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDQ       X1, X0, X0
	VPEXTRQ      $1, X0, BX
	VMOVQ        X0, R8
	ADDQ         BX, R8
	VZEROUPPER

tail:
	CMPQ    AX, CX
	JGE     done
	MOVLQSX (SI)(AX*4), BX
	IMULQ   BX, BX
	ADDQ    BX, R8
	INCQ    AX
	JMP     tail

done:
	MOVQ R8, ret+24(FP)
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

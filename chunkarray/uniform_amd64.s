#include "textflag.h"

// The body of one 8-lane step: Z0 holds the counters; leaves
// lo + s*float64(mix(z)>>11) in Z1 and steps Z0.
#define UNIFORM8 \
	VPSRLQ  $30, Z0, Z1 \
	VPXORQ  Z0, Z1, Z1 \
	VPMULLQ Z2, Z1, Z1 \
	VPSRLQ  $27, Z1, Z3 \
	VPXORQ  Z3, Z1, Z1 \
	VPMULLQ Z4, Z1, Z1 \
	VPSRLQ  $31, Z1, Z3 \
	VPXORQ  Z3, Z1, Z1 \
	VPSRLQ  $11, Z1, Z1 \
	VCVTQQ2PD Z1, Z1 \
	VMULPD  Z6, Z1, Z1 \
	VADDPD  Z5, Z1, Z1 \
	VPADDQ  Z7, Z0, Z0

#define SETUP \
	MOVQ o+0(FP), DI \
	MOVQ n+8(FP), CX \
	MOVQ z+16(FP), SI \
	VMOVDQU64 (SI), Z0 \
	MOVQ $0xbf58476d1ce4e5b9, AX \
	VPBROADCASTQ AX, Z2 \
	MOVQ $0x94d049bb133111eb, AX \
	VPBROADCASTQ AX, Z4 \
	MOVQ $0xf1bbcdcbfa53e0a8, AX \
	VPBROADCASTQ AX, Z7 \
	VBROADCASTSD lo+24(FP), Z5 \
	VBROADCASTSD s+32(FP), Z6

// func cpuAVX512DQ() bool
TEXT ·cpuAVX512DQ(SB), NOSPLIT, $0-1
	MOVB $0, ret+0(FP)
	MOVL $0, AX
	CPUID
	CMPL AX, $7
	JLT  done
	MOVL $1, AX
	MOVL $0, CX
	CPUID
	BTL  $27, CX // OSXSAVE
	JCC  done
	MOVL $7, AX
	MOVL $0, CX
	CPUID
	BTL  $16, BX // AVX512F
	JCC  done
	BTL  $17, BX // AVX512DQ
	JCC  done
	MOVL $0, CX
	XGETBV
	ANDL $0xE6, AX // XMM, YMM, opmask, ZMM0-15 and ZMM16-31 state
	CMPL AX, $0xE6
	JNE  done
	MOVB $1, ret+0(FP)
done:
	RET

// func uniform8F64(o *float64, n int, z *[8]uint64, lo, s float64)
// n is a multiple of 8; lane i of z is the counter of element i.
TEXT ·uniform8F64(SB), NOSPLIT, $0-40
	SETUP
	SHRQ $3, CX
	JZ   f64done
f64loop:
	UNIFORM8
	VMOVUPD Z1, (DI)
	ADDQ $64, DI
	DECQ CX
	JNZ  f64loop
f64done:
	VZEROUPPER
	RET

// func uniform8F32(o *float32, n int, z *[8]uint64, lo, s float64)
TEXT ·uniform8F32(SB), NOSPLIT, $0-40
	SETUP
	SHRQ $3, CX
	JZ   f32done
f32loop:
	UNIFORM8
	VCVTPD2PS Z1, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ  f32loop
f32done:
	VZEROUPPER
	RET

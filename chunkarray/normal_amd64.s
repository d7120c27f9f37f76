#include "textflag.h"

// func normal8F64(o *float64, n int, z *[8]uint64, fail *uint8, mu, sd float64)
//
// The ziggurat's common case (random_dist.go, normalRun) eight lanes at a
// time: u = mix(z), strip i = u & 255, position j = u >> 11; where
// j < zigK[i], o = mu + sd*(±j*zigS[i]) (the sign from bit 8, the
// multiply and the add rounded separately as in Go); a byte per eight
// elements in fail has bit l set where lane l needs the slow path (its o
// is then garbage). n is a multiple of 8; lane l of z is the counter of
// element l.
TEXT ·normal8F64(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ z+16(FP), SI
	MOVQ fail+24(FP), R11
	VMOVDQU64 (SI), Z0
	MOVQ $0xbf58476d1ce4e5b9, AX
	VPBROADCASTQ AX, Z2
	MOVQ $0x94d049bb133111eb, AX
	VPBROADCASTQ AX, Z4
	MOVQ $0xf1bbcdcbfa53e0a8, AX // 8*smGamma
	VPBROADCASTQ AX, Z7
	VBROADCASTSD mu+32(FP), Z5
	VBROADCASTSD sd+40(FP), Z6
	MOVQ $255, AX
	VPBROADCASTQ AX, Z8
	MOVQ $0x8000000000000000, AX
	VPBROADCASTQ AX, Z9
	LEAQ ·zigK(SB), R9
	LEAQ ·zigS(SB), R10
	SHRQ $3, CX
	JZ   done
loop:
	// u = mix(z)
	VPSRLQ  $30, Z0, Z1
	VPXORQ  Z0, Z1, Z1
	VPMULLQ Z2, Z1, Z1
	VPSRLQ  $27, Z1, Z3
	VPXORQ  Z3, Z1, Z1
	VPMULLQ Z4, Z1, Z1
	VPSRLQ  $31, Z1, Z3
	VPXORQ  Z3, Z1, Z1
	VPADDQ  Z7, Z0, Z0
	// i, j, and the strip's threshold and scale
	VPANDQ  Z8, Z1, Z10
	VPSRLQ  $11, Z1, Z11
	KXNORB  K0, K0, K2
	VPGATHERQQ (R9)(Z10*8), K2, Z12
	KXNORB  K0, K0, K3
	VGATHERQPD (R10)(Z10*8), K3, Z13
	VPCMPUQ $1, Z12, Z11, K1 // K1: j < zigK[i]
	// x = ±j*zigS[i]; o = mu + sd*x
	VCVTQQ2PD Z11, Z14
	VMULPD  Z13, Z14, Z14
	VPSLLQ  $55, Z1, Z3
	VPANDQ  Z9, Z3, Z3
	VPXORQ  Z3, Z14, Z14
	VMULPD  Z6, Z14, Z14
	VADDPD  Z5, Z14, Z14
	VMOVUPD Z14, (DI)
	KNOTB   K1, K4
	KMOVB   K4, AX
	MOVB    AX, (R11)
	ADDQ $64, DI
	INCQ R11
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

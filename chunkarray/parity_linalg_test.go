package chunkarray

// The linear-algebra and FFT parity table of issue 13: every case of
// testdata/parity_linalg/cases.json (written by
// testdata/gen_parity_linalg.py with numpy 1.24) is evaluated with the
// chunkarray expression below over the conformance chunkings, on Sync and
// Threaded(2), fused and unfused, persisted and through JSON (runLayouts),
// and compared with numpy's result by compareGolden. Expressions rechunk
// what Dask needs whole first (the columns of QR, SVD and lstsq, the axes
// of an FFT), as a Dask user does; the refusals themselves are tested in
// TestLinalgDaskRefusals. QR and SVD are compared through sign-invariant
// quantities (see the script).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tessera-go/tessera/nd"
)

const parityLinalgDir = "testdata/parity_linalg"

// tallCols makes x's columns one block (dask's tsqr needs it).
func tallCols(x *Array) *Array { return x.Rechunk(map[int]int{1: -1}) }

// fftWhole makes the given axes of x one block each (dask's fft needs it).
func fftWhole(x *Array, axes ...int) *Array {
	m := map[int]int{}
	for _, a := range axes {
		m[a] = -1
	}
	if len(axes) == 0 {
		return x.Rechunk(-1)
	}
	return x.Rechunk(m)
}

func qrOf(x *Array, i int) *Array {
	q, r := QR(x)
	return []*Array{q, r}[i]
}

func svdOf(x *Array, i int) *Array {
	u, s, vh := SVD(x)
	switch i {
	case 3:
		return Matmul(u.Mul(s), vh)
	case 4:
		return u.Abs()
	case 5:
		return vh.Abs()
	}
	return []*Array{u, s, vh}[i]
}

func svdcOf(x *Array, o SVDCompressedOpts, i int) *Array {
	u, s, vh := SVDCompressed(x, 3, o)
	switch i {
	case 1:
		return s
	case 2:
		return vh
	case 3:
		return Matmul(u.Mul(s), vh)
	}
	return vh.Abs()
}

func luOf(x *Array, i int) *Array {
	p, l, u := LU(x)
	if i == 3 {
		return Matmul(Matmul(p, l), u)
	}
	return []*Array{p, l, u}[i]
}

func lstsqOf(a, b *Array, i int) *Array {
	x, res, rank, s := Lstsq(tallCols(a), b)
	return []*Array{x, res, rank, s}[i]
}

func normE(ord any, axes []int, keepdims bool) confExpr {
	return func(in []*Array) *Array { return Norm(in[0], ord, axes, keepdims) }
}

func einE(sub string) confExpr {
	return func(in []*Array) *Array { return Einsum(sub, in...) }
}

var posInf = math.Inf(1) // numpy's inf in the ord of the norm cases

var parityLinalgExprs = map[string]confExpr{
	"qr_recon":            func(in []*Array) *Array { q, r := QR(tallCols(in[0])); return Matmul(q, r) },
	"qr_orth":             func(in []*Array) *Array { q := qrOf(tallCols(in[0]), 0); return Matmul(q.T(), q) },
	"qr_abs_r":            func(in []*Array) *Array { return qrOf(tallCols(in[0]), 1).Abs() },
	"qr_abs_q":            func(in []*Array) *Array { return qrOf(tallCols(in[0]), 0).Abs() },
	"qr_recon_f32":        func(in []*Array) *Array { q, r := QR(tallCols(in[0])); return Matmul(q, r) },
	"qr_abs_r_int":        func(in []*Array) *Array { return qrOf(tallCols(in[0]), 1).Abs() },
	"qr_wide_recon":       func(in []*Array) *Array { q, r := QR(in[0].Rechunk([]any{-1, []int{5, 4}})); return Matmul(q, r) },
	"qr_wide_abs_r":       func(in []*Array) *Array { return qrOf(in[0].Rechunk([]any{-1, []int{4, 3, 2}}), 1).Abs() },
	"qr_1d":               func(in []*Array) *Array { return qrOf(in[0], 1) },
	"svd_s":               func(in []*Array) *Array { return svdOf(tallCols(in[0]), 1) },
	"svd_recon":           func(in []*Array) *Array { return svdOf(tallCols(in[0]), 3) },
	"svd_abs_u":           func(in []*Array) *Array { return svdOf(tallCols(in[0]), 4) },
	"svd_abs_vh":          func(in []*Array) *Array { return svdOf(tallCols(in[0]), 5) },
	"svd_u_flipped":       func(in []*Array) *Array { return svdOf(tallCols(in[0]), 0) },
	"svd_vh_flipped":      func(in []*Array) *Array { return svdOf(tallCols(in[0]), 2) },
	"svd_wide_vh_flipped": func(in []*Array) *Array { return svdOf(in[0].Rechunk(map[int]int{0: -1}), 2) },
	"svdc_vh_flipped":     func(in []*Array) *Array { return svdcOf(in[0], SVDCompressedOpts{Seed: 5}, 2) },
	"svd_s_f32":           func(in []*Array) *Array { return svdOf(tallCols(in[0]), 1) },
	"svd_wide_s":          func(in []*Array) *Array { return svdOf(in[0].Rechunk(map[int]int{0: -1}), 1) },
	"svd_wide_recon":      func(in []*Array) *Array { return svdOf(in[0].Rechunk(map[int]int{0: -1}), 3) },
	"svd_lowrank_s":       func(in []*Array) *Array { return svdOf(tallCols(in[0]), 1) },
	"svdc_s":              func(in []*Array) *Array { return svdcOf(in[0], SVDCompressedOpts{Seed: 42}, 1) },
	"svdc_recon":          func(in []*Array) *Array { return svdcOf(in[0], SVDCompressedOpts{Seed: 7}, 3) },
	"svdc_recon_power": func(in []*Array) *Array {
		return svdcOf(in[0], SVDCompressedOpts{Seed: 9, NPowerIter: 2, NOversamples: 2}, 3)
	},
	"svdc_abs_vh":       func(in []*Array) *Array { return svdcOf(in[0], SVDCompressedOpts{Seed: 1}, 5) },
	"solve_vec":         func(in []*Array) *Array { return Solve(in[0], in[1]) },
	"solve_mat":         func(in []*Array) *Array { return Solve(in[0], in[1]) },
	"solve_f32":         func(in []*Array) *Array { return Solve(in[0], in[1]) },
	"solve_f32_f32":     func(in []*Array) *Array { return Solve(in[0], in[0].Index(All(), At(0))) },
	"solve_pos":         func(in []*Array) *Array { return Solve(in[0], in[1], SolveOpts{AssumeA: "pos"}) },
	"solve_pos_vec_f32": func(in []*Array) *Array { return Solve(in[0], in[1].AsType(nd.Float32), SolveOpts{AssumeA: "pos"}) },
	"solve_singular":    func(in []*Array) *Array { return Solve(in[0], in[1]) },
	"solve_shape":       func(in []*Array) *Array { return Solve(in[0], in[1]) },
	"inv":               func(in []*Array) *Array { return Inv(in[0]) },
	"inv_f32":           func(in []*Array) *Array { return Inv(in[0]) },
	"inv_int":           func(in []*Array) *Array { return Inv(in[0]) },
	"inv_complex":       func(in []*Array) *Array { return Inv(in[0]) },
	"inv_c64":           func(in []*Array) *Array { return Inv(in[0]) },
	"solve_complex":     func(in []*Array) *Array { return Solve(in[0], in[1]) },
	"solve_real_cplx":   func(in []*Array) *Array { return Solve(in[0], in[1]) },
	"norm_mat_c_2":      normE(2, nil, false),
	"norm_mat_c_nuc":    normE("nuc", nil, false),
	"norm_mat_c64_n2":   normE(-2, nil, false),
	"inv_check":         func(in []*Array) *Array { return Matmul(in[0], Inv(in[0])) },
	"inv_singular":      func(in []*Array) *Array { return Inv(in[0]) },
	"inv_nonsquare":     func(in []*Array) *Array { return Inv(in[0]) },
	"cholesky_lower":    func(in []*Array) *Array { return Cholesky(in[0], true) },
	"cholesky_upper":    func(in []*Array) *Array { return Cholesky(in[0], false) },
	"cholesky_notpd":    func(in []*Array) *Array { return Cholesky(in[0], true) },
	"lu_p":              func(in []*Array) *Array { return luOf(in[0], 0) },
	"lu_l":              func(in []*Array) *Array { return luOf(in[0], 1) },
	"lu_u":              func(in []*Array) *Array { return luOf(in[0], 2) },
	"lu_recon":          func(in []*Array) *Array { return luOf(in[0], 3) },
	"lu_sing_recon":     func(in []*Array) *Array { return luOf(in[0], 3) },
	"lstsq_x":           func(in []*Array) *Array { return lstsqOf(in[0], in[1], 0) },
	"lstsq_x2":          func(in []*Array) *Array { return lstsqOf(in[0], in[1], 0) },
	"lstsq_res":         func(in []*Array) *Array { return lstsqOf(in[0], in[1], 1) },
	"lstsq_res2":        func(in []*Array) *Array { return lstsqOf(in[0], in[1], 1) },
	"lstsq_rank":        func(in []*Array) *Array { return lstsqOf(in[0], in[1], 2) },
	"lstsq_s":           func(in []*Array) *Array { return lstsqOf(in[0], in[1], 3) },
	"solve_triangular":  func(in []*Array) *Array { return SolveTriangular(in[0], in[1], false) },
	"solve_triangular_lower": func(in []*Array) *Array {
		return SolveTriangular(in[0], in[1], true)
	},

	"norm_vec_none":      normE(nil, nil, false),
	"norm_vec_2":         normE(2, nil, false),
	"norm_vec_1":         normE(1, nil, false),
	"norm_vec_0":         normE(0, nil, false),
	"norm_vec_inf":       normE(posInf, nil, false),
	"norm_vec_ninf":      normE(-posInf, nil, false),
	"norm_vec_3":         normE(3, nil, false),
	"norm_vec_half":      normE(0.5, nil, false),
	"norm_vec_n1":        normE(-1, nil, false),
	"norm_vec_int":       normE(nil, nil, false),
	"norm_vec_int_1":     normE(1, nil, false),
	"norm_vec_f32":       normE(nil, nil, false),
	"norm_vec_f32_inf":   normE(posInf, nil, false),
	"norm_vec_c":         normE(nil, nil, false),
	"norm_vec_c_1":       normE(1, nil, false),
	"norm_vec_fro":       normE("fro", nil, false),
	"norm_mat_none":      normE(nil, nil, false),
	"norm_mat_fro":       normE("fro", nil, false),
	"norm_mat_nuc":       normE("nuc", nil, false),
	"norm_mat_1":         normE(1, nil, false),
	"norm_mat_n1":        normE(-1, nil, false),
	"norm_mat_2":         normE(2, nil, false),
	"norm_mat_n2":        normE(-2, nil, false),
	"norm_mat_inf":       normE(posInf, nil, false),
	"norm_mat_ninf":      normE(-posInf, nil, false),
	"norm_mat_3":         normE(3, nil, false),
	"norm_mat_f32_fro":   normE("fro", nil, false),
	"norm_mat_f32_1":     normE(1, nil, false),
	"norm_axis0":         normE(nil, []int{0}, false),
	"norm_axis1_inf_k":   normE(posInf, []int{1}, true),
	"norm_3d_flat":       normE(nil, nil, false),
	"norm_3d_flat_k":     normE(nil, nil, true),
	"norm_3d_ord":        normE(1, nil, false),
	"norm_3d_axes_1":     normE(1, []int{2, 0}, false),
	"norm_3d_axes_inf_k": normE(posInf, []int{0, 1}, true),
	"norm_3d_axes_fro":   normE("fro", []int{1, 2}, false),
	"norm_3d_axis_3":     normE(3, []int{-1}, false),
	"norm_dup_axes":      normE(nil, []int{1, 1}, false),

	"ein_matmul":             einE("ij,jk->ik"),
	"ein_matmul_implicit":    einE("ij,jk"),
	"ein_transpose":          einE("ij->ji"),
	"ein_implicit_transpose": einE("ji"),
	"ein_trace":              einE("ii"),
	"ein_diag":               einE("ii->i"),
	"ein_sum_all":            einE("ij->"),
	"ein_sum_axis":           einE("ij->j"),
	"ein_dot":                einE("i,i"),
	"ein_outer":              einE("i,j->ij"),
	"ein_matvec":             einE("ij,j->i"),
	"ein_three":              einE("ij,jk,k->i"),
	"ein_batch":              einE("bij,bjk->bik"),
	"ein_ellipsis":           einE("...ij,...jk->...ik"),
	"ein_ellipsis_implicit":  einE("...j,j"),
	"ein_ellipsis_left":      einE("i...->..."),
	"ein_bcast1":             einE("ij,ij->ij"),
	"ein_int8_wrap":          einE("ij,jk->ik"),
	"ein_complex":            einE("ij,ij->i"),
	"ein_f32":                einE("ij,kj->ik"),
	"ein_bool":               einE("i,i"),
	"ein_u8_f32":             einE("ij,ij->j"),
	"ein_i8_u8_batch":        einE("ij,ij->ij"),
	"ein_bool_outer":         einE("i,j->ij"),
	"ein_empty_contract":     einE("ij,jk->ik"),
	"ein_empty_out":          einE("ij->j"),
	"ein_bad_letter":         einE("i1,jk->ik"),
	"ein_bad_count":          einE("ij,jk->ik"),
	"ein_bad_shape":          einE("ij,jk->ik"),
	"ein_bad_out":            einE("ij,jk->iz"),
	"ein_bad_out_repeat":     einE("ij,jk->ii"),
	"ein_bad_ndim":           einE("ijk->i"),
	"ein_bad_ellipsis_out":   einE("...i->i"),

	"fft_s8":           func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "") },
	"fft_s7":           func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "") },
	"fft_f32":          func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "") },
	"fft_c64":          func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "") },
	"rfft_complex":     func(in []*Array) *Array { return RFFT(fftWhole(in[0]), 0, -1, "") },
	"fft_int":          func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "") },
	"fft_c6":           func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "backward") },
	"fft_pad":          func(in []*Array) *Array { return FFT(fftWhole(in[0]), 10, -1, "") },
	"fft_trunc":        func(in []*Array) *Array { return FFT(fftWhole(in[0]), 5, -1, "") },
	"fft_ortho":        func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "ortho") },
	"fft_forward":      func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "forward") },
	"fft_axis0":        func(in []*Array) *Array { return FFT(fftWhole(in[0], 0), 0, 0, "") },
	"fft_axis1":        func(in []*Array) *Array { return FFT(fftWhole(in[0], 1), 0, 1, "") },
	"fft_nneg":         func(in []*Array) *Array { return FFT(fftWhole(in[0]), -1, -1, "") },
	"fftn_sneg":        func(in []*Array) *Array { return FFTN(fftWhole(in[0]), []int{5, -2}, nil, "") },
	"fft_badnorm":      func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, -1, "bogus") },
	"fft_badaxis":      func(in []*Array) *Array { return FFT(fftWhole(in[0]), 0, 1, "") },
	"ifft_c6":          func(in []*Array) *Array { return IFFT(fftWhole(in[0]), 0, -1, "") },
	"ifft_pad_ortho":   func(in []*Array) *Array { return IFFT(fftWhole(in[0]), 9, -1, "ortho") },
	"ifft_forward":     func(in []*Array) *Array { return IFFT(fftWhole(in[0], 0), 0, 0, "forward") },
	"rfft_s8":          func(in []*Array) *Array { return RFFT(fftWhole(in[0]), 0, -1, "") },
	"rfft_s7":          func(in []*Array) *Array { return RFFT(fftWhole(in[0]), 0, -1, "") },
	"rfft_n11":         func(in []*Array) *Array { return RFFT(fftWhole(in[0]), 11, -1, "") },
	"rfft_axis0_ortho": func(in []*Array) *Array { return RFFT(fftWhole(in[0], 0), 0, 0, "ortho") },
	"irfft_c6":         func(in []*Array) *Array { return IRFFT(fftWhole(in[0]), 0, -1, "") },
	"irfft_odd":        func(in []*Array) *Array { return IRFFT(fftWhole(in[0]), 11, -1, "") },
	"irfft_trunc":      func(in []*Array) *Array { return IRFFT(fftWhole(in[0]), 4, -1, "") },
	"irfft_forward":    func(in []*Array) *Array { return IRFFT(fftWhole(in[0], 0), 0, 0, "forward") },
	"irfft_roundtrip":  func(in []*Array) *Array { return IRFFT(RFFT(fftWhole(in[0]), 0, -1, ""), 7, -1, "") },
	"hfft_h5":          func(in []*Array) *Array { return HFFT(fftWhole(in[0]), 0, -1, "") },
	"hfft_n9_ortho":    func(in []*Array) *Array { return HFFT(fftWhole(in[0]), 9, -1, "ortho") },
	"ihfft_s7":         func(in []*Array) *Array { return IHFFT(fftWhole(in[0]), 0, -1, "") },
	"ihfft_forward":    func(in []*Array) *Array { return IHFFT(fftWhole(in[0]), 0, -1, "forward") },
	"fft2_m56":         func(in []*Array) *Array { return FFT2(fftWhole(in[0]), nil, nil, "") },
	"fft2_s":           func(in []*Array) *Array { return FFT2(fftWhole(in[0]), []int{3, 8}, nil, "") },
	"ifft2_m56c":       func(in []*Array) *Array { return IFFT2(fftWhole(in[0]), nil, nil, "ortho") },
	"rfft2_m56":        func(in []*Array) *Array { return RFFT2(fftWhole(in[0]), nil, nil, "") },
	"irfft2_m56c":      func(in []*Array) *Array { return IRFFT2(fftWhole(in[0]), nil, nil, "") },
	"irfft2_s":         func(in []*Array) *Array { return IRFFT2(fftWhole(in[0]), []int{4, 7}, nil, "") },
	"fftn_3d":          func(in []*Array) *Array { return FFTN(fftWhole(in[0]), nil, nil, "") },
	"fftn_axes":        func(in []*Array) *Array { return FFTN(fftWhole(in[0], 0, 2), nil, []int{0, 2}, "") },
	"fftn_s_axes":      func(in []*Array) *Array { return FFTN(fftWhole(in[0], 0, 2), []int{6, 2}, []int{2, 0}, "") },
	"fftn_s_only":      func(in []*Array) *Array { return FFTN(fftWhole(in[0], 1, 2), []int{3, 3}, nil, "") },
	"ifftn_3d":         func(in []*Array) *Array { return IFFTN(fftWhole(in[0]), nil, nil, "forward") },
	"rfftn_3d":         func(in []*Array) *Array { return RFFTN(fftWhole(in[0]), nil, nil, "") },
	"rfftn_axes":       func(in []*Array) *Array { return RFFTN(fftWhole(in[0], 1, 2), nil, []int{2, 1}, "") },
	"irfftn_3d":        func(in []*Array) *Array { return IRFFTN(fftWhole(in[0]), nil, nil, "") },
	"irfftn_s":         func(in []*Array) *Array { return IRFFTN(fftWhole(in[0]), []int{2, 4, 6}, nil, "") },
	"fftn_shape_axes":  func(in []*Array) *Array { return FFTN(fftWhole(in[0]), []int{3, 3}, []int{0}, "") },
	"fftfreq_8":        func([]*Array) *Array { return FFTFreq(8, 1, 3) },
	"fftfreq_7_d":      func([]*Array) *Array { return FFTFreq(7, 0.25, []int{2}) },
	"rfftfreq_8":       func([]*Array) *Array { return RFFTFreq(8, 2, 2) },
	"rfftfreq_7":       func([]*Array) *Array { return RFFTFreq(7, 1, -1) },
	"fftshift_s7":      func(in []*Array) *Array { return FFTShift(in[0]) },
	"fftshift_m56":     func(in []*Array) *Array { return FFTShift(in[0]) },
	"fftshift_axis":    func(in []*Array) *Array { return FFTShift(in[0], 1) },
	"ifftshift_m56":    func(in []*Array) *Array { return IFFTShift(in[0]) },
	"ifftshift_3d":     func(in []*Array) *Array { return IFFTShift(in[0], 0, 2) },
	"shift_roundtrip":  func(in []*Array) *Array { return IFFTShift(FFTShift(in[0])) },
}

// addRandomEinsum adds the random einsum cases, whose subscripts the
// script writes to einsum_random.json.
var addRandomEinsum = sync.OnceValue(func() error {
	b, err := os.ReadFile(filepath.Join(parityLinalgDir, "einsum_random.json"))
	if err != nil {
		return err
	}
	var subs map[string]string
	if err := json.Unmarshal(b, &subs); err != nil {
		return err
	}
	for name, sub := range subs {
		parityLinalgExprs[name] = einE(sub)
	}
	if b, err = os.ReadFile(filepath.Join(parityLinalgDir, "fft_random.json")); err != nil {
		return err
	}
	var ffts map[string]struct {
		Fn   string `json:"fn"`
		S    []int  `json:"s"`
		Axes []int  `json:"axes"`
		Norm string `json:"norm"`
	}
	if err := json.Unmarshal(b, &ffts); err != nil {
		return err
	}
	fns := map[string]func(a *Array, s, axes []int, norm string) *Array{"fftn": FFTN, "ifftn": IFFTN, "rfftn": RFFTN, "irfftn": IRFFTN}
	for name, c := range ffts {
		fn, ok := fns[c.Fn]
		if !ok {
			return fmt.Errorf("%s: unknown transform %q", name, c.Fn)
		}
		parityLinalgExprs[name] = func(in []*Array) *Array { return fn(fftWhole(in[0]), c.S, c.Axes, c.Norm) }
	}
	return nil
})

func TestParityLinalg(t *testing.T) {
	if err := addRandomEinsum(); err != nil {
		t.Fatal(err)
	}
	runParity(t, parityLinalgDir, confCases(parityLinalgExprs))
}

// TestParityLinalgGoldensCurrent checks that testdata/parity_linalg is
// what gen_parity_linalg.py writes now.
func TestParityLinalgGoldensCurrent(t *testing.T) {
	checkGoldensCurrent(t, "testdata/gen_parity_linalg.py", parityLinalgDir)
}

func TestParityLinalgExprsHaveCases(t *testing.T) {
	if err := addRandomEinsum(); err != nil {
		t.Fatal(err)
	}
	checkExprsHaveCases(t, parityLinalgDir, parityLinalgExprs)
}

// TestLinalgDaskRefusals: what Dask refuses (an FFT along an axis of
// several chunks, TSQR of an array with several column blocks, QR with
// blocks along both axes) and what gonum cannot do (complex matrices) are
// typed errors at build time.
func TestLinalgDaskRefusals(t *testing.T) {
	x := FromNDArray(laWave(t, 6, 4), 2)
	c, err := nd.FromSlice([]complex128{1, 2i, 3, 4}, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	xc := FromNDArray(c, -1)
	for name, a := range map[string]*Array{
		"fft":        FFT(x, 0, 0, ""),
		"fft2":       FFT2(x.Rechunk(map[int]int{0: -1}), nil, nil, ""),
		"rfftn":      RFFTN(x, nil, []int{0}, ""),
		"tsqr":       func() *Array { q, _ := TSQR(x); return q }(),
		"qr":         func() *Array { _, r := QR(x); return r }(),
		"svd":        func() *Array { _, s, _ := SVD(x); return s }(),
		"lstsq":      func() *Array { r, _, _, _ := Lstsq(x, x); return r }(),
		"lu":         func() *Array { p, _, _ := LU(xc); return p }(),
		"cholesky":   Cholesky(xc, true),
		"sfqr-short": func() *Array { q, _ := QR(FromNDArray(laWave(t, 4, 6), []int{-1, 2})); return q }(),
	} {
		err := a.Err()
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: got %v, want a *chunkarray.Error", name, err)
		}
	}
}

func laWave(t *testing.T, m, n int) *nd.Array {
	t.Helper()
	v := make([]float64, m*n)
	for i := range v {
		v[i] = math.Sin(float64(i)*0.7) + 0.1*float64(i%5)
	}
	a, err := nd.FromSlice(v, m, n)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

package nd_test

import (
	"testing"

	"github.com/tessera-go/tessera/nd"
)

// resultType3 is numpy 1.24's np.result_type(a, b, c) for every triple of
// dtypes in nd.DTypes order (a slowest), one letter each ('a' + the
// result's index in nd.DTypes), written by
//
//	D = [bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
//	     float32, float64, complex64, complex128]
//	"".join(chr(97 + D.index(np.result_type(a, b, c).name))
//	        for a in D for b in D for c in D)
const resultType3 = "" +
	"abcdefghijklmbbcdecdekjklmcccdecdekjklmddddeddekkkmmeeeeeeeekkkmmfccdefghijklm" +
	"gdddegghijklmheeeehhhikkmmikkkkiiiikkmmjjjkkjjkkjklmkkkkkkkkkkkmmlllmmllmmlmlm" +
	"mmmmmmmmmmmmmbbcdecdekjklmbbcdecdekjklmcccdecdekjklmddddeddekkkmmeeeeeeeekkkmm" +
	"cccdecdekjklmddddeddekjklmeeeeeeeekkkmmkkkkkkkkkkkmmjjjkkjjkkjklmkkkkkkkkkkkmm" +
	"lllmmllmmlmlmmmmmmmmmmmmmmcccdecdekjklmcccdecdekjklmcccdecdekjklmddddeddekkkmm" +
	"eeeeeeeekkkmmcccdecdekjklmddddeddekjklmeeeeeeeekkkmmkkkkkkkkkkkmmjjjkkjjkkjklm" +
	"kkkkkkkkkkkmmlllmmllmmlmlmmmmmmmmmmmmmmddddeddekkkmmddddeddekkkmmddddeddekkkmm" +
	"ddddeddekkkmmeeeeeeeekkkmmddddeddekkkmmddddeddekkkmmeeeeeeeekkkmmkkkkkkkkkkkmm" +
	"kkkkkkkkkkkmmkkkkkkkkkkkmmmmmmmmmmmmmmmmmmmmmmmmmmmmeeeeeeeekkkmmeeeeeeeekkkmm" +
	"eeeeeeeekkkmmeeeeeeeekkkmmeeeeeeeekkkmmeeeeeeeekkkmmeeeeeeeekkkmmeeeeeeeekkkmm" +
	"kkkkkkkkkkkmmkkkkkkkkkkkmmkkkkkkkkkkkmmmmmmmmmmmmmmmmmmmmmmmmmmmmfccdefghijklm" +
	"cccdecdekjklmcccdecdekjklmddddeddekkkmmeeeeeeeekkkmmfccdefghijklmgdddegghijklm" +
	"heeeehhhikkmmikkkkiiiikkmmjjjkkjjkkjklmkkkkkkkkkkkmmlllmmllmmlmlmmmmmmmmmmmmmm" +
	"gdddegghijklmddddeddekjklmddddeddekjklmddddeddekkkmmeeeeeeeekkkmmgdddegghijklm" +
	"gdddegghijklmheeeehhhikkmmikkkkiiiikkmmjjjkkjjkkjklmkkkkkkkkkkkmmlllmmllmmlmlm" +
	"mmmmmmmmmmmmmheeeehhhikkmmeeeeeeeekkkmmeeeeeeeekkkmmeeeeeeeekkkmmeeeeeeeekkkmm" +
	"heeeehhhikkmmheeeehhhikkmmheeeehhhikkmmikkkkiiiikkmmkkkkkkkkkkkmmkkkkkkkkkkkmm" +
	"mmmmmmmmmmmmmmmmmmmmmmmmmmikkkkiiiikkmmkkkkkkkkkkkmmkkkkkkkkkkkmmkkkkkkkkkkkmm" +
	"kkkkkkkkkkkmmikkkkiiiikkmmikkkkiiiikkmmikkkkiiiikkmmikkkkiiiikkmmkkkkkkkkkkkmm" +
	"kkkkkkkkkkkmmmmmmmmmmmmmmmmmmmmmmmmmmmmjjjkkjjkkjklmjjjkkjjkkjklmjjjkkjjkkjklm" +
	"kkkkkkkkkkkmmkkkkkkkkkkkmmjjjkkjjkkjklmjjjkkjjkkjklmkkkkkkkkkkkmmkkkkkkkkkkkmm" +
	"jjjkkjjkkjklmkkkkkkkkkkkmmlllmmllmmlmlmmmmmmmmmmmmmmkkkkkkkkkkkmmkkkkkkkkkkkmm" +
	"kkkkkkkkkkkmmkkkkkkkkkkkmmkkkkkkkkkkkmmkkkkkkkkkkkmmkkkkkkkkkkkmmkkkkkkkkkkkmm" +
	"kkkkkkkkkkkmmkkkkkkkkkkkmmkkkkkkkkkkkmmmmmmmmmmmmmmmmmmmmmmmmmmmmlllmmllmmlmlm" +
	"lllmmllmmlmlmlllmmllmmlmlmmmmmmmmmmmmmmmmmmmmmmmmmmmlllmmllmmlmlmlllmmllmmlmlm" +
	"mmmmmmmmmmmmmmmmmmmmmmmmmmlllmmllmmlmlmmmmmmmmmmmmmmlllmmllmmlmlmmmmmmmmmmmmmm" +
	"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm" +
	"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm" +
	"mmmmmmmmmmmmm"

// TestResultTypeThree is the regression of a disagreement chunkarray's
// TestDiffNumpy found: np.concatenate of int16, uint16 and complex64 is
// complex64, which a pairwise fold of promote_types (int32, then
// complex128) misses. Every triple must match numpy's result_type.
func TestResultTypeThree(t *testing.T) {
	d := nd.DTypes
	i := 0
	for _, a := range d {
		for _, b := range d {
			for _, c := range d {
				want := d[resultType3[i]-'a']
				i++
				if got := nd.ResultType(a, b, c); got != want {
					t.Errorf("ResultType(%s, %s, %s) = %s, want %s", a, b, c, got, want)
				}
			}
		}
	}
}

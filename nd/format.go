package nd

import (
	"fmt"
	"math"
	"math/cmplx"
	"strconv"
	"strings"
)

// Printing follows numpy 1.24's defaults (np.get_printoptions()): 8 digits
// of precision in 'maxprec' mode, scientific notation when the largest
// magnitude is at least 1e8 or the smallest non-zero one below 1e-4 or the
// ratio of the two above 1000, arrays of more than 1000 elements shown as
// their first and last 3 items along every axis with "...", lines wrapped
// at 75 characters. The layout is numpy's _formatArray, so a repr here is
// byte for byte numpy's repr (checked against numpy's output in
// testdata/repr.json). Deviation: float16 and the object, string and
// datetime dtypes do not exist in nd.

const (
	printPrecision = 8
	printThreshold = 1000
	printEdgeItems = 3
	printLineWidth = 75
)

// String returns numpy's repr of a: "array([1. , 2.5])", "array([[1, 2],
// \n       [3, 4]], dtype=int32)", "array(3.)" for a 0-d array. A nil or
// invalid array prints as "nd.Array(invalid: …)".
func (a *Array) String() string {
	if err := checkArrays("String", a); err != nil {
		return "nd.Array(invalid: " + err.Error() + ")"
	}
	const prefix = "array("
	implied := a.dtype == Float64 || a.dtype == Int64 || a.dtype == Bool || a.dtype == Complex128
	skipDType := implied && a.Size() > 0
	suffix := ","
	if skipDType {
		suffix = ")"
	}
	var body string
	switch {
	case a.Size() > 0:
		body = a.format(", ", prefix, printLineWidth-len(suffix))
	case len(a.shape) == 1:
		body = "[]"
	default:
		body = "[], shape=" + pyShape(a.shape)
	}
	s := prefix + body + suffix
	if skipDType {
		return s
	}
	dt := "dtype=" + a.dtype.String() + ")"
	last := len(s) - (strings.LastIndexByte(s, '\n') + 1)
	if last+len(dt)+1 > printLineWidth {
		return s + "\n" + strings.Repeat(" ", len(prefix)) + dt
	}
	return s + " " + dt
}

// Str returns numpy's str of a: "[1.  2.5]", "[[1 2]\n [3 4]]", and for a
// 0-d array its one value as Python prints a numpy scalar ("3.0", "5",
// "True").
func (a *Array) Str() string {
	if err := checkArrays("Str", a); err != nil {
		return "nd.Array(invalid: " + err.Error() + ")"
	}
	if len(a.shape) == 0 {
		return scalarStr(a)
	}
	if a.Size() == 0 {
		return "[]"
	}
	return a.format(" ", "", printLineWidth)
}

// Format implements fmt.Formatter: %v and %s print numpy's str (Str), %#v
// and %q numpy's repr (String).
func (a *Array) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'q' || (verb == 'v' && f.Flag('#')):
		fmt.Fprint(f, a.String())
	default:
		fmt.Fprint(f, a.Str())
	}
}

func pyShape(sh []int) string {
	if len(sh) == 1 {
		return "(" + strconv.Itoa(sh[0]) + ",)"
	}
	parts := make([]string, len(sh))
	for i, n := range sh {
		parts[i] = strconv.Itoa(n)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// format lays a (size > 0) out as numpy's _formatArray does.
func (a *Array) format(sep, prefix string, width int) string {
	summary := a.Size() > printThreshold
	c := a.Contiguous()
	strides := CStrides(c.shape)
	elem := elementFormatter(c, shownOffsets(c.shape, strides, summary))
	p := printer{shape: c.shape, strides: strides, sep: sep, summary: summary, elem: elem}
	return p.recurse(nil, " "+strings.Repeat(" ", len(prefix)), width)
}

// shownOffsets returns the flat offsets (C order) of the elements that a
// summarised print shows: along each axis longer than 2×edge items, the
// first and last edge items only. All of them without summary.
func shownOffsets(shape, strides []int, summary bool) []int {
	var out []int
	var walk func(axis, off int)
	walk = func(axis, off int) {
		if axis == len(shape) {
			out = append(out, off)
			return
		}
		n := shape[axis]
		for i := range n {
			if summary && n > 2*printEdgeItems && i == printEdgeItems {
				i = n - printEdgeItems
				for ; i < n; i++ {
					walk(axis+1, off+i*strides[axis])
				}
				return
			}
			walk(axis+1, off+i*strides[axis])
		}
	}
	walk(0, 0)
	return out
}

type printer struct {
	shape, strides []int
	sep            string
	summary        bool
	elem           func(off int) string
}

// recurse is numpy's _formatArray.recurser: index picks the sub-array,
// hanging is the indent of continuation lines, width the line width left.
func (p *printer) recurse(index []int, hanging string, width int) string {
	axis := len(index)
	if axis == len(p.shape) {
		off := 0
		for k, i := range index {
			off += i * p.strides[k]
		}
		return p.elem(off)
	}
	nextHanging := hanging + " "
	nextWidth := width - 1
	n := p.shape[axis]
	show := p.summary && 2*printEdgeItems < n
	leading, trailing := 0, n
	if show {
		leading, trailing = printEdgeItems, printEdgeItems
	}
	sub := func(i int) string {
		return p.recurse(append(index[:axis:axis], i), nextHanging, nextWidth)
	}
	var s strings.Builder
	if axis == len(p.shape)-1 {
		sepTrim := strings.TrimRight(p.sep, " ")
		elemWidth := width - max(len(sepTrim), 1)
		line := hanging
		extend := func(word string, w int) {
			if len(line)+len(word) > w && len(line) > len(hanging) {
				s.WriteString(strings.TrimRight(line, " "))
				s.WriteByte('\n')
				line = hanging
			}
			line += word
		}
		for i := range leading {
			extend(sub(i), elemWidth)
			line += p.sep
		}
		if show {
			extend("...", elemWidth)
			line += p.sep
		}
		for i := trailing; i > 1; i-- {
			extend(sub(n-i), elemWidth)
			line += p.sep
		}
		extend(sub(n-1), elemWidth)
		s.WriteString(line)
	} else {
		lineSep := strings.TrimRight(p.sep, " ") + strings.Repeat("\n", len(p.shape)-axis-1)
		for i := range leading {
			s.WriteString(hanging + sub(i) + lineSep)
		}
		if show {
			s.WriteString(hanging + "..." + lineSep)
		}
		for i := trailing; i > 1; i-- {
			s.WriteString(hanging + sub(n-i) + lineSep)
		}
		s.WriteString(hanging + sub(n-1))
	}
	return "[" + s.String()[len(hanging):] + "]"
}

// elementFormatter returns the function that prints the element at a flat
// offset of c (contiguous), fitted to the elements at shown, as numpy's
// format functions are fitted to the data they print.
func elementFormatter(c *Array, shown []int) func(off int) string {
	switch c.dtype {
	case Bool:
		v := c.data.([]bool)
		pad := len(c.shape) > 0
		return func(off int) string {
			switch {
			case v[off]:
				if pad {
					return " True"
				}
				return "True"
			default:
				return "False"
			}
		}
	case Float32, Float64:
		bits := 64
		if c.dtype == Float32 {
			bits = 32
		}
		vals := floatsOf(c)
		f := newFloatFormat(pick(vals, shown), bits, false)
		return func(off int) string { return f.format(vals[off]) }
	case Complex64, Complex128:
		bits := 64
		if c.dtype == Complex64 {
			bits = 32
		}
		vals := complexesOf(c)
		re, im := make([]float64, len(shown)), make([]float64, len(shown))
		for k, off := range shown {
			re[k], im[k] = real(vals[off]), imag(vals[off])
		}
		fr, fi := newFloatFormat(re, bits, false), newFloatFormat(im, bits, true)
		return func(off int) string {
			r, i := fr.format(real(vals[off])), fi.format(imag(vals[off]))
			sp := len(strings.TrimRight(i, " "))
			return r + i[:sp] + "j" + i[sp:]
		}
	default:
		strs := intStrings(c)
		w := 0
		for _, off := range shown {
			w = max(w, len(strs[off]))
		}
		return func(off int) string { return pad(strs[off], w) }
	}
}

func pick(vals []float64, at []int) []float64 {
	out := make([]float64, len(at))
	for k, off := range at {
		out[k] = vals[off]
	}
	return out
}

func pad(s string, w int) string {
	if len(s) >= w {
		return s
	}
	return strings.Repeat(" ", w-len(s)) + s
}

func floatsOf(c *Array) []float64 {
	switch v := c.data.(type) {
	case []float32:
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	default:
		return c.data.([]float64)
	}
}

func complexesOf(c *Array) []complex128 {
	switch v := c.data.(type) {
	case []complex64:
		out := make([]complex128, len(v))
		for i, x := range v {
			out[i] = complex128(x)
		}
		return out
	default:
		return c.data.([]complex128)
	}
}

// intStrings returns the decimal form of every element of c (an integer
// array).
func intStrings(c *Array) []string {
	n := c.Size()
	out := make([]string, n)
	switch v := c.data.(type) {
	case []int8:
		for i := range n {
			out[i] = strconv.FormatInt(int64(v[i]), 10)
		}
	case []int16:
		for i := range n {
			out[i] = strconv.FormatInt(int64(v[i]), 10)
		}
	case []int32:
		for i := range n {
			out[i] = strconv.FormatInt(int64(v[i]), 10)
		}
	case []int64:
		for i := range n {
			out[i] = strconv.FormatInt(v[i], 10)
		}
	case []uint8:
		for i := range n {
			out[i] = strconv.FormatUint(uint64(v[i]), 10)
		}
	case []uint16:
		for i := range n {
			out[i] = strconv.FormatUint(uint64(v[i]), 10)
		}
	case []uint32:
		for i := range n {
			out[i] = strconv.FormatUint(uint64(v[i]), 10)
		}
	case []uint64:
		for i := range n {
			out[i] = strconv.FormatUint(v[i], 10)
		}
	}
	return out
}

// floatFormat is numpy's FloatingFormat in 'maxprec' mode, fitted to the
// values it will print.
type floatFormat struct {
	bits      int
	plus      bool // sign='+' (the imaginary parts of complex numbers)
	exp       bool
	padLeft   int
	padRight  int
	precision int // exp mode: digits after the point, zero-padded
	expDigits int
}

func newFloatFormat(vals []float64, bits int, plus bool) *floatFormat {
	f := &floatFormat{bits: bits, plus: plus}
	var finite []float64
	minNZ, maxNZ := math.Inf(1), 0.0
	for _, x := range vals {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		finite = append(finite, x)
		if ax := math.Abs(x); ax != 0 {
			minNZ, maxNZ = min(minNZ, ax), max(maxNZ, ax)
		}
	}
	if maxNZ > 0 && (maxNZ >= 1e8 || minNZ < 0.0001 || maxNZ/minNZ > 1000) {
		f.exp = true
	}
	switch {
	case len(finite) == 0:
	case f.exp:
		for _, x := range finite {
			mant, e := f.sci(x)
			ip, fp, _ := strings.Cut(mant, ".")
			f.padLeft = max(f.padLeft, len(ip))
			f.precision = max(f.precision, len(fp))
			f.expDigits = max(f.expDigits, len(e)-1)
		}
		f.padRight = f.expDigits + 2 + f.precision
	default:
		for _, x := range finite {
			ip, fp, _ := strings.Cut(f.pos(x), ".")
			f.padLeft = max(f.padLeft, len(ip))
			f.padRight = max(f.padRight, len(fp))
		}
	}
	if len(finite) != len(vals) {
		neg := 0
		for _, x := range vals {
			if math.IsInf(x, -1) || plus {
				neg = 1
			}
		}
		offset := f.padRight + 1
		f.padLeft = max(f.padLeft, 3-offset, 3+neg-offset)
	}
	return f
}

// pos is x in positional notation with numpy's unique digits, at most
// printPrecision after the point, trailing zeros trimmed but the point
// kept ("1.", "2.5", "-0.1").
func (f *floatFormat) pos(x float64) string {
	s := strconv.FormatFloat(x, 'f', -1, f.bits)
	if _, fp, ok := strings.Cut(s, "."); ok && len(fp) > printPrecision {
		s = strings.TrimRight(strconv.FormatFloat(x, 'f', printPrecision, f.bits), "0")
	}
	if !strings.Contains(s, ".") {
		s += "."
	}
	if f.plus && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// sci is x in scientific notation with numpy's unique digits (at most
// printPrecision after the point): the mantissa ("1.5", "-2.") and the
// exponent with its sign ("-05", "+100").
func (f *floatFormat) sci(x float64) (mant, exp string) {
	s := strconv.FormatFloat(x, 'e', -1, f.bits)
	m, e, _ := strings.Cut(s, "e")
	if _, fp, ok := strings.Cut(m, "."); ok && len(fp) > printPrecision {
		m, e, _ = strings.Cut(strconv.FormatFloat(x, 'e', printPrecision, f.bits), "e")
		m = strings.TrimRight(m, "0")
	}
	if !strings.Contains(m, ".") {
		m += "."
	}
	if f.plus && !strings.HasPrefix(m, "-") {
		m = "+" + m
	}
	return m, e
}

func (f *floatFormat) format(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		var r string
		switch {
		case math.IsNaN(x):
			r = "nan"
			if f.plus {
				r = "+nan"
			}
		case x < 0:
			r = "-inf"
		case f.plus:
			r = "+inf"
		default:
			r = "inf"
		}
		return pad(r, f.padLeft+f.padRight+1)
	}
	if f.exp {
		m, e := f.sci(x)
		ip, fp, _ := strings.Cut(m, ".")
		fp += strings.Repeat("0", f.precision-len(fp))
		sign, digits := e[:1], e[1:]
		if len(digits) < f.expDigits {
			digits = strings.Repeat("0", f.expDigits-len(digits)) + digits
		}
		return pad(ip, f.padLeft) + "." + fp + "e" + sign + digits
	}
	ip, fp, _ := strings.Cut(f.pos(x), ".")
	return pad(ip, f.padLeft) + "." + fp + strings.Repeat(" ", f.padRight-len(fp))
}

// scalarStr prints the one element of a 0-d array as Python prints a numpy
// scalar: the shortest digits that read back ("3.0", "0.1", "1e-05",
// "(1+2j)"), integers and "True"/"False".
func scalarStr(a *Array) string {
	v, _ := a.At()
	switch x := v.(type) {
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float32:
		return pyFloat(float64(x), 32)
	case float64:
		return pyFloat(x, 64)
	case complex64:
		return pyComplex(complex128(x), 32)
	case complex128:
		return pyComplex(x, 64)
	}
	return fmt.Sprint(v)
}

// pyFloat is Python's repr of a float: shortest digits, positional for
// exponents in [-4, 16), with ".0" on integral values.
func pyFloat(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	if ax := math.Abs(x); ax != 0 && (ax < 1e-4 || ax >= 1e16) {
		s := strconv.FormatFloat(x, 'e', -1, bits)
		return s
	}
	s := strconv.FormatFloat(x, 'f', -1, bits)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

func pyComplex(z complex128, bits int) string {
	im := imag(z)
	ims := strings.TrimSuffix(pyFloat(im, bits), ".0")
	if real(z) == 0 && !math.Signbit(real(z)) {
		return ims + "j"
	}
	res := strings.TrimSuffix(pyFloat(real(z), bits), ".0")
	sign := "+"
	if math.Signbit(im) || (math.IsNaN(im) && false) {
		sign = ""
	}
	if cmplx.IsNaN(z) && math.IsNaN(im) {
		sign = "+"
	}
	return "(" + res + sign + ims + "j)"
}

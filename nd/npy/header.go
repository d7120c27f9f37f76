package npy

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/nd"
)

// magic opens every .npy file.
const magic = "\x93NUMPY"

// maxHeaderLen bounds the header dict a reader accepts, so that a corrupt
// length field cannot make it allocate gigabytes. numpy's own reader
// refuses headers over 10000 bytes unless told otherwise.
const maxHeaderLen = 1 << 20

// maxDims bounds the number of axes a header may give: numpy's own limit
// (NPY_MAXDIMS, 64 since numpy 2.0). Without it a 1 MiB header of "0, 0,
// ..." would be half a million axes of an empty array.
const maxDims = 64

// growthPad is the room numpy (since 1.23) leaves after the dict for the
// growing axis to gain digits in place; writing it too keeps Go's files
// byte-identical to numpy's.
const growthPad = 21

// Header is what the header of a .npy file says.
type Header struct {
	DType      nd.DType
	BigEndian  bool  // the data is big-endian ('>' in descr); readers swap it
	Fortran    bool  // the data is in Fortran (column-major) order
	Shape      []int // () for 0-d
	DataOffset int64 // bytes from the start of the file to the data
	Major      int   // format version: 1, 2 or 3
	Minor      int
}

// Error reports a malformed or unsupported .npy file. File is the path, or
// empty for readers that have none.
type Error struct {
	File   string
	Reason string
	Err    error // the cause, if any
}

func (e *Error) Error() string {
	s := "npy: "
	if e.File != "" {
		s += e.File + ": "
	}
	s += e.Reason
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// ReadHeader reads the magic string, version and header dict of a .npy
// file from r, leaving r at the first byte of the data.
func ReadHeader(r io.Reader) (Header, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return Header{}, &Error{Reason: "truncated header", Err: err}
	}
	if string(pre[:6]) != magic {
		return Header{}, &Error{Reason: fmt.Sprintf("bad magic %q: not a .npy file", pre[:6])}
	}
	major, minor := int(pre[6]), int(pre[7])
	var hlen int
	var lenBytes int
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, &Error{Reason: "truncated header", Err: err}
		}
		hlen, lenBytes = int(binary.LittleEndian.Uint16(b[:])), 2
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return Header{}, &Error{Reason: "truncated header", Err: err}
		}
		n := binary.LittleEndian.Uint32(b[:])
		if n > maxHeaderLen {
			return Header{}, &Error{Reason: fmt.Sprintf("header length %d exceeds %d bytes", n, maxHeaderLen)}
		}
		hlen, lenBytes = int(n), 4
	default:
		return Header{}, &Error{Reason: fmt.Sprintf("unsupported format version %d.%d (tessera reads 1.0, 2.0 and 3.0)", major, minor)}
	}
	if minor != 0 {
		return Header{}, &Error{Reason: fmt.Sprintf("unsupported format version %d.%d (tessera reads 1.0, 2.0 and 3.0)", major, minor)}
	}
	// Read the dict into a buffer that grows as bytes arrive rather than
	// one of the declared length: a 10-byte file declaring a 64 KiB (or,
	// in version 2.0, 1 MiB) header otherwise allocated it.
	var dict bytes.Buffer
	if n, err := dict.ReadFrom(io.LimitReader(r, int64(hlen))); err != nil || n != int64(hlen) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return Header{}, &Error{Reason: fmt.Sprintf("truncated header (want %d bytes of header dict)", hlen), Err: err}
	}
	h, err := ParseHeader(dict.String())
	if err != nil {
		return Header{}, err
	}
	h.Major, h.Minor = major, minor
	h.DataOffset = int64(8 + lenBytes + hlen)
	return h, nil
}

// ParseHeader parses the header dict of a .npy file: a Python dict
// literal with exactly the keys 'descr', 'fortran_order' and 'shape'. The
// returned Header has no DataOffset or version.
func ParseHeader(dict string) (Header, error) {
	p := &dictParser{s: dict}
	h, err := p.parse()
	if err != nil {
		return Header{}, &Error{Reason: "bad header dict " + quoteShort(dict), Err: err}
	}
	return h, nil
}

func quoteShort(s string) string {
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return strconv.Quote(s)
}

// dictParser reads the small subset of Python literal syntax that .npy
// headers use: a dict of string keys whose values are strings, True/False
// and tuples of integers. A general Python literal parser was rejected:
// anything beyond this subset (a structured dtype's list, say) is a dtype
// tessera cannot hold anyway.
type dictParser struct {
	s   string
	pos int
}

func (p *dictParser) skipSpace() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *dictParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *dictParser) expect(c byte) error {
	if p.peek() != c {
		return p.errorf("want %q", c)
	}
	p.pos++
	return nil
}

func (p *dictParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at offset %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *dictParser) parse() (Header, error) {
	var h Header
	if err := p.expect('{'); err != nil {
		return h, err
	}
	seen := map[string]bool{}
	for p.peek() != '}' {
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if seen[key] {
			return h, p.errorf("repeated key %q", key)
		}
		seen[key] = true
		if err := p.expect(':'); err != nil {
			return h, err
		}
		switch key {
		case "descr":
			if c := p.peek(); c != '\'' && c != '"' {
				return h, &nd.DTypeError{Text: p.rest(), Reason: "structured and sub-array dtypes are not supported"}
			}
			descr, err := p.str()
			if err != nil {
				return h, err
			}
			d, big, err := nd.ParseDType(descr)
			if err != nil {
				return h, err
			}
			h.DType, h.BigEndian = d, big
		case "fortran_order":
			b, err := p.boolean()
			if err != nil {
				return h, err
			}
			h.Fortran = b
		case "shape":
			sh, err := p.tuple()
			if err != nil {
				return h, err
			}
			h.Shape = sh
		default:
			return h, p.errorf("unexpected key %q", key)
		}
		if p.peek() == ',' {
			p.pos++
		} else if p.peek() != '}' {
			return h, p.errorf("want ',' or '}'")
		}
	}
	p.pos++
	if p.peek() != 0 {
		return h, p.errorf("trailing text after the dict")
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("missing key %q", k)
		}
	}
	if _, err := nd.SizeOf(h.Shape); err != nil {
		return h, err
	}
	if _, ok := extent(h.Shape, h.DType.Size()); !ok {
		return h, fmt.Errorf("shape %s of %s is too large: its bytes overflow a 64-bit size", nd.FormatShape(h.Shape), h.DType)
	}
	return h, nil
}

// extent returns the product of the non-zero dimensions of shape times
// itemsize, and false when that overflows int64. It is numpy's rule for
// a valid shape: (0, 2**62, 2**62) holds no element, yet numpy refuses it,
// because the strides of its other axes overflow. Checking only the
// element count (0) would let such a header through, and code sizing
// anything per row or per chunk of the empty array would then overflow.
func extent(shape []int, itemsize int) (int64, bool) {
	p := uint64(max(itemsize, 1))
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d == 0 {
			continue
		}
		hi, lo := bits.Mul64(p, uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, false
		}
		p = lo
	}
	return int64(p), true
}

func (p *dictParser) rest() string {
	r := p.s[p.pos:]
	if len(r) > 40 {
		r = r[:40]
	}
	return r
}

func (p *dictParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errorf("want a string")
	}
	end := strings.IndexByte(p.s[p.pos+1:], q)
	if end < 0 {
		return "", p.errorf("unterminated string")
	}
	s := p.s[p.pos+1 : p.pos+1+end]
	if strings.IndexByte(s, '\\') >= 0 {
		return "", p.errorf("escapes in strings are not supported")
	}
	p.pos += end + 2
	return s, nil
}

func (p *dictParser) boolean() (bool, error) {
	p.skipSpace()
	switch {
	case strings.HasPrefix(p.s[p.pos:], "True"):
		p.pos += 4
		return true, nil
	case strings.HasPrefix(p.s[p.pos:], "False"):
		p.pos += 5
		return false, nil
	}
	return false, p.errorf("want True or False")
}

// tuple parses (), (3,), (3, 4) and (3, 4,); Python 2's long suffix (3L)
// is accepted, as old files have it.
func (p *dictParser) tuple() ([]int, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	sh := []int{}
	for p.peek() != ')' {
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		if p.pos == start {
			return nil, p.errorf("want a non-negative integer")
		}
		v, err := strconv.Atoi(p.s[start:p.pos])
		if err != nil {
			return nil, p.errorf("dimension %s: %v", p.s[start:p.pos], err)
		}
		if p.pos < len(p.s) && p.s[p.pos] == 'L' {
			p.pos++
		}
		if len(sh) == maxDims {
			return nil, p.errorf("more than %d dimensions", maxDims)
		}
		sh = append(sh, v)
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
			if len(sh) == 1 {
				return nil, p.errorf("(n) is not a tuple; want (n,)")
			}
		default:
			return nil, p.errorf("want ',' or ')'")
		}
	}
	p.pos++
	return sh, nil
}

// formatHeader returns the header dict numpy writes for h, unpadded.
func formatHeader(h Header) string {
	var b strings.Builder
	descr := h.DType.Descr()
	if h.BigEndian && h.DType.Size() > 1 {
		descr = ">" + descr[1:]
	}
	fmt.Fprintf(&b, "{'descr': '%s', 'fortran_order': %s, 'shape': (", descr, pyBool(h.Fortran))
	for i, d := range h.Shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(h.Shape) == 1 {
		b.WriteString(",")
	}
	b.WriteString("), }")
	return b.String()
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// encodeHeader returns the full header (magic to the '\n' before the
// data) as numpy 1.24 writes it: version 1.0 unless the dict needs more
// than 65535 bytes, room for the growing axis, padded with spaces to a
// multiple of 64 bytes so that the data is aligned.
func encodeHeader(h Header) []byte {
	dict := formatHeader(h)
	if len(h.Shape) > 0 {
		grow := h.Shape[0]
		if h.Fortran {
			grow = h.Shape[len(h.Shape)-1]
		}
		dict += strings.Repeat(" ", max(0, growthPad-len(strconv.Itoa(grow))))
	}
	for _, v := range []struct{ major, lenBytes int }{{1, 2}, {2, 4}} {
		pre := len(magic) + 2 + v.lenBytes
		total := pre + len(dict) + 1
		padded := (total + 63) / 64 * 64
		hlen := padded - pre
		if v.major == 1 && hlen > math.MaxUint16 {
			continue
		}
		var buf bytes.Buffer
		buf.WriteString(magic)
		buf.WriteByte(byte(v.major))
		buf.WriteByte(0)
		if v.lenBytes == 2 {
			binary.Write(&buf, binary.LittleEndian, uint16(hlen))
		} else {
			binary.Write(&buf, binary.LittleEndian, uint32(hlen))
		}
		buf.WriteString(dict)
		buf.WriteString(strings.Repeat(" ", padded-total))
		buf.WriteByte('\n')
		return buf.Bytes()
	}
	panic("unreachable")
}

package chunkarray

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/nd/npy"
)

// The info file of a .npy stack (npystack.go) is a Python pickle. This
// file writes one (protocol 2: no framing, readable by every Python 3)
// and reads the ones Python writes for such a dict, protocols 2 to 5,
// with a small stack machine over the opcodes those use: containers,
// ints, strings, booleans, None, the memo, and GLOBAL/STACK_GLOBAL,
// REDUCE and BUILD for numpy.dtype alone (any other global is refused:
// nothing here calls or builds an arbitrary Python object).

// The pickle opcodes used (Python's pickletools names them).
const (
	pkMark           = '('
	pkStop           = '.'
	pkBinInt         = 'J'
	pkBinInt1        = 'K'
	pkBinInt2        = 'M'
	pkNone           = 'N'
	pkBinUnicode     = 'X'
	pkShortBinString = 'U'
	pkBinString      = 'T'
	pkShortBinBytes  = 'C'
	pkBinBytes       = 'B'
	pkAppend         = 'a'
	pkBuild          = 'b'
	pkGlobal         = 'c'
	pkDict           = 'd'
	pkEmptyDict      = '}'
	pkAppends        = 'e'
	pkGet            = 'g'
	pkBinGet         = 'h'
	pkLongBinGet     = 'j'
	pkList           = 'l'
	pkEmptyList      = ']'
	pkPut            = 'p'
	pkBinPut         = 'q'
	pkLongBinPut     = 'r'
	pkSetItem        = 's'
	pkTuple          = 't'
	pkEmptyTuple     = ')'
	pkSetItems       = 'u'
	pkReduce         = 'R'
	pkBinFloat       = 'G'
	pkProto          = 0x80
	pkTuple1         = 0x85
	pkTuple2         = 0x86
	pkTuple3         = 0x87
	pkNewTrue        = 0x88
	pkNewFalse       = 0x89
	pkLong1          = 0x8a
	pkLong4          = 0x8b
	pkShortBinUni    = 0x8c
	pkBinUnicode8    = 0x8d
	pkMemoize        = 0x94
	pkFrame          = 0x95
	pkStackGlobal    = 0x93
)

// pyGlobal is a GLOBAL's module and name; pyDType a numpy.dtype built
// from its pickle (the type string, as "f8", and the byte order).
type (
	pyGlobal struct{ module, name string }
	pyDType  struct{ str, order string }
	pyTuple  []any
	pyList   []any
	pyMark   struct{}
	pyDict   struct {
		keys []any
		vals []any
	}
)

// encodeNPYStackInfo writes info as the pickle of Dask's info dict.
func encodeNPYStackInfo(info npyStackInfo) []byte {
	b := []byte{pkProto, 2, pkEmptyDict, pkMark}
	str := func(s string) {
		b = append(b, pkBinUnicode)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	integer := func(v int) {
		switch {
		case v >= 0 && v < 1<<8:
			b = append(b, pkBinInt1, byte(v))
		case v >= 0 && v < 1<<16:
			b = append(b, pkBinInt2)
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case v >= math.MinInt32 && v <= math.MaxInt32:
			b = append(b, pkBinInt)
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(v)))
		default: // LONG1: 8 bytes, two's complement, little-endian
			b = append(b, pkLong1, 8)
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	str("chunks")
	b = append(b, pkMark)
	for _, c := range info.Chunks {
		b = append(b, pkMark)
		for _, v := range c {
			integer(v)
		}
		b = append(b, pkTuple)
	}
	b = append(b, pkTuple)
	str("dtype")
	// numpy.dtype(<str>, False, True) then __setstate__((3, <order>, None,
	// None, None, -1, -1, 0)), numpy's own reduction of a dtype.
	b = append(b, pkGlobal)
	b = append(b, "numpy\ndtype\n"...)
	descr := info.DType.Descr() // "<f8", "|b1"
	str(descr[1:])
	b = append(b, pkNewFalse, pkNewTrue, pkTuple3, pkReduce, pkMark)
	integer(3)
	str(descr[:1])
	b = append(b, pkNone, pkNone, pkNone)
	integer(-1)
	integer(-1)
	integer(0)
	b = append(b, pkTuple, pkBuild)
	str("axis")
	integer(info.Axis)
	b = append(b, pkSetItems, pkStop)
	return b
}

// decodeNPYStackInfo reads the info pickle of a stack (file names it in
// errors).
func decodeNPYStackInfo(file string, data []byte) (npyStackInfo, error) {
	fail := func(format string, args ...any) (npyStackInfo, error) {
		return npyStackInfo{}, &npy.Error{File: file, Reason: "info: " + fmt.Sprintf(format, args...)}
	}
	v, err := unpickle(data)
	if err != nil {
		return fail("%v", err)
	}
	d, ok := v.(*pyDict)
	if !ok {
		return fail("not a dict but %T", v)
	}
	get := func(key string) (any, bool) {
		for i, k := range d.keys {
			if s, ok := k.(string); ok && s == key {
				return d.vals[i], true
			}
		}
		return nil, false
	}
	var info npyStackInfo
	ch, ok := get("chunks")
	if !ok {
		return fail("no chunks")
	}
	axes, ok := pySeq(ch)
	if !ok {
		return fail("chunks are %T, want a tuple", ch)
	}
	for _, a := range axes {
		cs, ok := pySeq(a)
		if !ok {
			return fail("chunks of an axis are %T, want a tuple", a)
		}
		var c []int
		for _, x := range cs {
			n, ok := x.(int64)
			if !ok || n < 0 || n > math.MaxInt32*int64(1<<20) {
				return fail("chunk %v", x)
			}
			c = append(c, int(n))
		}
		info.Chunks = append(info.Chunks, c)
	}
	dt, ok := get("dtype")
	if !ok {
		return fail("no dtype")
	}
	switch x := dt.(type) {
	case *pyDType:
		order := x.order
		if order == "" || order == "=" || order == "|" {
			order = "<"
		}
		if info.DType, _, err = nd.ParseDType(order + x.str); err != nil {
			return fail("dtype: %v", err)
		}
	case string: // a dtype given by name
		if info.DType, _, err = nd.ParseDType(x); err != nil {
			return fail("dtype: %v", err)
		}
	default:
		return fail("dtype is %T", dt)
	}
	ax, ok := get("axis")
	if !ok {
		return fail("no axis")
	}
	n, ok := ax.(int64)
	if !ok {
		return fail("axis is %T", ax)
	}
	info.Axis = int(n)
	if int64(info.Axis) != n {
		return fail("axis %d", n)
	}
	return info, checkNPYStackInfo(file, info)
}

func pySeq(v any) ([]any, bool) {
	switch x := v.(type) {
	case pyTuple:
		return x, true
	case *pyList:
		return *x, true
	}
	return nil, false
}

// unpickle runs the pickle in data and returns its value.
func unpickle(data []byte) (any, error) {
	var (
		stack []any
		memo  = map[uint64]any{}
		pos   int
	)
	need := func(n int) ([]byte, error) {
		if n < 0 || pos+n > len(data) {
			return nil, fmt.Errorf("truncated at byte %d", pos)
		}
		b := data[pos : pos+n]
		pos += n
		return b, nil
	}
	pop := func() (any, error) {
		if len(stack) == 0 {
			return nil, fmt.Errorf("stack underflow at byte %d", pos)
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v, nil
	}
	top := func() (any, error) {
		if len(stack) == 0 {
			return nil, fmt.Errorf("stack underflow at byte %d", pos)
		}
		return stack[len(stack)-1], nil
	}
	popMark := func() ([]any, error) {
		for i := len(stack) - 1; i >= 0; i-- {
			if _, ok := stack[i].(pyMark); ok {
				items := append([]any(nil), stack[i+1:]...)
				stack = stack[:i]
				return items, nil
			}
		}
		return nil, fmt.Errorf("no mark at byte %d", pos)
	}
	line := func() (string, error) {
		i := strings.IndexByte(string(data[pos:]), '\n')
		if i < 0 {
			return "", fmt.Errorf("unterminated line at byte %d", pos)
		}
		s := string(data[pos : pos+i])
		pos += i + 1
		return s, nil
	}
	// memoKey reads the memo index of a PUT or GET opcode: one byte (the
	// BIN form), four (LONG_BIN) or a decimal line (the text form).
	memoKey := func(oneByte bool, fourBytes bool) (uint64, error) {
		switch {
		case oneByte:
			b, err := need(1)
			if err != nil {
				return 0, err
			}
			return uint64(b[0]), nil
		case fourBytes:
			b, err := need(4)
			if err != nil {
				return 0, err
			}
			return uint64(binary.LittleEndian.Uint32(b)), nil
		}
		s, err := line()
		if err != nil {
			return 0, err
		}
		var k uint64
		_, err = fmt.Sscanf(s, "%d", &k)
		return k, err
	}
	setItems := func(d any, kv []any) error {
		dict, ok := d.(*pyDict)
		if !ok || len(kv)%2 != 0 {
			return fmt.Errorf("SETITEMS on %T", d)
		}
		for i := 0; i < len(kv); i += 2 {
			dict.keys = append(dict.keys, kv[i])
			dict.vals = append(dict.vals, kv[i+1])
		}
		return nil
	}
	for steps := 0; ; steps++ {
		if steps > 1<<22 {
			return nil, fmt.Errorf("too many opcodes")
		}
		ob, err := need(1)
		if err != nil {
			return nil, err
		}
		op := ob[0]
		var b []byte
		switch op {
		case pkProto:
			if b, err = need(1); err == nil && (b[0] < 2 || b[0] > 5) {
				err = fmt.Errorf("pickle protocol %d: want 2 to 5", b[0])
			}
		case pkFrame:
			_, err = need(8) // frames are a read-ahead hint only
		case pkStop:
			v, err := pop()
			if err != nil {
				return nil, err
			}
			if _, ok := v.(pyMark); ok {
				return nil, fmt.Errorf("STOP on a mark")
			}
			return v, nil
		case pkMark:
			stack = append(stack, pyMark{})
		case pkNone:
			stack = append(stack, nil)
		case pkNewTrue:
			stack = append(stack, true)
		case pkNewFalse:
			stack = append(stack, false)
		case pkBinInt:
			if b, err = need(4); err == nil {
				stack = append(stack, int64(int32(binary.LittleEndian.Uint32(b))))
			}
		case pkBinInt1:
			if b, err = need(1); err == nil {
				stack = append(stack, int64(b[0]))
			}
		case pkBinInt2:
			if b, err = need(2); err == nil {
				stack = append(stack, int64(binary.LittleEndian.Uint16(b)))
			}
		case pkLong1, pkLong4:
			n := 0
			if op == pkLong1 {
				if b, err = need(1); err == nil {
					n = int(b[0])
				}
			} else if b, err = need(4); err == nil {
				n = int(int32(binary.LittleEndian.Uint32(b)))
			}
			if err != nil {
				break
			}
			if n > 8 {
				err = fmt.Errorf("integer of %d bytes", n)
				break
			}
			if b, err = need(n); err == nil {
				var u uint64
				for i := n - 1; i >= 0; i-- {
					u = u<<8 | uint64(b[i])
				}
				if n > 0 && n < 8 && b[n-1]&0x80 != 0 { // sign-extend
					u |= ^uint64(0) << (8 * n)
				}
				stack = append(stack, int64(u))
			}
		case pkBinFloat:
			if b, err = need(8); err == nil {
				stack = append(stack, math.Float64frombits(binary.BigEndian.Uint64(b)))
			}
		case pkShortBinUni, pkShortBinString, pkShortBinBytes:
			if b, err = need(1); err == nil {
				if b, err = need(int(b[0])); err == nil {
					stack = append(stack, string(b))
				}
			}
		case pkBinUnicode, pkBinString, pkBinBytes:
			if b, err = need(4); err == nil {
				if b, err = need(int(binary.LittleEndian.Uint32(b))); err == nil {
					stack = append(stack, string(b))
				}
			}
		case pkBinUnicode8:
			if b, err = need(8); err == nil {
				n := binary.LittleEndian.Uint64(b)
				if n > uint64(len(data)) {
					err = fmt.Errorf("string of %d bytes", n)
				} else if b, err = need(int(n)); err == nil {
					stack = append(stack, string(b))
				}
			}
		case pkEmptyTuple:
			stack = append(stack, pyTuple{})
		case pkTuple1, pkTuple2, pkTuple3:
			n := int(op-pkTuple1) + 1
			if len(stack) < n {
				err = fmt.Errorf("stack underflow at byte %d", pos)
				break
			}
			t := append(pyTuple(nil), stack[len(stack)-n:]...)
			stack = append(stack[:len(stack)-n], t)
		case pkTuple:
			var items []any
			if items, err = popMark(); err == nil {
				stack = append(stack, pyTuple(items))
			}
		case pkEmptyList:
			stack = append(stack, &pyList{})
		case pkList:
			var items []any
			if items, err = popMark(); err == nil {
				l := pyList(items)
				stack = append(stack, &l)
			}
		case pkAppend, pkAppends:
			var items []any
			if op == pkAppend {
				var v any
				if v, err = pop(); err == nil {
					items = []any{v}
				}
			} else {
				items, err = popMark()
			}
			if err != nil {
				break
			}
			var l any
			if l, err = top(); err == nil {
				if lp, ok := l.(*pyList); ok {
					*lp = append(*lp, items...)
				} else {
					err = fmt.Errorf("APPEND to %T", l)
				}
			}
		case pkEmptyDict:
			stack = append(stack, &pyDict{})
		case pkDict:
			var kv []any
			if kv, err = popMark(); err == nil {
				d := &pyDict{}
				if err = setItems(d, kv); err == nil {
					stack = append(stack, d)
				}
			}
		case pkSetItem, pkSetItems:
			var kv []any
			if op == pkSetItem {
				if len(stack) < 2 {
					err = fmt.Errorf("stack underflow at byte %d", pos)
					break
				}
				kv = append([]any(nil), stack[len(stack)-2:]...)
				stack = stack[:len(stack)-2]
			} else if kv, err = popMark(); err != nil {
				break
			}
			var d any
			if d, err = top(); err == nil {
				err = setItems(d, kv)
			}
		case pkMemoize:
			var v any
			if v, err = top(); err == nil {
				memo[uint64(len(memo))] = v
			}
		case pkBinPut, pkLongBinPut, pkPut:
			var k uint64
			if k, err = memoKey(op == pkBinPut, op == pkLongBinPut); err != nil {
				break
			}
			var v any
			if v, err = top(); err == nil {
				memo[k] = v
			}
		case pkBinGet, pkLongBinGet, pkGet:
			var k uint64
			if k, err = memoKey(op == pkBinGet, op == pkLongBinGet); err != nil {
				break
			}
			v, ok := memo[k]
			if !ok {
				err = fmt.Errorf("memo key %d missing", k)
				break
			}
			stack = append(stack, v)
		case pkGlobal, pkStackGlobal:
			var mod, name string
			if op == pkGlobal {
				if mod, err = line(); err == nil {
					name, err = line()
				}
			} else {
				var n, m any
				if n, err = pop(); err == nil {
					m, err = pop()
				}
				var ok1, ok2 bool
				mod, ok1 = m.(string)
				name, ok2 = n.(string)
				if err == nil && !(ok1 && ok2) {
					err = fmt.Errorf("STACK_GLOBAL of %T, %T", m, n)
				}
			}
			if err != nil {
				break
			}
			if !strings.HasPrefix(mod, "numpy") || name != "dtype" {
				err = fmt.Errorf("global %s.%s: only numpy.dtype is read", mod, name)
				break
			}
			stack = append(stack, pyGlobal{mod, name})
		case pkReduce:
			var args, fn any
			if args, err = pop(); err == nil {
				fn, err = pop()
			}
			if err != nil {
				break
			}
			g, ok := fn.(pyGlobal)
			t, ok2 := args.(pyTuple)
			if !ok || !ok2 || len(t) == 0 {
				err = fmt.Errorf("REDUCE of %T on %T", fn, args)
				break
			}
			s, ok := t[0].(string)
			if !ok {
				err = fmt.Errorf("%s.%s of %T", g.module, g.name, t[0])
				break
			}
			stack = append(stack, &pyDType{str: s})
		case pkBuild:
			var state, obj any
			if state, err = pop(); err == nil {
				obj, err = top()
			}
			if err != nil {
				break
			}
			d, ok := obj.(*pyDType)
			t, ok2 := state.(pyTuple)
			if !ok || !ok2 || len(t) < 2 {
				err = fmt.Errorf("BUILD of %T with %T", obj, state)
				break
			}
			if o, ok := t[1].(string); ok {
				d.order = o
			}
		default:
			err = fmt.Errorf("opcode 0x%02x at byte %d is not read here", op, pos-1)
		}
		if err != nil {
			return nil, err
		}
	}
}

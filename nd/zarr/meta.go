package zarr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-go/tessera/nd"
)

// Meta describes an array: what Create writes into .zarray (v2) or
// zarr.json (v3), and what Open reads back.
type Meta struct {
	Shape  []int
	Chunks []int
	DType  nd.DType
	// Fill is the value of chunks that were never written, as a Go value
	// of the dtype's type or any Go number; nil is v2's null (read as
	// zero). Create converts it to DType.
	Fill any
	// Order is "C" (default) or "F": the element order inside a chunk.
	// In v3 "F" is written as a transpose codec.
	Order string
	// Compressor is "" (none), "zlib", "gzip" or "zstd"; Open also
	// reports "blosc", which tessera reads but does not write.
	Compressor string
	Level      int // compression level; 0 means the codec's default
	Version    int // 2 (default) or 3
	// Separator joins chunk indices in chunk keys: "." (v2 default, "0.1")
	// or "/" ("0/1"). v3 uses the default encoding "c/0/1" with "/"
	// unless Separator is "."; set V2Keys for v3's "v2" key encoding.
	Separator string
	V2Keys    bool // v3 only: chunk_key_encoding "v2" ("0.1" keys)
}

// codecChain is how chunk bytes are encoded, decoded from either format.
type codecChain struct {
	perm       []int  // storage axis order (transpose); nil = C order
	bigEndian  bool   // element bytes are big-endian
	compressor string // "", "zlib", "gzip", "zstd", "blosc"
	level      int
	checksum   bool // zstd content checksum (v3)
}

// v2 .zarray, as zarr-python writes it.
type zarrayJSON struct {
	ZarrFormat         *int            `json:"zarr_format"`
	Shape              *[]int          `json:"shape"`
	Chunks             *[]int          `json:"chunks"`
	DType              json.RawMessage `json:"dtype"`
	Compressor         json.RawMessage `json:"compressor"`
	FillValue          json.RawMessage `json:"fill_value"`
	Order              string          `json:"order"`
	Filters            json.RawMessage `json:"filters"`
	DimensionSeparator string          `json:"dimension_separator,omitempty"`
}

// parseMetaV2 parses the JSON of a .zarray file.
func parseMetaV2(b []byte) (Meta, codecChain, error) {
	var m Meta
	var c codecChain
	var z zarrayJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&z); err != nil {
		return m, c, fmt.Errorf("bad JSON: %w", err)
	}
	if z.ZarrFormat == nil || *z.ZarrFormat != 2 {
		return m, c, fmt.Errorf("zarr_format is not 2")
	}
	if z.Shape == nil || z.Chunks == nil {
		return m, c, fmt.Errorf("missing shape or chunks")
	}
	m.Version = 2
	m.Shape, m.Chunks = *z.Shape, *z.Chunks
	var dt string
	if err := json.Unmarshal(z.DType, &dt); err != nil {
		return m, c, fmt.Errorf("dtype %s: structured dtypes are not supported", short(z.DType))
	}
	d, big, err := nd.ParseDType(dt)
	if err != nil {
		return m, c, err
	}
	// ParseDType also takes names; .zarray holds only typestrings.
	if len(dt) < 2 || strings.IndexByte("<>|", dt[0]) < 0 {
		return m, c, &nd.DTypeError{Text: dt, Reason: "not a typestring such as \"<f8\""}
	}
	m.DType, c.bigEndian = d, big
	if err := checkGrid(m.Shape, m.Chunks, m.DType.Size()); err != nil {
		return m, c, err
	}
	if len(z.Filters) > 0 && string(z.Filters) != "null" {
		return m, c, fmt.Errorf("filters %s are not supported (only null)", short(z.Filters))
	}
	switch z.Order {
	case "C":
	case "F":
		c.perm = reversed(len(m.Shape))
	default:
		return m, c, fmt.Errorf("order %q is neither \"C\" nor \"F\"", z.Order)
	}
	m.Order = z.Order
	switch z.DimensionSeparator {
	case "", ".":
		m.Separator = "."
	case "/":
		m.Separator = "/"
	default:
		return m, c, fmt.Errorf("dimension_separator %q is neither \".\" nor \"/\"", z.DimensionSeparator)
	}
	if len(z.Compressor) > 0 && string(z.Compressor) != "null" {
		var comp map[string]any
		d := json.NewDecoder(bytes.NewReader(z.Compressor))
		d.UseNumber()
		if err := d.Decode(&comp); err != nil {
			return m, c, fmt.Errorf("compressor %s: %v", short(z.Compressor), err)
		}
		id, _ := comp["id"].(string)
		switch id {
		case "zlib", "gzip", "zstd":
			lv, err := intField(comp, "level")
			if err != nil {
				return m, c, fmt.Errorf("compressor %s: %v", id, err)
			}
			c.level = lv
		case "blosc":
		default:
			return m, c, fmt.Errorf("compressor %q is not supported (none, zlib, gzip, zstd and reading blosc are)", id)
		}
		c.compressor = id
	}
	m.Compressor, m.Level = c.compressor, c.level
	fill, err := parseFill(z.FillValue, m.DType, true)
	if err != nil {
		return m, c, err
	}
	m.Fill = fill
	return m, c, nil
}

func intField(m map[string]any, key string) (int, error) {
	v, ok := m[key]
	if !ok || v == nil {
		return 0, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s is not a number", key)
	}
	i, err := strconv.Atoi(n.String())
	if err != nil {
		return 0, fmt.Errorf("%s %s is not an integer", key, n)
	}
	return i, nil
}

func short(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}

func reversed(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = n - 1 - i
	}
	return p
}

// maxDims bounds the number of axes: numpy's NPY_MAXDIMS (64 since numpy
// 2.0), which zarr-python cannot exceed either.
const maxDims = 64

// checkGrid checks a shape and its chunk shape for an element type of
// itemsize bytes, before anything is sized from them: every dimension
// non-negative, every chunk positive, at most maxDims axes, the shape's
// bytes representable (extent), a chunk's decoded bytes within
// maxChunkBytes. The chunk grid, ceil(shape/chunks) per axis, then fits
// too: its product over the non-zero axes is at most the shape's.
func checkGrid(shape, chunks []int, itemsize int) error {
	if len(shape) != len(chunks) {
		return fmt.Errorf("shape %v and chunks %v differ in length", shape, chunks)
	}
	if len(shape) > maxDims {
		return fmt.Errorf("shape has %d axes, more than %d", len(shape), maxDims)
	}
	if _, err := nd.SizeOf(shape); err != nil {
		return err
	}
	if _, ok := extent(shape, itemsize); !ok {
		return fmt.Errorf("shape %v of %d-byte elements is too large: its bytes overflow a 64-bit size", shape, itemsize)
	}
	for _, c := range chunks {
		if c <= 0 {
			return fmt.Errorf("chunks %v: chunk sizes must be positive", chunks)
		}
	}
	n, ok := extent(chunks, itemsize)
	if !ok || n > maxChunkBytes {
		return fmt.Errorf("chunks %v of %d-byte elements: a chunk exceeds %d bytes", chunks, itemsize, maxChunkBytes)
	}
	return nil
}

// extent returns the product of the non-zero dimensions of shape times
// itemsize, and false when it overflows int64 or a dimension is negative.
// It is numpy's rule for a valid shape: (0, 2**62, 2**62) holds no
// element, yet its strides, and here its chunk grid, overflow; checking
// only the element count (0) would let it through.
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

// parseFill converts a JSON fill_value to a Go value of d's type; nil
// (JSON null) is allowed in v2 only.
func parseFill(raw json.RawMessage, d nd.DType, v2 bool) (any, error) {
	bad := func(why string) error { return fmt.Errorf("fill_value %s for %s: %s", short(raw), d, why) }
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		if v2 {
			return nil, nil
		}
		return nil, bad("v3 requires a fill value")
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, bad(err.Error())
	}
	switch {
	case d.IsBool():
		switch x := v.(type) {
		case bool:
			return x, nil
		case json.Number:
			if x == "0" || x == "1" {
				return x == "1", nil
			}
		}
		return nil, bad("want true or false")
	case d.IsInteger():
		n, ok := v.(json.Number)
		if !ok {
			return nil, bad("want an integer")
		}
		return parseIntFill(n.String(), d, bad)
	case d.IsFloat():
		f, err := floatFill(v, d)
		if err != nil {
			return nil, bad(err.Error())
		}
		if d == nd.Float32 {
			return float32(f), nil
		}
		return f, nil
	default:
		l, ok := v.([]any)
		if !ok || len(l) != 2 {
			return nil, bad("want [real, imag]")
		}
		re, err := floatFill(l[0], d)
		if err != nil {
			return nil, bad(err.Error())
		}
		im, err := floatFill(l[1], d)
		if err != nil {
			return nil, bad(err.Error())
		}
		if d == nd.Complex64 {
			return complex(float32(re), float32(im)), nil
		}
		return complex(re, im), nil
	}
}

func parseIntFill(s string, d nd.DType, bad func(string) error) (any, error) {
	bits := d.Size() * 8
	if d.IsUnsigned() {
		u, err := strconv.ParseUint(s, 10, bits)
		if err != nil {
			return nil, bad("out of range or not an integer")
		}
		switch d {
		case nd.Uint8:
			return uint8(u), nil
		case nd.Uint16:
			return uint16(u), nil
		case nd.Uint32:
			return uint32(u), nil
		}
		return u, nil
	}
	i, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return nil, bad("out of range or not an integer")
	}
	switch d {
	case nd.Int8:
		return int8(i), nil
	case nd.Int16:
		return int16(i), nil
	case nd.Int32:
		return int32(i), nil
	}
	return i, nil
}

// floatFill reads a float fill: a number, "NaN", "Infinity",
// "-Infinity", or (v3) "0x..." holding the IEEE bits of the component
// type of d.
func floatFill(v any, d nd.DType) (float64, error) {
	switch x := v.(type) {
	case json.Number:
		return strconv.ParseFloat(x.String(), 64)
	case string:
		switch x {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		if h, ok := strings.CutPrefix(x, "0x"); ok {
			single := d == nd.Float32 || d == nd.Complex64
			bits := 64
			if single {
				bits = 32
			}
			u, err := strconv.ParseUint(h, 16, bits)
			if err != nil {
				return 0, fmt.Errorf("bad hex float %q", x)
			}
			if single {
				return float64(math.Float32frombits(uint32(u))), nil
			}
			return math.Float64frombits(u), nil
		}
	}
	return 0, fmt.Errorf("want a number, \"NaN\", \"Infinity\" or \"-Infinity\"")
}

// fillJSON encodes a fill value (already converted to d) as zarr writes it.
func fillJSON(fill any, d nd.DType) any {
	if fill == nil {
		return nil
	}
	f := func(x float64) any {
		switch {
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
		return x
	}
	switch x := fill.(type) {
	case float32:
		return f(float64(x))
	case float64:
		return f(x)
	case complex64:
		return []any{f(float64(real(x))), f(float64(imag(x)))}
	case complex128:
		return []any{f(real(x)), f(imag(x))}
	}
	return fill
}

// convertFill converts any Go number to the Go type of d.
func convertFill(v any, d nd.DType) (any, error) {
	if v == nil {
		return nil, nil
	}
	a, err := nd.Full(d, v)
	if err != nil {
		return nil, err
	}
	return a.At()
}

// encodeMetaV2 returns the .zarray JSON for m, formatted as zarr-python
// formats it (sorted keys, four-space indent).
func encodeMetaV2(m Meta) ([]byte, error) {
	var comp any
	switch m.Compressor {
	case "":
	case "zlib", "gzip", "zstd":
		comp = map[string]any{"id": m.Compressor, "level": m.Level}
	default:
		return nil, fmt.Errorf("compressor %q is not supported for writing", m.Compressor)
	}
	z := map[string]any{
		"zarr_format": 2,
		"shape":       nonNil(m.Shape),
		"chunks":      nonNil(m.Chunks),
		"dtype":       m.DType.Descr(),
		"compressor":  comp,
		"fill_value":  fillJSON(m.Fill, m.DType),
		"order":       m.Order,
		"filters":     nil,
	}
	if m.Separator == "/" {
		z["dimension_separator"] = "/"
	}
	b, err := json.MarshalIndent(z, "", "    ")
	return append(b, '\n'), err
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// v3 zarr.json, final specification.
type zarrJSONv3 struct {
	ZarrFormat       *int            `json:"zarr_format"`
	NodeType         string          `json:"node_type"`
	Shape            *[]int          `json:"shape"`
	DataType         json.RawMessage `json:"data_type"`
	ChunkGrid        namedConfig     `json:"chunk_grid"`
	ChunkKeyEncoding namedConfig     `json:"chunk_key_encoding"`
	FillValue        json.RawMessage `json:"fill_value"`
	Codecs           []namedConfig   `json:"codecs"`
	StorageTransform json.RawMessage `json:"storage_transformers,omitempty"`
	Attributes       json.RawMessage `json:"attributes,omitempty"`
	DimensionNames   json.RawMessage `json:"dimension_names,omitempty"`
}

type namedConfig struct {
	Name          string         `json:"name"`
	Configuration map[string]any `json:"configuration,omitempty"`
}

// UnmarshalJSON accepts a bare string as a name without configuration,
// as the v3 spec allows for extension points.
func (n *namedConfig) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*n = namedConfig{Name: s}
		return nil
	}
	var raw struct {
		Name          string          `json:"name"`
		Configuration json.RawMessage `json:"configuration"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	n.Name = raw.Name
	n.Configuration = nil
	if len(raw.Configuration) > 0 && string(raw.Configuration) != "null" {
		dec := json.NewDecoder(bytes.NewReader(raw.Configuration))
		dec.UseNumber()
		if err := dec.Decode(&n.Configuration); err != nil {
			return fmt.Errorf("configuration of %q: %w", raw.Name, err)
		}
	}
	return nil
}

// parseMetaV3 parses the JSON of a v3 zarr.json array node.
func parseMetaV3(b []byte) (Meta, codecChain, error) {
	var m Meta
	var c codecChain
	var z zarrJSONv3
	if err := json.Unmarshal(b, &z); err != nil {
		return m, c, fmt.Errorf("bad JSON: %w", err)
	}
	if z.ZarrFormat == nil || *z.ZarrFormat != 3 {
		return m, c, fmt.Errorf("zarr_format is not 3")
	}
	if z.NodeType != "array" {
		return m, c, fmt.Errorf("node_type %q is not \"array\"", z.NodeType)
	}
	if z.Shape == nil {
		return m, c, fmt.Errorf("missing shape")
	}
	if len(z.StorageTransform) > 0 && string(z.StorageTransform) != "[]" && string(z.StorageTransform) != "null" {
		return m, c, fmt.Errorf("storage_transformers are not supported")
	}
	m.Version = 3
	m.Shape = *z.Shape
	var dt string
	if err := json.Unmarshal(z.DataType, &dt); err != nil {
		return m, c, fmt.Errorf("data_type %s is not supported", short(z.DataType))
	}
	m.DType = v3DType(dt)
	if m.DType == nd.Invalid {
		return m, c, &nd.DTypeError{Text: dt, Reason: "unsupported v3 data_type (tessera has bool, int8-64, uint8-64, float32/64, complex64/128)"}
	}
	if z.ChunkGrid.Name != "regular" {
		return m, c, fmt.Errorf("chunk_grid %q is not supported (only \"regular\")", z.ChunkGrid.Name)
	}
	cs, err := intList(z.ChunkGrid.Configuration["chunk_shape"])
	if err != nil {
		return m, c, fmt.Errorf("chunk_grid chunk_shape: %v", err)
	}
	m.Chunks = cs
	if err := checkGrid(m.Shape, m.Chunks, m.DType.Size()); err != nil {
		return m, c, err
	}
	sep, _ := z.ChunkKeyEncoding.Configuration["separator"].(string)
	switch z.ChunkKeyEncoding.Name {
	case "default":
		if sep == "" {
			sep = "/"
		}
	case "v2":
		m.V2Keys = true
		if sep == "" {
			sep = "."
		}
	default:
		return m, c, fmt.Errorf("chunk_key_encoding %q is not supported (default and v2 are)", z.ChunkKeyEncoding.Name)
	}
	if sep != "/" && sep != "." {
		return m, c, fmt.Errorf("chunk key separator %q is neither \"/\" nor \".\"", sep)
	}
	m.Separator = sep
	// Codecs: array->array (transpose), one array->bytes (bytes), then
	// bytes->bytes (one compressor).
	m.Order = "C"
	stage := 0
	for _, cd := range z.Codecs {
		switch cd.Name {
		case "transpose":
			if stage != 0 || c.perm != nil {
				return m, c, fmt.Errorf("codec transpose out of place")
			}
			p, err := transposeOrder(cd.Configuration["order"], len(m.Shape))
			if err != nil {
				return m, c, fmt.Errorf("codec transpose: %v", err)
			}
			if !isIdentity(p) {
				c.perm = p
				if slices.Equal(p, reversed(len(p))) {
					m.Order = "F"
				} else {
					m.Order = "" // a general permutation: no C/F name
				}
			}
		case "bytes":
			if stage != 0 {
				return m, c, fmt.Errorf("codec bytes out of place")
			}
			stage = 1
			switch e, _ := cd.Configuration["endian"].(string); e {
			case "little":
			case "big":
				c.bigEndian = m.DType.Size() > 1
			case "":
				if m.DType.Size() > 1 {
					return m, c, fmt.Errorf("codec bytes: endian is required for %s", m.DType)
				}
			default:
				return m, c, fmt.Errorf("codec bytes: endian %q is neither \"little\" nor \"big\"", e)
			}
		case "gzip", "zstd", "blosc":
			if stage != 1 || c.compressor != "" {
				return m, c, fmt.Errorf("codec %s out of place (tessera takes one compressor after bytes)", cd.Name)
			}
			c.compressor = cd.Name
			if cd.Name != "blosc" {
				lv, err := intField(cd.Configuration, "level")
				if err != nil {
					return m, c, fmt.Errorf("codec %s: %v", cd.Name, err)
				}
				c.level = lv
			}
			if cd.Name == "zstd" {
				c.checksum, _ = cd.Configuration["checksum"].(bool)
			}
		default:
			return m, c, fmt.Errorf("codec %q is not supported (bytes, transpose, gzip, zstd and reading blosc are)", cd.Name)
		}
	}
	if stage != 1 {
		return m, c, fmt.Errorf("codecs lack the \"bytes\" codec")
	}
	m.Compressor, m.Level = c.compressor, c.level
	fill, err := parseFill(z.FillValue, m.DType, false)
	if err != nil {
		return m, c, err
	}
	m.Fill = fill
	return m, c, nil
}

func v3DType(s string) nd.DType {
	for _, d := range nd.DTypes {
		if d.String() == s {
			return d
		}
	}
	return nd.Invalid
}

func intList(v any) ([]int, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of integers")
	}
	out := make([]int, len(l))
	for i, x := range l {
		n, ok := x.(json.Number)
		if !ok {
			return nil, fmt.Errorf("want a list of integers")
		}
		v, err := strconv.Atoi(n.String())
		if err != nil {
			return nil, fmt.Errorf("%s is not an integer", n)
		}
		out[i] = v
	}
	return out, nil
}

// transposeOrder reads the transpose codec's order: a permutation, or the
// strings "C" and "F" of earlier drafts of the spec.
func transposeOrder(v any, n int) ([]int, error) {
	switch s := v.(type) {
	case string:
		switch s {
		case "C":
			return identity(n), nil
		case "F":
			return reversed(n), nil
		}
		return nil, fmt.Errorf("order %q", s)
	}
	p, err := intList(v)
	if err != nil {
		return nil, err
	}
	if len(p) != n {
		return nil, fmt.Errorf("order %v is not a permutation of %d axes", p, n)
	}
	seen := make([]bool, n)
	for _, ax := range p {
		if ax < 0 || ax >= n || seen[ax] {
			return nil, fmt.Errorf("order %v is not a permutation of %d axes", p, n)
		}
		seen[ax] = true
	}
	return p, nil
}

func identity(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

func isIdentity(p []int) bool {
	for i, v := range p {
		if v != i {
			return false
		}
	}
	return true
}

// encodeMetaV3 returns the zarr.json of a v3 array.
func encodeMetaV3(m Meta, c codecChain) ([]byte, error) {
	var codecs []any
	if c.perm != nil {
		codecs = append(codecs, map[string]any{"name": "transpose", "configuration": map[string]any{"order": c.perm}})
	}
	endian := "little"
	if c.bigEndian {
		endian = "big"
	}
	codecs = append(codecs, map[string]any{"name": "bytes", "configuration": map[string]any{"endian": endian}})
	switch c.compressor {
	case "":
	case "gzip":
		codecs = append(codecs, map[string]any{"name": "gzip", "configuration": map[string]any{"level": c.level}})
	case "zstd":
		codecs = append(codecs, map[string]any{"name": "zstd", "configuration": map[string]any{"level": c.level, "checksum": c.checksum}})
	default:
		return nil, fmt.Errorf("compressor %q is not supported for writing v3 (gzip and zstd are)", c.compressor)
	}
	enc := map[string]any{"name": "default", "configuration": map[string]any{"separator": m.Separator}}
	if m.V2Keys {
		enc["name"] = "v2"
	}
	fill := m.Fill
	if fill == nil {
		fill, _ = convertFill(0, m.DType)
	}
	z := map[string]any{
		"zarr_format":        3,
		"node_type":          "array",
		"shape":              nonNil(m.Shape),
		"data_type":          m.DType.String(),
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": nonNil(m.Chunks)}},
		"chunk_key_encoding": enc,
		"fill_value":         fillJSON(fill, m.DType),
		"codecs":             codecs,
		"attributes":         map[string]any{},
	}
	b, err := json.MarshalIndent(z, "", "    ")
	return append(b, '\n'), err
}

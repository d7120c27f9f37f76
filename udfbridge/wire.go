package udfbridge

// The wire format of a run: what crosses processes. Op parameters (a
// small header naming the op's part, then the run's info encoded once)
// and the chunk values of partition and merge tasks.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/tessera-go/tessera/graph"
	"github.com/tessera-go/tessera/nd"
)

func init() {
	graph.RegisterType[*chunk]("udfbridge.chunk", encodeChunk, decodeChunk)
}

func encodeChunk(c *chunk) ([]byte, error) {
	l := []any{int64(c.Lo), int64(c.Hi), int64(c.NavOrigin), int64(c.NavSize), int64(len(c.Bufs))}
	for _, m := range c.Bufs {
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		sort.Strings(names)
		l = append(l, int64(len(names)))
		for _, k := range names {
			l = append(l, k, m[k])
		}
	}
	return graph.EncodeValue(nil, l)
}

func decodeChunk(b []byte) (c *chunk, err error) {
	v, _, err := graph.DecodeValue(b)
	if err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			c, err = nil, fmt.Errorf("udfbridge: malformed chunk value")
		}
	}()
	l := v.([]any)
	c = &chunk{Lo: int(l[0].(int64)), Hi: int(l[1].(int64)), NavOrigin: int(l[2].(int64)), NavSize: int(l[3].(int64))}
	nu := int(l[4].(int64))
	p := 5
	for range nu {
		nb := int(l[p].(int64))
		p++
		m := map[string]*nd.Array{}
		for range nb {
			m[l[p].(string)] = l[p+1].(*nd.Array)
			p += 2
		}
		c.Bufs = append(c.Bufs, m)
	}
	return c, nil
}

// Op params: a small JSON header naming the op's part of the run, a
// newline, then the run's info (dataset spec, UDFs, ROI, tiling) encoded
// once per run and shared by every op: graph merges compare params, and a
// memory dataset's spec holds all its bytes.
type opHeader struct {
	Part  int    `json:",omitempty"`
	Start int    `json:",omitempty"`
	Stop  int    `json:",omitempty"`
	All   bool   `json:",omitempty"`
	Ext   bool   `json:",omitempty"`
	U     int    `json:",omitempty"`
	Buf   string `json:",omitempty"`
}

type riWire struct {
	Spec DatasetSpec
	Info *runInfo
}

func (ri *runInfo) wire() ([]byte, error) {
	ri.once.Do(func() {
		if ri.Spec.Kind == "" {
			if ri.ds == nil {
				ri.wireErr = fmt.Errorf("udfbridge: no dataset spec")
				return
			}
			s, err := ri.ds.Spec()
			if err != nil {
				ri.wireErr = fmt.Errorf("udfbridge: dataset cannot be encoded: %w", err)
				return
			}
			ri.Spec = s
		}
		ri.wireBytes, ri.wireErr = json.Marshal(riWire{Spec: ri.Spec, Info: ri})
	})
	return ri.wireBytes, ri.wireErr
}

func encodeOpParams(ri *runInfo, h opHeader) ([]byte, error) {
	w, err := ri.wire()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	return append(append(b, '\n'), w...), nil
}

func decodeOpParams(b []byte) (*opHeader, *runInfo, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, nil, fmt.Errorf("udfbridge: bad op params: no run info")
	}
	var h opHeader
	if err := json.Unmarshal(b[:i], &h); err != nil {
		return nil, nil, fmt.Errorf("udfbridge: bad op params: %w", err)
	}
	var w riWire
	if err := json.Unmarshal(b[i+1:], &w); err != nil {
		return nil, nil, fmt.Errorf("udfbridge: bad op params: %w", err)
	}
	if w.Info == nil {
		return nil, nil, fmt.Errorf("udfbridge: op params without run info")
	}
	w.Info.Spec = w.Spec
	return &h, w.Info, nil
}

func init() {
	graph.RegisterOp("udfbridge.partition", func(b []byte) (graph.Op, error) {
		h, ri, err := decodeOpParams(b)
		if err != nil {
			return nil, err
		}
		return &partOp{ri: ri, Part: h.Part, Start: h.Start, Stop: h.Stop}, nil
	})
	graph.RegisterOp("udfbridge.merge", func(b []byte) (graph.Op, error) {
		h, ri, err := decodeOpParams(b)
		if err != nil {
			return nil, err
		}
		return &mergeOp{ri: ri, All: h.All, Extend: h.Ext}, nil
	})
}

// Labels for pictures (viz.Labeler), named as in LiberTEM's task trees.
func (o *partOp) Label() string { return "partition" }

func (o *mergeOp) Label() string {
	if o.All {
		return "merge_all"
	}
	return "merge"
}

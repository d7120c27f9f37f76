package udfbridge

// Results on the main node: get_results run on the merged buffers, what
// it returns checked and brought to the declared shapes.

import (
	"fmt"
	"slices"

	"github.com/tessera-go/tessera/nd"
)

// finish runs get_results on the main node and wraps the results. valid
// is the flat nav mask of merged positions (nil: the ROI).
func (p *runPlan) finish(c *chunk, valid []bool) ([]*Results, error) {
	ri := p.ri
	if valid == nil {
		valid = ri.roiMask()
	}
	out := make([]*Results, len(p.main))
	for i, b := range p.main {
		res, full, masks, err := getResults(ri, b, c.Bufs[i], c.NavSize, valid)
		if err != nil {
			return nil, err
		}
		out[i] = &Results{udf: b.spec.Name, decls: b.decls, navShape: ri.NavShape, roi: ri.ROI, raw: res, full: full, masks: masks, navValid: valid}
	}
	return out, nil
}

// roiMask returns the ROI flat over nav, all true without one: the valid
// nav mask of a whole run.
func (ri *runInfo) roiMask() []bool {
	valid := make([]bool, ri.n())
	for i := range valid {
		valid[i] = ri.ROI == nil || ri.ROI[i]
	}
	return valid
}

// mainAux returns b's aux data (AuxDataer) on the main node: the rows of
// the ROI frames frames, as a merge target over them holds (nil: no aux).
func (ri *runInfo) mainAux(b *built, frames []int) (map[string]*nd.Array, error) {
	a, ok := b.u.(AuxDataer)
	if !ok {
		return nil, nil
	}
	aux, err := a.AuxData()
	if err != nil {
		return nil, &UDFError{UDF: b.spec.Name, Step: "aux data", Err: err}
	}
	out := make(map[string]*nd.Array, len(aux))
	for k, v := range aux {
		pv, err := auxRows(ri, v, frames)
		if err != nil {
			return nil, &UDFError{UDF: b.spec.Name, Step: "aux data " + k, Err: err}
		}
		out[k] = pv
	}
	return out, nil
}

// getResults runs b's GetResults on the merged buffers bufs (nav buffers
// r rows, ROI-compressed), with valid (flat over nav) as the valid nav
// mask, and checks what it returns. It returns the results as RawData
// (nav buffers (r,)+E), the nav buffers GetResults returned in the full
// nav shape (kept as they are for Data), and the masks set by WithMask.
func getResults(ri *runInfo, b *built, bufs map[string]*nd.Array, r int, valid []bool) (raw, full, masks map[string]*nd.Array, err error) {
	name := b.spec.Name
	m := ri.mainMeta()
	m.ValidNavMask = slices.Clone(valid) // the UDF's to keep or change
	aux, err := ri.mainAux(b, ri.roiFrames(0, ri.n()))
	if err != nil {
		return nil, nil, nil, err
	}
	c := &Ctx{udf: name, meta: m, params: b.spec.Params, bufs: bufs, aux: aux}
	var got map[string]*nd.Array
	if g, ok := b.u.(ResultGetter); ok {
		if got, err = g.GetResults(c); err != nil {
			return nil, nil, nil, &UDFError{UDF: name, Step: "get_results", Err: err}
		}
		for k, a := range got {
			d, ok := b.decl(k)
			switch {
			case !ok:
				return nil, nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("returned by get_results but not declared")}
			case d.Use == UsePrivate:
				return nil, nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("private buffer returned by get_results")}
			case a == nil:
				return nil, nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("get_results returned nil")}
			case a.DType().Kind() != d.dtype().Kind():
				return nil, nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("get_results returned dtype %v, declared %v (kind differs)", a.DType(), d.dtype())}
			}
			fa, ra, err := ri.resultShape(d, a, r)
			if err != nil {
				return nil, nil, nil, &BufferError{UDF: name, Buffer: k, Err: err}
			}
			got[k] = ra
			if fa != nil {
				if full == nil {
					full = map[string]*nd.Array{}
				}
				full[k] = fa
			}
		}
	}
	raw = map[string]*nd.Array{}
	for _, d := range b.decls {
		if d.Use == UsePrivate {
			continue
		}
		if a, ok := got[d.Name]; ok {
			raw[d.Name] = a
			continue
		}
		if d.Use == UseResultOnly {
			return nil, nil, nil, &BufferError{UDF: name, Buffer: d.Name, Err: fmt.Errorf("result_only buffer not set by get_results")}
		}
		raw[d.Name] = bufs[d.Name]
	}
	for k, m := range c.masks {
		if _, ok := raw[k]; !ok {
			return nil, nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("with_mask on a buffer that is not returned")}
		}
		d, _ := b.decl(k)
		sh := raw[k].Shape()
		if d.Kind == Nav {
			sh = append(append([]int(nil), ri.NavShape...), sh[1:]...)
		}
		if _, err := m.BroadcastTo(sh...); err != nil {
			return nil, nil, nil, &BufferError{UDF: name, Buffer: k, Err: fmt.Errorf("with_mask: mask of shape %v does not broadcast to %v", m.Shape(), sh)}
		}
	}
	return raw, full, c.masks, nil
}

// resultShape brings an array returned by get_results for buffer d to the
// declared shape, as LiberTEM's result buffers reshape what get_results
// returns: a sig or single buffer of the declared size is reshaped (a 0-d
// value of a single buffer declared (1,) becomes (1,)); a nav buffer is
// taken flat and ROI-compressed, (r,)+E, or in the full nav shape nav+E,
// which is kept as it is (full, for Data) and compressed to the ROI for
// RawData. Other shapes are an error.
func (ri *runInfo) resultShape(d BufferDecl, a *nd.Array, r int) (full, raw *nd.Array, err error) {
	sh := a.Shape()
	if d.Kind != Nav {
		want := d.shape(r, ri.SigShape)
		if slices.Equal(sh, want) {
			return nil, a, nil
		}
		if a.Size() != shapeProd(want) {
			return nil, nil, fmt.Errorf("get_results returned shape %v, declared %v", sh, want)
		}
		raw, err = a.Contiguous().Reshape(want...)
		return nil, raw, err
	}
	if len(sh) >= 1 && sh[0] == r && slices.Equal(sh[1:], d.Extra) {
		return nil, a, nil
	}
	fullShape := append(append([]int(nil), ri.NavShape...), d.Extra...)
	if !slices.Equal(sh, fullShape) {
		if len(sh) >= 1 && sh[0] == r && a.Size() == r*shapeProd(d.Extra) {
			raw, err = a.Contiguous().Reshape(append([]int{r}, d.Extra...)...)
			return nil, raw, err
		}
		return nil, nil, fmt.Errorf("nav buffer from get_results has shape %v, want (%d,)+%v (flat, ROI-compressed) or %v (nav shape)", sh, r, d.Extra, fullShape)
	}
	flat, err := a.Contiguous().Reshape(append([]int{ri.n()}, d.Extra...)...)
	if err != nil {
		return nil, nil, err
	}
	if ri.ROI == nil {
		return a, flat, nil
	}
	raw, err = gatherRows(flat, ri.roiFrames(0, ri.n()))
	return a, raw, err
}

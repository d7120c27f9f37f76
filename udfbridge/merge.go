package udfbridge

import (
	"context"
	"errors"
	"math"
	"math/cmplx"

	"github.com/tessera-go/tessera/chunkarray/nd"
)

type runPlan struct{}

func plan(ds Dataset, udfs []UDF, opts []RunOption) (*runPlan, error) {
	return nil, errors.New("udfbridge: engine not yet implemented")
}

func (p *runPlan) run(ctx context.Context) ([]*Results, error) { return nil, errors.New("not yet") }

func embedNav(a *nd.Array, nav []int, roi []bool) (*nd.Array, error) { return a, nil }

func nanOf(d nd.DType) any {
	if d.IsComplex() {
		return cmplx.NaN()
	}
	return math.NaN()
}

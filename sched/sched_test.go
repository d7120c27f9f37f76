package sched_test

import (
	"testing"

	"github.com/tessera-go/tessera/sched"
	"github.com/tessera-go/tessera/sched/schedtest"
)

func TestSync(t *testing.T) { schedtest.Run(t, sched.Sync{}) }

func TestThreaded(t *testing.T) {
	for _, tt := range []struct {
		name string
		s    sched.Threaded
	}{
		{"default", sched.Threaded{}},
		{"1", sched.Threaded{Workers: 1}},
		{"2", sched.Threaded{Workers: 2}},
		{"8", sched.Threaded{Workers: 8}},
	} {
		t.Run(tt.name, func(t *testing.T) { schedtest.Run(t, tt.s) })
	}
}

//go:build !linux

package distributed

import (
	"os"
	"syscall"
)

// workerSysProcAttr: without Linux's parent-death signal, workers of a
// program that dies stop when they lose the scheduler, after
// WorkerOptions.ConnectTimeout.
func workerSysProcAttr() *syscall.SysProcAttr { return nil }

// terminate asks a worker process to stop; where interrupts cannot be
// sent (Windows) the caller kills it instead.
func terminate(p *os.Process) error { return p.Signal(os.Interrupt) }

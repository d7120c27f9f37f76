package distributed

import (
	"os"
	"syscall"
)

// workerSysProcAttr makes a worker process die with the process that
// started it (the kernel sends SIGKILL when the parent goes), so that a
// crashed or killed program leaves no workers behind.
func workerSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// terminate asks a worker process to stop (MaybeWorker's signal context).
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }

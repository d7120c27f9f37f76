package distributed

import (
	"log/slog"
	"sync"
	"time"
)

// warnLimit bounds how often one kind of warning is logged: a peer that
// hammers a port with refused calls must not flood the log (or the disk
// under it). At most burst warnings go out per period; the ones held back
// are counted and the next warning that goes out says how many.
type warnLimit struct {
	mu         sync.Mutex
	start      time.Time
	sent, held int
}

const (
	warnBurst  = 10
	warnPeriod = time.Minute
)

// warn logs msg with args through log unless burst warnings went out in
// this period.
func (l *warnLimit) warn(log *slog.Logger, msg string, args ...any) {
	if log == nil {
		return
	}
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.start) >= warnPeriod {
		l.start, l.sent = now, 0
	}
	if l.sent >= warnBurst {
		l.held++
		l.mu.Unlock()
		return
	}
	l.sent++
	held := l.held
	l.held = 0
	l.mu.Unlock()
	if held > 0 {
		args = append(args, "not_logged_before", held)
	}
	log.Warn(msg, args...)
}

package distributed

import (
	"log/slog"
	"strings"
	"testing"
)

// A warning repeated past the burst is held back and counted; the count
// goes out with the next warning logged.
func TestWarnLimit(t *testing.T) {
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, nil))
	var l warnLimit
	for range warnBurst + 5 {
		l.warn(log, "refused")
	}
	if n := strings.Count(buf.String(), "refused"); n != warnBurst {
		t.Fatalf("%d warnings logged of %d, want %d", n, warnBurst+5, warnBurst)
	}
	l.start = l.start.Add(-warnPeriod) // the next period
	l.warn(log, "refused")
	if !strings.Contains(buf.String(), "not_logged_before=5") {
		t.Errorf("the next warning does not count the 5 held back:\n%s", buf.String())
	}
	var nilLog *slog.Logger
	l.warn(nilLog, "refused") // no logger: nothing, no panic
}

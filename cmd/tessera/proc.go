package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
)

// What bench and chunktune read about the machine and the process, and
// how they re-execute themselves.

// childEnv is set (to "1") in the environment of the child processes
// that chunktune and bench start by re-executing this binary. tessera
// itself runs its arguments whether it is set or not; a test binary, which
// stands in for tessera in the tests, runs run() on its arguments instead
// of the tests when it is set (see TestMain).
const childEnv = "TESSERA_CLI_CHILD"

// childEnviron returns this process's environment for a child: childEnv
// set, and each of set ("NAME=value") replacing any variable of that name.
func childEnviron(set ...string) []string {
	env := make([]string, 0, len(os.Environ())+len(set)+1)
	replaced := map[string]bool{childEnv: true}
	for _, kv := range set {
		name, _, _ := strings.Cut(kv, "=")
		replaced[name] = true
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !replaced[name] {
			env = append(env, kv)
		}
	}
	env = append(env, childEnv+"=1")
	return append(env, set...)
}

// loadAvg1 returns the machine's 1-minute load average from
// /proc/loadavg, nil where there is none (not Linux).
func loadAvg1() *float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return nil
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return nil
	}
	return &v
}

// vmHWM returns the peak resident set size (VmHWM) of the process whose
// status file is /proc/<pid>/status ("self" for this process), in bytes.
func vmHWM(pid string) (int64, error) {
	path := "/proc/" + pid + "/status"
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s: VmHWM %q: %w", path, rest, err)
			}
			return kb << 10, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return 0, fmt.Errorf("%s: no VmHWM line", path)
}

// gcState returns the GOGC setting the Go runtime runs under ("off" or
// the percentage), as runtime/metrics reports it (so it shows what the
// runtime made of the GOGC variable, not the variable), and the number of
// completed collections so far.
func gcState() (gogc string, cycles uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		// The runtime reports off as -1, read as an unsigned number.
		if p := int64(s[0].Value.Uint64()); p < 0 {
			gogc = "off"
		} else {
			gogc = strconv.FormatInt(p, 10)
		}
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		cycles = s[1].Value.Uint64()
	}
	return gogc, cycles
}

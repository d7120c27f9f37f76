package distributed

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{"0", 0, false},
		{"4GiB", 4 << 30, false},
		{"512MiB", 512 << 20, false},
		{"2GB", 2e9, false},
		{"1.5e9", 1.5e9, false},
		{" 10 kb ", 10e3, false},
		{"3k", 3000, false},
		{"7b", 7, false},
		{"4 GiB", 4 << 30, false},
		{"", 0, true},
		{"GiB", 0, true},
		{"-1GiB", 0, true},
		{"4 parsecs", 0, true},
		{"1e30TiB", 0, true},
	}
	for _, tt := range tests {
		got, err := parseSizeFlag(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("parseSizeFlag(%q) = %d, %v; want %d, error %v", tt.in, got, err, tt.want, tt.bad)
		}
	}
}

func TestParseResources(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]float64
		bad  bool
	}{
		{"", nil, false},
		{"GPU=1", map[string]float64{"GPU": 1}, false},
		{"GPU=1, MEM=2.5", map[string]float64{"GPU": 1, "MEM": 2.5}, false},
		{"GPU", nil, true},
		{"=1", nil, true},
		{"GPU=-1", nil, true},
		{"GPU=inf", nil, true},
		{"GPU=1,GPU=2", nil, true},
	}
	for _, tt := range tests {
		got, err := parseResourceFlag(tt.in)
		if (err != nil) != tt.bad || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseResourceFlag(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.bad)
		}
		if err == nil {
			back, _ := parseResourceFlag(resourceFlagString(got))
			if !reflect.DeepEqual(back, got) {
				t.Errorf("parseResourceFlag(resourceFlagString(%v)) = %v", got, back)
			}
		}
	}
}

func TestWorkerFlags(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "token")
	if err := os.WriteFile(tok, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	opts := WorkerFlags(fs)
	args := strings.Fields("-scheduler h:8786 -listen :9000 -advertise 10.0.0.2:9000 -name w1 -threads 4 -resources GPU=1 " +
		"-memory-limit 1GiB -spill-dir /s -tls-ca ca -tls-cert c -tls-key k -tls-server-name tessera -token-file " + tok + " -connect-timeout 5s")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	got, err := opts()
	if err != nil {
		t.Fatal(err)
	}
	want := WorkerOptions{Scheduler: "h:8786", ListenAddress: ":9000", AdvertiseAddress: "10.0.0.2:9000", Name: "w1", Threads: 4,
		Resources: map[string]float64{"GPU": 1}, MemoryLimit: 1 << 30, SpillDir: "/s",
		Security:       Security{CAFile: "ca", CertFile: "c", KeyFile: "k", ServerName: "tessera", Token: "s3cret"},
		ConnectTimeout: 5 * time.Second, ConfineFiles: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WorkerFlags = %+v\nwant %+v", got, want)
	}

	t.Setenv(tokenEnv, "from-env")
	for _, tt := range []struct {
		args string
		bad  string // in the error; "" for none
	}{
		{"-scheduler h:1", ""},
		{"", "-scheduler"},
		{"-scheduler h:1 -tls-ca x", "go together"},
		{"-scheduler h:1 -memory-limit lots", "-memory-limit"},
		{"-scheduler h:1 -resources GPU", "-resources"},
		{"-scheduler h:1 -token-file " + filepath.Join(dir, "none"), "-token-file"},
	} {
		fs := flag.NewFlagSet("worker", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		opts := WorkerFlags(fs)
		if err := fs.Parse(strings.Fields(tt.args)); err != nil {
			t.Fatal(err)
		}
		o, err := opts()
		switch {
		case tt.bad == "" && (err != nil || o.Security.Token != "from-env"):
			t.Errorf("%q: %v, token %q; want no error, the token from %s", tt.args, err, o.Security.Token, tokenEnv)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("%q: error %v, want one naming %s", tt.args, err, tt.bad)
		}
	}
}

func TestSchedulerFlags(t *testing.T) {
	fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
	opts := SchedulerFlags(fs)
	if err := fs.Parse([]string{"-status", "", "-allowed-failures", "5"}); err != nil {
		t.Fatal(err)
	}
	got, err := opts()
	if err != nil {
		t.Fatal(err)
	}
	if got.Address != ":8786" || got.StatusAddress != "" || got.AllowedFailures != 5 || got.WorkerSaturation != 2 {
		t.Errorf("SchedulerFlags = %+v", got)
	}
}

// The per-job budgets reach SchedulerOptions from their flags, with the
// documented defaults, and bad values are errors.
func TestSchedulerBudgetFlags(t *testing.T) {
	for _, tc := range []struct {
		args  string
		tasks int
		bytes int64
		bad   bool
	}{
		{"", DefaultMaxJobTasks, DefaultMaxJobBytes, false},
		{"-max-job-tasks 1000 -max-job-bytes 512MiB", 1000, 512 << 20, false},
		{"-max-job-tasks 0", 0, 0, true},
		{"-max-job-bytes 0", 0, 0, true},
		{"-max-job-bytes lots", 0, 0, true},
	} {
		fs := flag.NewFlagSet("scheduler", flag.ContinueOnError)
		build := SchedulerFlags(fs)
		if err := fs.Parse(strings.Fields(tc.args)); err != nil {
			t.Fatal(err)
		}
		o, err := build()
		if (err != nil) != tc.bad || (!tc.bad && (o.MaxJobTasks != tc.tasks || o.MaxJobBytes != tc.bytes)) {
			t.Errorf("%q: tasks %d bytes %d err %v; want %d, %d, error %v", tc.args, o.MaxJobTasks, o.MaxJobBytes, err, tc.tasks, tc.bytes, tc.bad)
		}
	}
}

// tessera worker always confines its tasks' files: without -data-dir to
// none, with it to the directories given (repeatable).
func TestWorkerDataDirFlags(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []string
	}{
		{"-scheduler h:1", nil},
		{"-scheduler h:1 -data-dir /data -data-dir /scratch", []string{"/data", "/scratch"}},
	} {
		fs := flag.NewFlagSet("worker", flag.ContinueOnError)
		build := WorkerFlags(fs)
		if err := fs.Parse(strings.Fields(tc.args)); err != nil {
			t.Fatal(err)
		}
		o, err := build()
		if err != nil || !o.ConfineFiles || !reflect.DeepEqual(o.DataDirs, tc.want) {
			t.Errorf("%q: ConfineFiles %v DataDirs %v (%v); want true, %v", tc.args, o.ConfineFiles, o.DataDirs, err, tc.want)
		}
	}
}

func TestSlurmFlags(t *testing.T) {
	t.Setenv(tokenEnv, "from-the-environment")
	fs := flag.NewFlagSet("slurm", flag.ContinueOnError)
	opts := SlurmFlags(fs)
	args := []string{"-workers", "6", "-workers-per-job", "2", "-cores", "8", "-memory", "16GiB", "-time", "90m",
		"-partition", "gpu", "-account", "proj", "-job-name", "tess", "-directive", "--gres=gpu:2", "-directive", "--exclusive",
		"-prologue", "module load cuda", "-worker-command", "apptainer exec img.sif /app/myprog", "-resources", "GPU=1",
		"-data-dir", "/scratch", "-dir", "/home/u/run", "-host", "10.1.0.5", "-status", ":8787"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	got, err := opts()
	if err != nil {
		t.Fatal(err)
	}
	want := SlurmOptions{
		Workers: 6, WorkersPerJob: 2, Cores: 8, Memory: 16 << 30, Walltime: 90 * time.Minute,
		Partition: "gpu", Account: "proj", JobName: "tess", Directives: []string{"--gres=gpu:2", "--exclusive"},
		Prologue: []string{"module load cuda"}, WorkerCommand: []string{"apptainer", "exec", "img.sif", "/app/myprog"},
		Resources: map[string]float64{"GPU": 1}, DataDirs: []string{"/scratch"}, Dir: "/home/u/run",
		SchedulerHost: "10.1.0.5", StartTimeout: 10 * time.Minute,
		Scheduler: SchedulerOptions{Address: ":0", StatusAddress: ":8787"},
	}
	// Without -tls-* the certificates and token are generated: the
	// environment's token alone is not used.
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SlurmFlags =\n%+v\nwant\n%+v", got, want)
	}
	for _, tt := range []struct {
		args []string
		bad  string
	}{
		{[]string{"-token-file", "/x"}, "-token-file"},
		{[]string{"-workers-per-job", "0"}, "-workers-per-job"},
		{[]string{"-memory", "lots"}, "-memory"},
		{[]string{"-job-name", "my job"}, "JobName"},
		{[]string{"-directive", ""}, "directive"},
		{[]string{"-tls-ca", "ca.pem"}, "-tls-ca"},
	} {
		fs := flag.NewFlagSet("slurm", flag.ContinueOnError)
		opts := SlurmFlags(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		if _, err := opts(); err == nil || !strings.Contains(err.Error(), tt.bad) {
			t.Errorf("%q: error %v, want one naming %s", tt.args, err, tt.bad)
		}
	}
}

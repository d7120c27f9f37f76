package udfbridge

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tessera-go/tessera/nd"
	"github.com/tessera-go/tessera/sched"
)

// serve listens on a loopback port and runs send on the first
// connection in a goroutine; it returns the address and a channel that
// receives send's error. The listener and the connection are closed when
// the test ends (or when send returns, for the connection).
func serve(t *testing.T, send func(c net.Conn) error) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	done := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		done <- send(c)
	}()
	return ln.Addr().String(), done
}

// TestLiveMatchesMemory streams synthetic scans (several dtypes, both
// byte orders) from a goroutine and runs SumUDF and SumSigUDF over the
// stream while it arrives and afterwards, on Sync and Threaded with
// several partition counts and a ROI: the results equal the same UDFs
// over the same data as a memory dataset; reads of frames and sig
// regions equal the data.
func TestLiveMatchesMemory(t *testing.T) {
	ctx := context.Background()
	for _, dt := range testDTypes {
		for _, big := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/big=%v", dt, big), func(t *testing.T) {
				shape := []int{7, 6, 9, 8}
				data := formulaArray(t, dt, shape)
				addr, sent := serve(t, func(c net.Conn) error { return SendFrames(c, data, 2, big) })
				ds, err := DialLive(ctx, addr, LiveOptions{Timeout: 30 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				defer ds.Close()
				if h := ds.Header(); fmt.Sprint(h.Nav, h.Sig, h.DType, h.BigEndian) != fmt.Sprint(shape[:2], shape[2:], dt, big) {
					t.Fatalf("header %+v", h)
				}
				mem, err := NewMemoryDataset(data, 2)
				if err != nil {
					t.Fatal(err)
				}
				roi := make([]bool, 42)
				for i := range roi {
					roi[i] = i%4 != 1
				}
				roiA, _ := nd.FromSlice(roi, 7, 6)
				first := true
				for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 3}} {
					for _, p := range []int{1, 3, 7} {
						for _, withROI := range []bool{false, true} {
							opts := []RunOption{WithScheduler(s), WithPartitions(p)}
							if withROI {
								opts = append(opts, WithROI(roiA))
							}
							// The first run starts as soon as the header is in.
							got, err := Run(ctx, ds, []UDF{&SumUDF{}, &SumSigUDF{}}, opts...)
							if err != nil {
								t.Fatal(err)
							}
							if first {
								if err := <-sent; err != nil {
									t.Fatalf("sender: %v", err)
								}
								first = false
							}
							want, err := Run(ctx, mem, []UDF{&SumUDF{}, &SumSigUDF{}}, opts...)
							if err != nil {
								t.Fatal(err)
							}
							for i := range got {
								sameResults(t, fmt.Sprintf("%T p=%d roi=%v udf %d", s, p, withROI, i), got[i], want[i], "intensity")
							}
						}
					}
				}
				// Reads: random frames and sig regions, through Read and
				// a task reader.
				rng := rand.New(rand.NewPCG(7, 8))
				rd := ds.TaskReader()
				for range 30 {
					start := rng.IntN(43)
					n := rng.IntN(42 - start + 1)
					st := []int{rng.IntN(10), rng.IntN(9)}
					ss := []int{rng.IntN(9 - st[0] + 1), rng.IntN(8 - st[1] + 1)}
					for _, r := range []TileReader{ds, rd} {
						got, err := r.Read(ctx, start, n, st, ss)
						if err != nil {
							t.Fatal(err)
						}
						if err := sameArray(got, oracleRead(t, data, 2, start, n, st, ss)); err != nil {
							t.Fatalf("Read(%d, %d, %v, %v): %v", start, n, st, ss, err)
						}
					}
				}
				rd.(io.Closer).Close()
				if _, err := ds.Read(ctx, 40, 3, nil, nil); err == nil {
					t.Errorf("read past the scan: no error")
				}
			})
		}
	}
}

// TestLiveIterPartial: the sender sends the first 2 of 6 rows of the
// scan and waits; RunIter's steps over those partitions give partial
// results equal to a memory run with roi = damage while the rest of the
// scan is not yet sent; then the sender goes on and the last step equals
// the whole memory run.
func TestLiveIterPartial(t *testing.T) {
	ctx := context.Background()
	data := formulaArray(t, nd.Float32, []int{6, 4, 5, 5})
	flat, _ := data.Reshape(24, 5, 5)
	release := make(chan struct{})
	addr, sent := serve(t, func(c net.Conn) error {
		s, err := NewLiveSender(c, LiveHeader{Nav: []int{6, 4}, Sig: []int{5, 5}, DType: nd.Float32})
		if err != nil {
			return err
		}
		head, _ := flat.Slice(nd.Slice1{Start: 0, Stop: 8, Step: 1})
		if err := s.Send(head); err != nil {
			return err
		}
		<-release
		tail, _ := flat.Slice(nd.Slice1{Start: 8, Stop: 24, Step: 1})
		return s.Send(tail)
	})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	ds, err := DialLive(ctx, addr, LiveOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	mem, _ := NewMemoryDataset(data, 2)
	it, err := RunIter(ds, []UDF{&SumUDF{}, &SumSigUDF{}}, WithPartitions(6))
	if err != nil {
		t.Fatal(err)
	}
	for step := 1; it.Next(ctx); step++ {
		p := it.Partial()
		got, err := ds.Received()
		if err != nil {
			t.Fatal(err)
		}
		// Partition k (4 frames each) needs the first 4k frames; the
		// receiver may have read more of the 8 sent meanwhile, never
		// past them while the sender waits.
		if step <= 2 && (got < 4*step || got > 8) {
			t.Fatalf("step %d: %d frames received, want %d to 8 (the sender waits after 8)", step, got, 4*step)
		}
		want, err := Run(ctx, mem, []UDF{&SumUDF{}, &SumSigUDF{}}, WithPartitions(6), WithROI(p.Damage))
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			sameResults(t, fmt.Sprintf("step %d udf %d", step, i), p.Results[i], want[i], "intensity")
		}
		if step == 2 {
			close(release)
		}
		if step == 6 {
			whole, err := Run(ctx, mem, []UDF{&SumUDF{}, &SumSigUDF{}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range whole {
				sameResults(t, fmt.Sprintf("last step udf %d", i), p.Results[i], whole[i], "intensity")
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if err := <-sent; err != nil {
		t.Fatalf("sender: %v", err)
	}
}

// TestLiveStall: a peer that stops sending (header, then 5 frames, then
// nothing, without closing) fails the run with a deadline error naming
// the peer and the frame, instead of hanging; so does one that stalls in
// the header.
func TestLiveStall(t *testing.T) {
	ctx := context.Background()
	data := formulaArray(t, nd.Uint16, []int{4, 3, 6, 6})
	flat, _ := data.Reshape(12, 6, 6)
	stop := make(chan struct{})
	defer close(stop)
	addr, _ := serve(t, func(c net.Conn) error {
		s, err := NewLiveSender(c, LiveHeader{Nav: []int{4, 3}, Sig: []int{6, 6}, DType: nd.Uint16})
		if err != nil {
			return err
		}
		head, _ := flat.Slice(nd.Slice1{Start: 0, Stop: 5, Step: 1})
		if err := s.Send(head); err != nil {
			return err
		}
		<-stop
		return nil
	})
	ds, err := DialLive(ctx, addr, LiveOptions{Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	for _, s := range []sched.Scheduler{sched.Sync{}, sched.Threaded{Workers: 2}} {
		_, err = Run(ctx, ds, []UDF{&SumUDF{}}, WithScheduler(s), WithPartitions(3))
		var le *LiveError
		if !errors.As(err, &le) || !errors.Is(err, os.ErrDeadlineExceeded) || le.Op != "frame 5" || !strings.Contains(err.Error(), addr) {
			t.Errorf("%T: run over a stalled stream: %v, want a *LiveError at frame 5 naming %s wrapping os.ErrDeadlineExceeded", s, err, addr)
		}
	}
	// The frames that did arrive are still there.
	got, err := ds.Read(ctx, 0, 5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameArray(got, oracleRead(t, data, 2, 0, 5, []int{0, 0}, []int{6, 6})); err != nil {
		t.Error(err)
	}

	// Stalled in the header.
	addr2, _ := serve(t, func(c net.Conn) error {
		c.Write([]byte(liveMagic))
		<-stop
		return nil
	})
	_, err = DialLive(ctx, addr2, LiveOptions{Timeout: 200 * time.Millisecond})
	var le *LiveError
	if !errors.As(err, &le) || le.Op != "header" || !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), addr2) {
		t.Errorf("header stall: %v, want a header *LiveError naming %s wrapping os.ErrDeadlineExceeded", err, addr2)
	}
}

// validHeader returns the wire form of a small valid header.
func validHeader(t testing.TB) []byte {
	b, err := LiveHeader{Nav: []int{2, 3}, Sig: []int{4, 4}, DType: nd.Uint16}.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// badHeaders are headers that are not the format, each with the field
// changed.
func badHeaders(t testing.TB) map[string][]byte {
	v := validHeader(t)
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(v)) }
	dim := func(i int, d uint64) []byte {
		return mod(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16+8*i:], d); return b })
	}
	return map[string][]byte{
		"magic":          mod(func(b []byte) []byte { b[0] = 'X'; return b }),
		"version":        mod(func(b []byte) []byte { b[8] = 2; return b }),
		"dtype code 0":   mod(func(b []byte) []byte { b[10] = 0; return b }),
		"dtype code 200": mod(func(b []byte) []byte { b[10] = 200; return b }),
		"byte order":     mod(func(b []byte) []byte { b[11] = 7; return b }),
		"no nav":         mod(func(b []byte) []byte { b[12] = 0; return b }),
		"no sig":         mod(func(b []byte) []byte { b[13] = 0; return b }),
		"too many dims":  mod(func(b []byte) []byte { b[12], b[13] = 40, 40; return b }),
		"reserved":       mod(func(b []byte) []byte { b[15] = 1; return b }),
		"dim over 2^31":  dim(0, 1<<40),
		"dim 2^64-1":     dim(2, ^uint64(0)),
		"bytes overflow": bytes.Clone(mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[16:], 1<<30)
			binary.LittleEndian.PutUint64(b[24:], 1<<30)
			return b
		})),
		"over max bytes":  dim(0, 1<<20),
		"frame too large": mod(func(b []byte) []byte { binary.LittleEndian.PutUint64(b[32:], 1<<30); return b }),
	}
}

// TestLiveBadHeader: a peer that sends a bad or short header is refused
// at DialLive with a *LiveError naming it.
func TestLiveBadHeader(t *testing.T) {
	ctx := context.Background()
	cases := badHeaders(t)
	cases["short"] = validHeader(t)[:20]
	for name, hdr := range cases {
		t.Run(name, func(t *testing.T) {
			addr, _ := serve(t, func(c net.Conn) error { _, err := c.Write(hdr); return err })
			ds, err := DialLive(ctx, addr, LiveOptions{Timeout: 10 * time.Second, MaxBytes: 1 << 24})
			if err == nil {
				ds.Close()
				t.Fatal("no error")
			}
			var le *LiveError
			want := ErrLiveFormat
			if name == "short" {
				want = io.ErrUnexpectedEOF
			}
			if !errors.As(err, &le) || le.Op != "header" || le.Peer != addr || !errors.Is(err, want) {
				t.Fatalf("%v, want a header *LiveError from %s wrapping %v", err, addr, want)
			}
		})
	}
}

// TestLiveBadFrames: frames out of sequence, of the wrong size, or cut
// short fail the run with a *LiveError naming the peer and the frame.
func TestLiveBadFrames(t *testing.T) {
	ctx := context.Background()
	h := LiveHeader{Nav: []int{2, 2}, Sig: []int{3, 3}, DType: nd.Float32}
	frame := func(seq, size uint64, payload int) []byte {
		b := binary.LittleEndian.AppendUint64(nil, seq)
		b = binary.LittleEndian.AppendUint64(b, size)
		return append(b, make([]byte, payload)...)
	}
	for _, c := range []struct {
		name   string
		frames []byte
		op     string
		is     error
	}{
		{"sequence", append(frame(0, 36, 36), frame(2, 36, 36)...), "frame 1", ErrLiveFormat},
		{"size", frame(0, 40, 40), "frame 0", ErrLiveFormat},
		{"huge size", frame(0, 1<<62, 0), "frame 0", ErrLiveFormat},
		{"cut", append(frame(0, 36, 36), frame(1, 36, 10)...), "frame 1", io.ErrUnexpectedEOF},
		{"closed early", frame(0, 36, 36), "frame 1", io.ErrUnexpectedEOF},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, _ := serve(t, func(conn net.Conn) error {
				b, _ := h.AppendBinary(nil)
				_, err := conn.Write(append(b, c.frames...))
				return err
			})
			ds, err := DialLive(ctx, addr, LiveOptions{Timeout: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Close()
			_, err = Run(ctx, ds, []UDF{&SumUDF{}}, WithScheduler(sched.Sync{}))
			var le *LiveError
			if !errors.As(err, &le) || le.Op != c.op || le.Peer != addr || !errors.Is(err, c.is) {
				t.Fatalf("%v, want a *LiveError at %s from %s wrapping %v", err, c.op, addr, c.is)
			}
		})
	}
}

// TestLiveSpec: a live dataset has no Spec (it cannot be reopened) and
// runs in-process all the same; a cancelled wait says how far the stream
// got.
func TestLiveSpec(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	addr, _ := serve(t, func(c net.Conn) error {
		b, _ := LiveHeader{Nav: []int{3}, Sig: []int{2}, DType: nd.Int8}.AppendBinary(nil)
		c.Write(b)
		<-stop
		return nil
	})
	ds, err := DialLive(context.Background(), addr, LiveOptions{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if _, err := ds.Spec(); err == nil || !strings.Contains(err.Error(), addr) {
		t.Errorf("Spec of a live dataset: %v, want an error naming %s", err, addr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ds.Read(ctx, 0, 1, nil, nil); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "0 of 3 received") {
		t.Errorf("cancelled read: %v", err)
	}
}

// FuzzLiveHeader: the header parser never panics; a header it accepts
// encodes back to the bytes it read, and one that it refuses is refused
// with ErrLiveFormat or a short read.
func FuzzLiveHeader(f *testing.F) {
	f.Add(validHeader(f))
	for _, b := range badHeaders(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		h, err := readLiveHeader(r, 1<<24)
		if err != nil {
			if !errors.Is(err, ErrLiveFormat) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v is neither ErrLiveFormat nor a short read", err)
			}
			return
		}
		read := len(b) - r.Len()
		back, err := h.AppendBinary(nil)
		if err != nil {
			t.Fatalf("accepted header %+v does not encode: %v", h, err)
		}
		if !bytes.Equal(back, b[:read]) {
			t.Fatalf("header %+v encodes to %x, read from %x", h, back, b[:read])
		}
	})
}

//go:build linux

package server

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
)

// File bodies over HTTP/2 against a scripted client (h2Peer): windows
// that stay shut, resets, truncation, and the memory a stream holds.

// readData reads frames until stream id has received n bytes of DATA,
// and returns them.
func (p *h2Peer) readData(t *testing.T, id uint32, n int) []byte {
	t.Helper()
	var got []byte
	_, err := p.until(10*time.Second, func(f xhttp2.Frame) bool {
		if d, ok := f.(*xhttp2.DataFrame); ok && d.StreamID == id {
			got = append(got, d.Data()...)
		}
		return len(got) >= n
	})
	if err != nil {
		t.Fatalf("stream %d: %d of %d bytes, then %v", id, len(got), n, err)
	}
	return got
}

// TestH2FileStalledClient: a client whose windows stay shut holds its
// streams' files, and no more than them: a second client on the same
// loop fetches a 10 MiB file meanwhile; the first one's going frees the
// files.
func TestH2FileStalledClient(t *testing.T) {
	fx := startH2Files(t, false, Auto)
	p := dialH2(t, fx.s, xhttp2.Setting{ID: xhttp2.SettingInitialWindowSize, Val: 1024})
	for _, id := range []uint32{1, 3, 5} {
		p.get(id, "/big.bin")
	}
	p.readData(t, 5, 1024) // every stream is in: the last one got its window's worth
	if r := fx.refs("big.bin"); r != 4 {
		t.Fatalf("big.bin has %d references, want the cache's and 3 streams'", r)
	}
	start := time.Now()
	resp, body := fx.get(t, "GET", "/big.bin")
	if resp.StatusCode != 200 || !bytes.Equal(body, patterned(h2BigFile)) {
		t.Fatalf("beside a stalled client: %d, %d bytes", resp.StatusCode, len(body))
	}
	t.Logf("10 MiB beside a stalled client in %v", time.Since(start))
	p.c.Close()
	fx.waitRefs(t, "big.bin")
}

// TestH2FileReset: a stream reset in the middle of its file lets the
// file go; the connection goes on.
func TestH2FileReset(t *testing.T) {
	for _, mode := range []Mode{Inline, Pooled, Auto} {
		t.Run(mode.String(), func(t *testing.T) {
			fx := startH2Files(t, false, mode)
			p := dialH2(t, fx.s)
			p.get(1, "/big.bin")
			got := p.readData(t, 1, 65535) // the default window's worth
			if !bytes.Equal(got, patterned(h2BigFile)[:len(got)]) {
				t.Fatal("the first bytes are not the file's")
			}
			if r := fx.refs("big.bin"); r != 2 {
				t.Fatalf("big.bin has %d references mid-stream, want 2", r)
			}
			p.fr.WriteRSTStream(1, xhttp2.ErrCodeCancel)
			fx.waitRefs(t, "big.bin")
			p.get(3, "/odd.bin")
			p.fr.WriteWindowUpdate(0, 8<<20)
			p.fr.WriteWindowUpdate(3, 8<<20)
			if got := p.readData(t, 3, h2OddFile); !bytes.Equal(got, patterned(h2OddFile)) {
				t.Fatal("the next stream's file is not byte-exact")
			}
			fx.waitRefs(t, "odd.bin")
		})
	}
}

// TestH2FileTruncated: a file cut short while its response is sent ends
// the stream with RST_STREAM(INTERNAL_ERROR), after the bytes it had.
func TestH2FileTruncated(t *testing.T) {
	fx := startH2Files(t, false, Auto)
	p := dialH2(t, fx.s)
	p.get(1, "/trunc.bin")
	got := p.readData(t, 1, 65535)
	if !bytes.Equal(got, patterned(1 << 20)[:len(got)]) {
		t.Fatal("the first bytes are not the file's")
	}
	if err := os.Truncate(filepath.Join(fx.dir, "trunc.bin"), 100000); err != nil {
		t.Fatal(err)
	}
	p.fr.WriteWindowUpdate(0, 1<<20)
	p.fr.WriteWindowUpdate(1, 1<<20)
	more := 0
	f, err := p.until(10*time.Second, func(f xhttp2.Frame) bool {
		if d, ok := f.(*xhttp2.DataFrame); ok {
			more += len(d.Data())
			if d.StreamEnded() {
				return true
			}
		}
		_, ok := f.(*xhttp2.RSTStreamFrame)
		return ok
	})
	if err != nil {
		t.Fatalf("after the truncation: %v (%d more bytes)", err, more)
	}
	rst, ok := f.(*xhttp2.RSTStreamFrame)
	if !ok || rst.StreamID != 1 || rst.ErrCode != xhttp2.ErrCodeInternal {
		t.Fatalf("the stream ended with %v, want RST_STREAM(INTERNAL_ERROR)", f)
	}
	if len(got)+more > 100000 {
		t.Errorf("%d bytes sent of a file cut to 100000", len(got)+more)
	}
	fx.waitRefs(t, "trunc.bin")
}

// TestH2FileMemoryPerStream: 50 streams each fetching a 10 MiB file,
// which the client takes 64 KiB of, cost the server far less than the
// files: a stream holds one piece, not its file (read whole, the files
// would be 500 MiB of heap).
func TestH2FileMemoryPerStream(t *testing.T) {
	const streams = 50
	fx := startH2Files(t, false, Auto)
	runtime.GC()
	var before, during runtime.MemStats
	runtime.ReadMemStats(&before)
	p := dialH2(t, fx.s)
	p.fr.WriteWindowUpdate(0, streams<<20) // the connection's window is not what holds them back
	for i := range streams {
		p.get(uint32(2*i+1), "/big.bin")
	}
	got := map[uint32]int{}
	full := 0
	_, err := p.until(30*time.Second, func(f xhttp2.Frame) bool {
		if d, ok := f.(*xhttp2.DataFrame); ok {
			if got[d.StreamID] += len(d.Data()); got[d.StreamID] == 65535 {
				full++
			}
		}
		return full == streams
	})
	if err != nil {
		t.Fatalf("%d of %d streams got their window's worth: %v", full, streams, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&during)
	growth := int64(during.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap growth with %d streams of a 10 MiB file in flight: %d KiB", streams, growth>>10)
	if limit := int64(streams * 256 << 10); growth > limit {
		t.Errorf("heap grew %d KiB, want under %d KiB (files read whole: %d MiB)", growth>>10, limit>>10, streams*10)
	}
	if r := fx.refs("big.bin"); r != streams+1 {
		t.Errorf("big.bin has %d references, want %d", r, streams+1)
	}
	for i := range streams {
		p.fr.WriteRSTStream(uint32(2*i+1), xhttp2.ErrCodeCancel)
	}
	fx.waitRefs(t, "big.bin")
}

// BenchmarkH2File measures a 10 MiB file over h2c through net/http's
// client (its allocations included), one stream at a time and 16 at
// once on one connection, with the peak heap in use (client and server).
func BenchmarkH2File(b *testing.B) {
	for _, streams := range []int{1, 16} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			fx := startH2Files(b, false, Auto)
			b.SetBytes(h2BigFile)
			b.ReportAllocs()
			var peak atomic.Uint64
			b.SetParallelism(streams)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := fx.client.Get(fx.base + "/big.bin")
					if err != nil {
						b.Error(err)
						return
					}
					n, _ := io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if n != h2BigFile {
						b.Errorf("%d bytes", n)
						return
					}
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			})
			b.ReportMetric(float64(peak.Load())/float64(1<<20), "heap-MiB")
		})
	}
}

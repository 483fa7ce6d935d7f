//go:build linux

package server

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	xhttp2 "golang.org/x/net/http2"
)

// h2Frames reads stream 1's frames until it ends or d passes: the header
// blocks' fields (the response's, then its trailers') and the DATA, in
// the order they came; SETTINGS are acknowledged and window is granted.
func (p *h2Peer) h2Frames(d time.Duration, stop func(data string) bool) (blocks [][]string, data string, err error) {
	p.c.SetReadDeadline(time.Now().Add(d))
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return blocks, data, err
		}
		switch f := f.(type) {
		case *xhttp2.SettingsFrame:
			if !f.IsAck() {
				p.fr.WriteSettingsAck()
			}
		case *xhttp2.MetaHeadersFrame:
			var fields []string
			for _, hf := range f.Fields {
				fields = append(fields, hf.Name+": "+hf.Value)
			}
			blocks = append(blocks, fields)
			if f.StreamEnded() {
				return blocks, data, nil
			}
		case *xhttp2.DataFrame:
			if n := f.Header().Length; n > 0 {
				p.fr.WriteWindowUpdate(0, n)
			}
			data += string(f.Data())
			if f.StreamEnded() || stop != nil && stop(data) {
				return blocks, data, nil
			}
		case *xhttp2.RSTStreamFrame:
			return blocks, data, io.ErrUnexpectedEOF
		}
	}
}

func TestH2AutoAdapterFlushOnLoop(t *testing.T) {
	t.Run("a gRPC-like answer stays on the loop and arrives in order", func(t *testing.T) {
		h := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Add("Trailer", "Grpc-Status")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			w.Write([]byte("message"))
			w.(http.Flusher).Flush()
			w.(http.Flusher).Flush()
			w.Header().Set("Grpc-Status", "0")
			w.Header().Set(http.TrailerPrefix+"Grpc-Message", "ok")
		}))
		s := start(t, h, Config{Loops: 1, H2C: true, HandlerBudget: time.Minute, ErrorLog: discardLog()})
		p := dialH2(t, s).decodeHeaders()
		for id := uint32(1); id <= 5; id += 2 {
			p.get(id, "/svc/Call")
			blocks, data, err := p.h2Frames(10*time.Second, nil)
			if err != nil || len(blocks) != 2 || data != "message" {
				t.Fatalf("stream %d: blocks %q, data %q, %v", id, blocks, data, err)
			}
			if blocks[0][0] != ":status: 200" || !hasField(blocks[0], "content-type: application/grpc") {
				t.Errorf("stream %d: headers %q", id, blocks[0])
			}
			if !hasField(blocks[1], "grpc-status: 0") || !hasField(blocks[1], "grpc-message: ok") {
				t.Errorf("stream %d: trailers %q", id, blocks[1])
			}
		}
		if st := s.Stats(); st.MovedOff != 0 {
			t.Errorf("stats %+v: a handler that flushed was moved off its loop", st)
		}
	})
	t.Run("what a handler flushed reaches the client while it waits past its budget", func(t *testing.T) {
		release := make(chan struct{})
		var once sync.Once
		t.Cleanup(func() { once.Do(func() { close(release) }) })
		h := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("first;"))
			w.(http.Flusher).Flush()
			<-release // until the client has read "first;"
			w.Write([]byte("second"))
		}))
		s := start(t, h, Config{Loops: 1, H2C: true, HandlerBudget: time.Millisecond, ErrorLog: discardLog()})
		p := dialH2(t, s).decodeHeaders()
		p.get(1, "/stream")
		_, data, err := p.h2Frames(10*time.Second, func(data string) bool { return data == "first;" })
		if err != nil || data != "first;" {
			t.Fatalf("before the handler went on: %q, %v", data, err)
		}
		once.Do(func() { close(release) })
		_, data, err = p.h2Frames(10*time.Second, nil)
		if err != nil || data != "second" {
			t.Fatalf("after: %q, %v", data, err)
		}
		if st := s.Stats(); st.MovedOff < 1 {
			t.Errorf("stats %+v: the waiting handler was not moved off its loop", st)
		}
	})
}

func hasField(fields []string, f string) bool {
	for _, g := range fields {
		if g == f {
			return true
		}
	}
	return false
}

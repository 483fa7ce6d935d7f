//go:build linux

package server

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAdapterStreamsRequestBodies checks that an http.Handler reads a
// body as it arrives: the handler gets the first part while the client
// still holds back the rest (a server that read bodies whole first would
// never call it, and the test would time out instead of hanging).
func TestAdapterStreamsRequestBodies(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			gotFirst := make(chan string, 1)
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/next" {
					b, _ := io.ReadAll(r.Body)
					fmt.Fprintf(w, "%s|%d", b, r.ContentLength)
					return
				}
				first := make([]byte, 5)
				if _, err := io.ReadFull(r.Body, first); err != nil {
					t.Errorf("reading the first part: %v", err)
					return
				}
				gotFirst <- string(first)
				rest, err := io.ReadAll(r.Body)
				if err != nil {
					t.Errorf("reading the rest: %v", err)
				}
				fmt.Fprintf(w, "%s%s|%d", first, rest, r.ContentLength)
			})
			s := start(t, HTTPHandler(h), Config{})
			c, r := rawConn(t, s)
			head, part1, part2 := "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n", "hello", " world"
			if chunked {
				head = "POST /up HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
				part1, part2 = "5\r\nhello\r\n", "6\r\n world\r\n0\r\n\r\n"
			}
			io.WriteString(c, head+part1)
			select {
			case got := <-gotFirst:
				if got != "hello" {
					t.Fatalf("first part %q", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the handler did not get the first part of the body before the rest was sent")
			}
			// The rest, and a pipelined request right behind it.
			io.WriteString(c, part2+"POST /next HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
			want := "hello world|11"
			if chunked {
				want = "hello world|-1"
			}
			for i, w := range []string{want, "abc|3"} {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Fatalf("response %d: %v", i, err)
				}
				body, _ := io.ReadAll(resp.Body)
				if string(body) != w {
					t.Errorf("response %d: %q, want %q", i, body, w)
				}
			}
		})
	}
}

// TestStreamedBodiesArriveWhole sends a large body in small, spaced
// writes, Content-Length and chunked, and checks its hash in the handler.
func TestStreamedBodiesArriveWhole(t *testing.T) {
	body := []byte(strings.Repeat("0123456789abcdef", 1<<16)) // 1 MiB
	want := fmt.Sprintf("%x", sha256.Sum256(body))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.New()
		n, err := io.Copy(sum, r.Body)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		fmt.Fprintf(w, "%x %d", sum.Sum(nil), n)
	})
	s := start(t, HTTPHandler(h), Config{})
	for _, chunked := range []bool{false, true} {
		c, r := rawConn(t, s)
		go func() {
			w := bufio.NewWriterSize(c, 1000)
			if chunked {
				fmt.Fprintf(w, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
			} else {
				fmt.Fprintf(w, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", len(body))
			}
			for off := 0; off < len(body); off += 7777 {
				part := body[off:min(off+7777, len(body))]
				if chunked {
					fmt.Fprintf(w, "%x;x=y\r\n%s\r\n", len(part), part)
				} else {
					w.Write(part)
				}
				if off%(100*7777) == 0 {
					w.Flush()
					time.Sleep(time.Millisecond) // a real pause: the body arrives in parts
				}
			}
			if chunked {
				io.WriteString(w, "0\r\nTrailer: t\r\n\r\n")
			}
			w.Flush()
		}()
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		if string(got) != fmt.Sprintf("%s %d", want, len(body)) {
			t.Errorf("chunked=%v: handler saw %q", chunked, got)
		}
	}
}

// TestUnreadStreamedBodies covers handlers that do not read the body: a
// small rest is drained and the connection kept, a large one closes it,
// and a client waiting for 100 Continue is not asked for its body.
func TestUnreadStreamedBodies(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "no thanks")
	})
	s := start(t, HTTPHandler(h), Config{})
	tests := []struct {
		name      string
		head      string
		body      string // sent after the head, before reading the response
		keepAlive bool
	}{
		{"a small rest is drained", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n", "x", true},
		{"a large rest closes", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n", "x", false},
		{"100-continue is not asked for", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, r := rawConn(t, s)
			io.WriteString(c, tt.head+tt.body)
			if tt.keepAlive {
				go io.WriteString(c, strings.Repeat("y", 999)+"GET /again HTTP/1.1\r\nHost: x\r\n\r\n")
			}
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != 200 {
				t.Errorf("status %d (a 100 Continue leaked?)", resp.StatusCode)
			}
			io.Copy(io.Discard, resp.Body)
			if !tt.keepAlive {
				if !closedByPeer(c, r, 3*time.Second) {
					t.Error("the connection stayed open")
				}
				return
			}
			resp, err = http.ReadResponse(r, nil)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("the request after the drained body: %v", err)
			}
		})
	}
}

// TestStreamedBodyReadTimeout: a client that stops sending its body is cut
// at ReadTimeout; the handler's Read fails rather than hanging.
func TestStreamedBodyReadTimeout(t *testing.T) {
	readErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	})
	s := start(t, HTTPHandler(h), Config{ReadTimeout: 300 * time.Millisecond})
	c, r := rawConn(t, s)
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly this")
	select {
	case err := <-readErr:
		if err == nil {
			t.Error("reading a body that stopped coming succeeded")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the handler's Read hung past ReadTimeout")
	}
	if !closedByPeer(c, r, 3*time.Second) {
		t.Error("the connection stayed open")
	}
}

package server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestTLSHijackGivesAConnThatSpeaksTLS: a handler that hijacks a TLS
// connection reads and writes it through TLS: the bytes that came with the
// request, an echo of lines, a response larger than the socket takes at
// once, deadlines, and a close the client sees as the end of the stream.
func TestTLSHijackGivesAConnThatSpeaksTLS(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB
	deadlineErr := make(chan error, 1)
	h := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nc, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		defer nc.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		rw.Flush()
		for {
			line, err := rw.ReadString('\n')
			if err != nil {
				return
			}
			switch line {
			case "big\n":
				if _, err := nc.Write([]byte(big)); err != nil {
					t.Errorf("hijacked write of 1 MiB: %v", err)
				}
			case "deadline\n":
				nc.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				_, err := nc.Read(make([]byte, 1))
				deadlineErr <- err
				nc.SetReadDeadline(time.Time{})
				io.WriteString(nc, "deadline passed\n")
			case "bye\n":
				return
			default:
				io.WriteString(nc, strings.ToUpper(line))
			}
		}
	}))
	for _, ver := range tlsVersions {
		t.Run(ver.name, func(t *testing.T) {
			s := startTLS(t, h, Config{})
			c := dialTLS(t, s, clientTLS(ver.v))
			// The first line comes with the request: it waits in the reader.
			io.WriteString(c, "GET /upgrade HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nearly\n")
			r := bufio.NewReader(c)
			resp, err := http.ReadResponse(r, nil)
			if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("upgrade: %v %v", resp, err)
			}
			expect := func(want string) {
				t.Helper()
				got := make([]byte, len(want))
				if _, err := io.ReadFull(r, got); err != nil || string(got) != want {
					t.Fatalf("read %d bytes %.20q, %v; want %.20q", len(got), got, err, want)
				}
			}
			expect("EARLY\n")
			io.WriteString(c, "hello\n")
			expect("HELLO\n")
			io.WriteString(c, "big\n")
			time.Sleep(100 * time.Millisecond) // the server's socket fills up
			expect(big)
			io.WriteString(c, "deadline\n")
			expect("deadline passed\n")
			if err := <-deadlineErr; !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("a read past its deadline: %v, want os.ErrDeadlineExceeded", err)
			}
			io.WriteString(c, "bye\n")
			if rest, err := io.ReadAll(r); err != nil || len(rest) > 0 {
				t.Fatalf("after bye: %q, %v; want the end of the TLS stream", rest, err)
			}
			if n := s.Stats().OpenConns; n != 0 {
				t.Fatalf("%d open connections counted after a hijack, want 0", n)
			}
		})
	}
}

// TestTLSHijackedConnsAreIndependent: many hijacked TLS connections echo
// at once, each its own stream.
func TestTLSHijackedConnsAreIndependent(t *testing.T) {
	h := HTTPHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nc, rw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer nc.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
		rw.Flush()
		io.Copy(nc, rw)
	}))
	s := startTLS(t, h, Config{})
	const n = 20
	errs := make(chan error, n)
	for i := range n {
		go func() {
			c := dialTLS(t, s, clientTLS(0))
			defer c.Close()
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
			r := bufio.NewReader(c)
			if _, err := http.ReadResponse(r, nil); err != nil {
				errs <- err
				return
			}
			msg := bytes.Repeat([]byte{byte('a' + i)}, 10000+i)
			go c.Write(msg)
			got := make([]byte, len(msg))
			if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, msg) {
				errs <- errors.New("echo differs")
				return
			}
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

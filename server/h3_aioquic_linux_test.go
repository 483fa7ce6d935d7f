package server

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// h3AioquicResult is what testdata/h3client.py prints.
type h3AioquicResult struct {
	Error  string `json:"error"`
	Closed string `json:"closed"`
	ALPN   string `json:"alpn"`
	Hello  struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	} `json:"hello"`
	Echo struct {
		Status   int               `json:"status"`
		Headers  map[string]string `json:"headers"`
		Len      int               `json:"len"`
		Sha256   string            `json:"sha256"`
		Same     bool              `json:"same"`
		Trailers map[string]string `json:"trailers"`
	} `json:"echo"`
	Stream struct {
		Status             int               `json:"status"`
		Headers            map[string]string `json:"headers"`
		BeforeRelease      string            `json:"before_release"`
		EndedBeforeRelease bool              `json:"ended_before_release"`
		Body               string            `json:"body"`
		Chunks             int               `json:"chunks"`
		ReleaseStatus      int               `json:"release_status"`
	} `json:"stream"`
	Many     []string       `json:"many"`
	Settings map[string]int `json:"settings"`
}

// TestHTTP3Aioquic runs testdata/h3client.py, an HTTP/3 client on Python's
// aioquic (a QUIC and HTTP/3 stack of its own), against a gust server with
// HTTP/3: a native handler in Auto and Pooled modes and the net/http
// adapter. The client verifies the server's certificate for localhost;
// the test checks the negotiated ALPN, the server's SETTINGS, a GET's body and headers (and that
// the handler saw HTTP/3 and the request's header), a 100 kB POST echoed
// back whole (and the adapter's trailer), a streamed response whose first
// part reached the client while the server held the rest, and 20 requests
// at once on the connection.
func TestHTTP3Aioquic(t *testing.T) {
	needClient(t, []string{"python3", "aioquic"})
	cert, _ := testCert()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, k := range h3Cases {
		t.Run(k.name, func(t *testing.T) {
			routes := newH3Routes("")
			s := startH3Clients(t, k.mode, k.handler(routes))
			port := s.Addr().(*net.TCPAddr).Port
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "python3", "testdata/h3client.py", "127.0.0.1", fmt.Sprint(port), ca, "localhost")
			cmd.WaitDelay = 5 * time.Second
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("h3client.py: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
			}
			t.Logf("h3client.py: %s", out)
			var got h3AioquicResult
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("h3client.py printed %q, not its JSON (%v); stderr:\n%s", out, err, stderr.String())
			}
			checkH3Aioquic(t, &got, k.adapter)
			if n := routes.overTCP.Load(); n != 0 {
				t.Errorf("%d requests came over TCP, want all over HTTP/3", n)
			}
		})
	}
}

// checkH3Aioquic checks what h3client.py got.
func checkH3Aioquic(t *testing.T, got *h3AioquicResult, adapter bool) {
	t.Helper()
	if got.Error != "" || got.Closed != "" {
		t.Errorf("h3client.py: error %q, connection closed %q", got.Error, got.Closed)
	}
	if got.ALPN != "h3" {
		t.Errorf("ALPN %q, want h3", got.ALPN)
	}
	if got.Settings == nil {
		t.Errorf("no SETTINGS from the server's control stream")
	}
	h := got.Hello
	if h.Status != 200 || h.Body != "hello over h3 /hello?x=1" || h.Headers["x-proto"] != "3" || h.Headers["x-saw-test"] != "yes" ||
		!strings.HasPrefix(h.Headers["content-type"], "text/plain") {
		t.Errorf("GET /hello: status %d, body %q, headers %v", h.Status, h.Body, h.Headers)
	}
	want := h3BodySha256()
	e := got.Echo
	if e.Status != 200 || e.Len != 100_000 || e.Sha256 != want || !e.Same ||
		e.Headers["x-body-len"] != "100000" || e.Headers["x-body-sha256"] != want {
		t.Errorf("POST /echo: status %d, the server got %s bytes (sha256 %s), the client got %d back (sha256 %s, same %v); want 100000, %s",
			e.Status, e.Headers["x-body-len"], e.Headers["x-body-sha256"], e.Len, e.Sha256, e.Same, want)
	}
	if adapter && e.Trailers["x-sum"] != "100000" {
		t.Errorf("POST /echo: trailers %v, want x-sum: 100000", e.Trailers)
	}
	st := got.Stream
	if st.Status != 200 || st.Body != "part 0\npart 1\npart 2\n" || st.BeforeRelease != "part 0\n" || st.EndedBeforeRelease || st.ReleaseStatus != 204 {
		t.Errorf("GET /stream: status %d, body %q (%d chunks), before /release %q (ended %v), /release status %d",
			st.Status, st.Body, st.Chunks, st.BeforeRelease, st.EndedBeforeRelease, st.ReleaseStatus)
	}
	if len(got.Many) != 20 {
		t.Errorf("20 GETs at once: %d answers", len(got.Many))
	}
	for i, b := range got.Many {
		if want := fmt.Sprintf("hello over h3 /hello?n=%d", i); b != want {
			t.Errorf("GET /hello?n=%d: %q, want %q", i, b, want)
		}
	}
}

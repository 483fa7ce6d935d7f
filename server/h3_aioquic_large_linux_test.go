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

// TestHTTP3AioquicLargeEcho POSTs 2 MB to /echo over aioquic and reads the
// 2 MB back, on six connections one after another (Inline mode, the
// native handler). aioquic, being slow, loses datagrams of the response
// on loopback; the server's congestion window then fills, and the
// connection must go on as the client's ACKs come in. Each exchange must
// complete within h3client.py's wait (15 s).
func TestHTTP3AioquicLargeEcho(t *testing.T) {
	needClient(t, []string{"python3", "aioquic"})
	cert, _ := testCert()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	routes := newH3Routes("")
	s := startH3Clients(t, Inline, HandlerFunc(routes.native))
	port := s.Addr().(*net.TCPAddr).Port
	const size = 2_000_000
	for i := range 6 {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, "python3", "testdata/h3client.py", "127.0.0.1", fmt.Sprint(port), ca, "localhost", fmt.Sprint(size))
		cmd.WaitDelay = 5 * time.Second
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Fatalf("h3client.py: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
		}
		var got struct {
			Error string `json:"error"`
			Echo  struct {
				Status int  `json:"status"`
				Len    int  `json:"len"`
				Same   bool `json:"same"`
			} `json:"echo"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("h3client.py printed %q, not its JSON (%v)", out, err)
		}
		if got.Error != "" || got.Echo.Status != 200 || got.Echo.Len != size || !got.Echo.Same {
			t.Fatalf("exchange %d: status %d, %d of %d bytes back (same %v), error %q",
				i, got.Echo.Status, got.Echo.Len, size, got.Echo.Same, got.Error)
		}
	}
}

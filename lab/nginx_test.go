package lab

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNginxH2Script starts scripts/nginx-h2.sh in each mode and checks that
// it answers in that protocol. It skips, saying why, where nginx or openssl
// is not installed.
func TestNginxH2Script(t *testing.T) {
	for _, tool := range []string{"nginx", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if _, err := exec.LookPath("/usr/sbin/" + tool); err != nil {
				t.Skipf("%s is not installed: the nginx target cannot run here (apt-get install nginx-light openssl)", tool)
			}
		}
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "nginx-h2.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mode      string
		wantMajor int
	}{
		{ModeH2C, 2},
		{ModeH2, 2},
		{ModeTLS, 1},
		{ModeTLSNoResume, 1},
		{ModeHTTP1, 1},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			addr, err := freeAddr()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(script, tc.mode, addr)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out := &limitedBuffer{max: 4096}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			p := &proc{cmd: cmd, addr: addr, out: out, done: done}
			defer p.stop()
			sc := Scenario{Name: tc.mode, Connections: 1}
			switch tc.mode {
			case ModeH2C:
				sc.HTTP2 = &HTTP2{}
			case ModeH2:
				sc.HTTP2, sc.TLS = &HTTP2{}, &TLS{}
			case ModeTLS:
				sc.TLS = &TLS{}
			case ModeTLSNoResume:
				sc.TLS, sc.KeepAlive = &TLS{}, new(false)
			}
			if sc.Mode() != tc.mode {
				t.Fatalf("scenario mode %s, want %s", sc.Mode(), tc.mode)
			}
			if err := p.waitReady(context.Background(), 10*time.Second, sc); err != nil {
				t.Fatal(err)
			}
			resp, err := readyClient(tc.mode, 5*time.Second).Get(sc.Scheme() + "://" + addr + "/any/path")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "Hello, Go!" || resp.ProtoMajor != tc.wantMajor {
				t.Fatalf("got %s %d %q, want HTTP/%d 200 Hello, Go!", resp.Proto, resp.StatusCode, body, tc.wantMajor)
			}
			if !strings.HasPrefix(resp.Header.Get("Server"), "nginx") {
				t.Errorf("Server %q: not nginx answering", resp.Header.Get("Server"))
			}
			if tc.mode == ModeTLS || tc.mode == ModeTLSNoResume {
				if got, want := secondResumes(t, addr), tc.mode == ModeTLS; got != want {
					t.Errorf("a second connection resumed: %v, want %v", got, want)
				}
			}
		})
	}
}

// secondResumes opens two TLS connections to addr in turn, sharing a session
// cache, and reports whether the second resumed.
func secondResumes(t *testing.T, addr string) bool {
	t.Helper()
	cache := tls.NewLRUClientSessionCache(4)
	var resumed bool
	for range 2 {
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ClientSessionCache: cache}}
		resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("https://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		tr.CloseIdleConnections()
		resumed = resp.TLS.DidResume
	}
	return resumed
}

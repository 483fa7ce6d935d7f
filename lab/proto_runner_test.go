package lab

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeTLSServer serves "Hello, Go!" over TLS with httptest's certificate
// when mode is tls, and exits with status 4 for any other mode.
func fakeTLSServer(addr, mode string) {
	if mode != ModeTLS {
		os.Stderr.WriteString("fake-tls-server: mode " + mode)
		os.Exit(4)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "Hello, Go! %v", r.TLS != nil)
	})
	srv := &http.Server{Addr: addr, Handler: h, TLSConfig: &tls.Config{Certificates: []tls.Certificate{mustTestCert()}}}
	err := srv.ListenAndServeTLS("", "")
	os.Stderr.WriteString(err.Error())
	os.Exit(1)
}

func mustTestCert() tls.Certificate {
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	defer ts.Close()
	return ts.TLS.Certificates[0]
}

// httpsLoader sends GETs one at a time for the scenario's duration and
// counts answers that came over TLS.
type httpsLoader struct{ urls chan string }

func (httpsLoader) Name() string { return "https-test" }

func (l httpsLoader) Load(ctx context.Context, url string, sc Scenario) (*LoadResult, error) {
	l.urls <- url
	c := readyClient(sc.Mode(), 2*time.Second)
	start := time.Now()
	lr := &LoadResult{Start: start, P50: -1, P99: -1, P999: -1}
	for time.Since(start) < time.Duration(sc.Duration) {
		resp, err := c.Get(url)
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) == "Hello, Go! true" {
			lr.Requests++
		} else {
			lr.Errors++
		}
	}
	lr.Duration = time.Since(start)
	lr.RPS = float64(lr.Requests) / lr.Duration.Seconds()
	return lr, nil
}

func TestRunnerServesTLSCells(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	loader := httpsLoader{urls: make(chan string, 4)}
	r := &Runner{
		Servers: []Server{{Name: "fake-tls", Command: ShellQuote(exe) + " fake-tls-server {addr} {mode}"}},
		Scenarios: []Scenario{
			{Name: "tls", Connections: 1, TLS: &TLS{}, Duration: Duration(300 * time.Millisecond)},
			{Name: "h2c", Connections: 1, HTTP2: &HTTP2{}, Duration: Duration(300 * time.Millisecond)},
		},
		Loader:       loader,
		StartTimeout: 5 * time.Second,
	}
	cells := r.Run(context.Background())
	if len(cells) != 2 {
		t.Fatalf("%d cells, want 2", len(cells))
	}
	tlsCell, h2cCell := cells[0], cells[1]
	if tlsCell.Error != "" || tlsCell.Requests == 0 || tlsCell.Errors != 0 || tlsCell.Mode != ModeTLS {
		t.Errorf("tls cell: %+v", tlsCell)
	}
	if u := <-loader.urls; !strings.HasPrefix(u, "https://127.0.0.1:") {
		t.Errorf("the loader got %q, want an https URL", u)
	}
	// The fake server exits for any mode but tls: the h2c cell records why.
	if !strings.Contains(h2cCell.Error, "exited before answering") || h2cCell.Mode != ModeH2C {
		t.Errorf("h2c cell: mode %q error %q", h2cCell.Mode, h2cCell.Error)
	}
}

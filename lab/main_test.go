package lab

import (
	"expvar"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestMain doubles as the fake server of the runner tests:
// "TESTBINARY fake-server ADDR DEBUG DELAY" serves Hello and /debug/vars.
func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == "fake-server" {
		fakeServer(os.Args[2], os.Args[3], os.Args[4])
		return
	}
	if len(os.Args) == 5 && os.Args[1] == "fake-file-server" {
		fakeFileServer(os.Args[2], os.Args[3], os.Args[4])
		return
	}
	if len(os.Args) == 4 && os.Args[1] == "fake-tls-server" {
		fakeTLSServer(os.Args[2], os.Args[3])
		return
	}
	if len(os.Args) == 4 && os.Args[1] == "fake-h3-server" {
		fakeH3Server(os.Args[2], os.Args[3])
		return
	}
	os.Exit(m.Run())
}

func fakeServer(addr, debug, delay string) {
	d, err := time.ParseDuration(delay)
	if err != nil {
		os.Exit(3)
	}
	expvar.Publish("goroutines", expvar.Func(func() any { return runtime.NumGoroutine() }))
	mux := http.NewServeMux()
	mux.Handle("/debug/vars", expvar.Handler())
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	go http.ListenAndServe(debug, mux)
	err = http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(d)
		w.Write([]byte("Hello, Go!"))
	}))
	os.Stderr.WriteString(err.Error())
	os.Exit(1)
}

// fakeServerCommand returns the command line of the fake server.
func fakeServerCommand(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ShellQuote(exe) + " fake-server {addr} {debug} {delay}"
}

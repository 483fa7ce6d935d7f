package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServeGRPCToRealClients: Python's grpcio and Node's @grpc/grpc-js
// call every method of gust serve --grpc (testdata/grpc: a unary call, a
// server stream, a client stream, a bidirectional ping-pong, each
// checked), and Python's grpcio-reflection describes the service by
// reflection (v1alpha) and calls it from the descriptors alone, over h2c
// and over TLS trusting the self-signed certificate, on the gust engine
// (through the net/http adapter) and on net/http. A client that is not
// installed skips here but fails in CI, which installs them (.ci/run:
// grpcio, grpcio-tools and grpcio-reflection by pip, @grpc/grpc-js and
// @grpc/proto-loader by npm into server/testdata/clients).
func TestServeGRPCToRealClients(t *testing.T) {
	streamCalls := []string{"unary", "server stream", "client stream", "bidi"}
	nodeModules, err := filepath.Abs("../../server/testdata/clients/node_modules")
	if err != nil {
		t.Fatal(err)
	}
	proto, err := filepath.Abs("../../docs/guides/grpc/echo.proto")
	if err != nil {
		t.Fatal(err)
	}
	nodeEnv := append(os.Environ(), "NODE_PATH="+nodeModules)
	clients := []struct {
		name    string
		check   []string // a command that fails when the client is missing
		run     []string // and HOST:PORT, then the .proto file unless reflect
		env     []string
		reflect bool
		calls   []string // what it reports ok
	}{
		{"python grpcio", []string{"python3", "-c", "import grpc, grpc_tools"}, []string{"python3", "testdata/grpc/py_grpc.py"}, nil, false, streamCalls},
		{"node grpc-js", []string{"node", "-e", "require('@grpc/grpc-js'); require('@grpc/proto-loader')"}, []string{"node", "testdata/grpc/node_grpc.cjs"}, nodeEnv, false, streamCalls},
		{"python grpcio-reflection", []string{"python3", "-c", "import grpc, grpc_reflection"}, []string{"python3", "testdata/grpc/py_grpc_reflect.py"}, nil, true, []string{"list", "describe", "unary"}},
	}
	cert, key := certPair(t)
	for _, c := range clients {
		t.Run(c.name, func(t *testing.T) {
			check := exec.Command(c.check[0], c.check[1:]...)
			check.Env = c.env
			if out, err := check.CombinedOutput(); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s is missing (.ci/run installs it): %v\n%s", c.name, err, out)
				}
				t.Skipf("%s is not installed", c.name)
			}
			for _, srv := range []struct {
				name string
				cfg  serveConfig
			}{
				{"gust h2c", serveConfig{Engine: "gust", Mode: "auto", API: "nethttp"}},
				{"gust TLS", serveConfig{Engine: "gust", Mode: "auto", API: "nethttp", TLS: serveTLSFlags{Cert: cert, Key: key}}},
				{"nethttp h2c", serveConfig{Engine: "nethttp"}},
				{"nethttp TLS", serveConfig{Engine: "nethttp", TLS: serveTLSFlags{Cert: cert, Key: key}}},
			} {
				t.Run(srv.name, func(t *testing.T) {
					base := startGRPCServe(t, srv.cfg)
					args := append(append([]string(nil), c.run[1:]...), base[strings.Index(base, "://")+3:])
					if !c.reflect {
						args = append(args, proto)
					}
					if srv.cfg.TLS.Cert != "" {
						args = append(args, cert)
					}
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					cmd := exec.CommandContext(ctx, c.run[0], args...)
					cmd.Env = c.env
					out, err := cmd.CombinedOutput()
					if err != nil {
						t.Fatalf("%s: %v\n%s", c.name, err, out)
					}
					for _, call := range c.calls {
						if !strings.Contains(string(out), "ok "+call+"\n") {
							t.Errorf("%s did not report %q ok:\n%s", c.name, call, out)
						}
					}
				})
			}
		})
	}
}

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/grpcmsg"
)

// grpcFlags are gust load's gRPC flags: --grpc-call names the method
// (unary, server streaming, client streaming or bidirectional, as its
// descriptor says), --grpc-proto the .proto files that define it
// (compiled in process), --grpc-import-path where their imports are, or
// --grpc-reflect asks the server for it by server reflection. The
// request message is -d or -D as JSON ({} when neither), encoded once; a
// client-streaming or bidirectional call sends it --grpc-stream-send
// times, --grpc-stream-interval apart.
type grpcFlags struct {
	call        string
	protos      []string
	importPaths []string
	reflect     bool
	send        int
	interval    time.Duration
	changed     func(name string) bool // the flag set's Changed
}

func addGRPCFlags(fl *pflag.FlagSet, f *grpcFlags) {
	fl.StringVar(&f.call, "grpc-call", "", "call this gRPC method, PACKAGE.SERVICE/METHOD (unary, server streaming, client streaming or bidirectional), over h2c (http://) or h2 (https://); -d or -D give the request message as JSON (default {})")
	fl.StringArrayVar(&f.protos, "grpc-proto", nil, "with --grpc-call, a .proto file defining the service and its messages (repeatable)")
	fl.StringArrayVar(&f.importPaths, "grpc-import-path", nil, "with --grpc-call, a directory the .proto files' imports are found in (repeatable)")
	fl.BoolVar(&f.reflect, "grpc-reflect", false, "with --grpc-call, describe the method by asking the server (gRPC server reflection, v1 or v1alpha) once before the run, instead of --grpc-proto")
	fl.IntVar(&f.send, "grpc-stream-send", 1, "with --grpc-call of a client-streaming or bidirectional method, messages each call sends (the request message each time)")
	fl.DurationVar(&f.interval, "grpc-stream-interval", 0, "with --grpc-stream-send, the pause between a call's messages (0: as fast as the stream's window allows)")
	f.changed = fl.Changed
}

// impliesHTTP2 makes --grpc-call speak HTTP/2 without --http2, so that
// -m N is streams per connection; an explicit --proto is left to apply.
func (f *grpcFlags) impliesHTTP2(p *protoFlags) {
	if f.call != "" && !p.proto.set {
		p.http2 = true
	}
}

// apply makes cfg a run of gRPC calls when --grpc-call is given: the
// method compiled from the .proto files, cfg.Body (JSON) encoded as its
// request message, the path, method, headers and protocol of a gRPC call
// set. proto is the protocol the flags asked for (protoHTTP11 when none
// was given); timeout is also sent as grpc-timeout; others says that
// requests of their own (--targets, --data-csv, --flow) were given.
func (f *grpcFlags) apply(cfg *load.Config, proto string, timeout time.Duration, others bool) error {
	streamFlags := f.changed("grpc-stream-send") || f.changed("grpc-stream-interval")
	if f.call == "" {
		if len(f.protos) > 0 || len(f.importPaths) > 0 || f.reflect || streamFlags {
			return errors.New("--grpc-proto, --grpc-import-path, --grpc-reflect and --grpc-stream-* need --grpc-call PACKAGE.SERVICE/METHOD")
		}
		return nil
	}
	u, err := url.Parse(cfg.URL)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https"):
		return fmt.Errorf("--grpc-call needs an http:// (h2c) or https:// (h2) URL, got %q", cfg.URL)
	case u.Path != "" && u.Path != "/" || u.RawQuery != "":
		return fmt.Errorf("--grpc-call sets the path: give the URL without one (%s://%s)", u.Scheme, u.Host)
	case proto == protoAuto || f.changed("proto") && proto == protoHTTP11:
		return fmt.Errorf("--grpc-call speaks HTTP/2 only: drop --proto %s", proto)
	case cfg.Method != "GET" && cfg.Method != "POST": // GET: the default (-m N is streams)
		return fmt.Errorf("a gRPC call is a POST: drop -m %s", cfg.Method)
	case others:
		return errors.New("--grpc-call calls one method with one message: it does not mix with --targets, --data-csv or --flow")
	case f.reflect && (len(f.protos) > 0 || len(f.importPaths) > 0):
		return errors.New("give either --grpc-reflect or --grpc-proto (and --grpc-import-path), not both")
	}
	var m *grpcmsg.Method
	if f.reflect {
		m, err = reflectMethod(cfg.TLS, u.Scheme+"://"+u.Host, f.call, timeout)
	} else {
		m, err = grpcmsg.Compile(f.protos, f.importPaths, f.call)
	}
	if err != nil {
		return err
	}
	switch {
	case streamFlags && !m.ClientStreaming:
		return fmt.Errorf("--grpc-call %s takes one request message (it is not client-streaming or bidirectional): drop --grpc-stream-send and --grpc-stream-interval", f.call)
	case f.send < 1 || f.send > load.MaxGRPCStreamSend:
		return fmt.Errorf("--grpc-stream-send %d: give 1 to %d messages per call", f.send, load.MaxGRPCStreamSend)
	case f.interval < 0:
		return fmt.Errorf("--grpc-stream-interval %s: give a pause of 0 or more", f.interval)
	}
	cfg.GRPCStream = load.GRPCStream{Client: m.ClientStreaming, Server: m.ServerStreaming}
	if m.ClientStreaming {
		cfg.GRPCStream.Send, cfg.GRPCStream.Interval = f.send, f.interval
	}
	body, err := m.Body(cfg.Body)
	if err != nil {
		return err
	}
	u.Path = m.Path
	cfg.URL = u.String()
	cfg.Method = "POST"
	cfg.Body = body
	cfg.HTTP2, cfg.AutoProtocol, cfg.GRPC = true, false, true
	hdr := cfg.Header[:0:0]
	for _, h := range cfg.Header {
		if !strings.EqualFold(h[0], "content-type") && !strings.EqualFold(h[0], "te") {
			hdr = append(hdr, h)
		}
	}
	cfg.Header = append(hdr, [2]string{"content-type", "application/grpc"}, [2]string{"te", "trailers"},
		[2]string{"grpc-timeout", grpcTimeout(timeout)})
	return nil
}

// reflectMethod asks the server at base for the method call by gRPC
// server reflection, over a connection of its own (HTTP/2: h2c for
// http://, h2 for https:// with the run's TLS settings), within timeout.
func reflectMethod(t load.TLSConfig, base, call string, timeout time.Duration) (*grpcmsg.Method, error) {
	tr := &http.Transport{Protocols: new(http.Protocols), TLSClientConfig: &tls.Config{
		InsecureSkipVerify: t.Insecure, RootCAs: t.RootCAs, Certificates: t.Certificates,
		MinVersion: t.MinVersion, ServerName: t.ServerName,
	}}
	if strings.HasPrefix(base, "https://") {
		tr.Protocols.SetHTTP2(true)
	} else {
		tr.Protocols.SetUnencryptedHTTP2(true)
	}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return grpcmsg.Reflect(ctx, &http.Client{Transport: tr}, base, call)
}

// grpcTimeout writes d as a grpc-timeout value: at most 8 digits and a
// unit, in milliseconds while they fit, else in seconds.
func grpcTimeout(d time.Duration) string {
	if ms := d.Milliseconds(); ms <= 99_999_999 {
		return strconv.FormatInt(max(ms, 1), 10) + "m"
	}
	return strconv.FormatInt(min(int64(d/time.Second), 99_999_999), 10) + "S"
}

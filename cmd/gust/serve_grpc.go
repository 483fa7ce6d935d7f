package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The gRPC service of gust serve --grpc, gust.echo.Echo
// (docs/guides/grpc/echo.proto), for gust load --grpc-call and other gRPC
// clients: every kind of call on messages it need not decode beyond one
// field. It runs on the net/http adapter, as grpc-go's own ServeHTTP
// does, over HTTP/2 (h2c, or h2 with TLS).

// grpcService is the path prefix of the service's methods.
const grpcService = "/gust.echo.Echo/"

// maxGRPCMessage bounds a request message, as gRPC's default receive
// limit does.
const maxGRPCMessage = 4 << 20

// gRPC status codes the service answers with.
const (
	grpcOK            = 0
	grpcInvalid       = 3
	grpcResource      = 8
	grpcUnimplemented = 12
	grpcInternal      = 13
)

// grpcRoutesNetHTTP sends the service's paths to the echo service, the
// reflection service's to its description of it (serve_grpc_reflect.go),
// and the rest to next.
func grpcRoutesNetHTTP(next http.Handler) http.Handler {
	refl, err := newGRPCReflection()
	if err != nil {
		panic("gust serve: " + err.Error()) // a constant that a test compiles
	}
	echo := grpcHandler(func(path string, in *bufio.Reader, out *grpcWriter) (int, string) {
		return grpcCall(strings.TrimPrefix(path, grpcService), in, out)
	})
	reflect := grpcHandler(refl.call)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, grpcService):
			echo.ServeHTTP(w, r)
		case isGRPCReflection(r.URL.Path):
			reflect.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// grpcHandler answers gRPC calls with call, which reads the request
// messages from in, writes the answers to out and returns the status.
func grpcHandler(call func(path string, in *bufio.Reader, out *grpcWriter) (code int, msg string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
			http.Error(w, "gust serve: gRPC needs HTTP/2 and Content-Type application/grpc", http.StatusUnsupportedMediaType)
			return
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.Header().Set("Trailer", "Grpc-Status, Grpc-Message")
		in := bufio.NewReader(r.Body)
		out := &grpcWriter{w: w, rc: http.NewResponseController(w)}
		code, msg := call(r.URL.Path, in, out)
		w.Header().Set("Grpc-Status", strconv.Itoa(code))
		if msg != "" {
			w.Header().Set("Grpc-Message", msg)
		}
	})
}

// grpcCall runs one call of method and returns its status.
func grpcCall(method string, in *bufio.Reader, out *grpcWriter) (code int, msg string) {
	switch method {
	case "Unary", "ServerStream":
		m, err := readGRPCMessage(in)
		if err != nil {
			return grpcReadStatus(err)
		}
		n := 1
		if method == "ServerStream" {
			n = max(int(msgCount(m)), 1)
		}
		for range n {
			if err := out.send(m); err != nil {
				return grpcInternal, "the client went away"
			}
		}
		return grpcOK, ""
	case "ClientStream":
		var count int64
		for {
			_, err := readGRPCMessage(in)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return grpcReadStatus(err)
			}
			count++
		}
		reply := binary.AppendUvarint([]byte{2 << 3}, uint64(count)) // field 2 (count), varint
		if err := out.send(reply); err != nil {
			return grpcInternal, "the client went away"
		}
		return grpcOK, ""
	case "Bidi":
		for {
			m, err := readGRPCMessage(in)
			if errors.Is(err, io.EOF) {
				return grpcOK, ""
			}
			if err != nil {
				return grpcReadStatus(err)
			}
			if err := out.send(m); err != nil {
				return grpcInternal, "the client went away"
			}
		}
	}
	return grpcUnimplemented, "gust.echo.Echo has no method " + method
}

// errGRPCTooLarge and errGRPCCompressed refuse a message.
var (
	errGRPCTooLarge   = errors.New("message larger than 4 MiB")
	errGRPCCompressed = errors.New("compressed message, and no grpc-encoding was agreed")
)

// readGRPCMessage reads one length-prefixed message; io.EOF at a clean
// end of the request stream.
func readGRPCMessage(in *bufio.Reader) ([]byte, error) {
	var prefix [5]byte
	if _, err := io.ReadFull(in, prefix[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("message prefix cut short")
		}
		return nil, err
	}
	if prefix[0] != 0 {
		return nil, errGRPCCompressed
	}
	n := binary.BigEndian.Uint32(prefix[1:])
	if n > maxGRPCMessage {
		return nil, errGRPCTooLarge
	}
	m := make([]byte, n)
	if _, err := io.ReadFull(in, m); err != nil {
		return nil, errors.New("message cut short")
	}
	return m, nil
}

// grpcReadStatus is the status of a request that could not be read.
func grpcReadStatus(err error) (int, string) {
	switch {
	case errors.Is(err, errGRPCTooLarge):
		return grpcResource, err.Error()
	case errors.Is(err, io.EOF):
		return grpcInvalid, "no request message"
	}
	return grpcInternal, err.Error()
}

// msgCount reads field 2 (count) of a gust.echo.Msg, 0 if absent or not a
// varint; other fields are skipped.
func msgCount(m []byte) int64 {
	var count int64
	for len(m) > 0 {
		key, n := binary.Uvarint(m)
		if n <= 0 {
			return count
		}
		m = m[n:]
		switch key & 7 {
		case 0: // varint
			v, n := binary.Uvarint(m)
			if n <= 0 {
				return count
			}
			if key>>3 == 2 {
				count = int64(int32(v))
			}
			m = m[n:]
		case 2: // length-delimited
			l, n := binary.Uvarint(m)
			if n <= 0 || l > uint64(len(m)-n) {
				return count
			}
			m = m[n+int(l):]
		case 1:
			m = m[min(8, len(m)):]
		case 5:
			m = m[min(4, len(m)):]
		default:
			return count
		}
	}
	return count
}

// grpcWriter writes length-prefixed messages, each flushed at once.
type grpcWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	prefix [5]byte
}

func (g *grpcWriter) send(m []byte) error {
	binary.BigEndian.PutUint32(g.prefix[1:], uint32(len(m)))
	if _, err := g.w.Write(g.prefix[:]); err != nil {
		return err
	}
	if _, err := g.w.Write(m); err != nil {
		return err
	}
	return g.rc.Flush()
}

//go:build linux

package server

import (
	"net/http"
	"strings"

	"github.com/gust-http/gust/internal/http1"
	"github.com/gust-http/gust/internal/http2"
)

// A net/http handler's header and trailers as the fields of an HTTP/2 or
// HTTP/3 response, for the adapter's writers of both.

// adapterFields turns a net/http handler's header into the fields of an
// HTTP/2 or HTTP/3 response: lowercase names, connection-specific fields
// left out, Date added, content-length when length >= 0 and the handler
// set none; the names its Trailer field declares are added to trailers.
func adapterFields(s *Server, header http.Header, status, length int, trailers *[]string) []http2.Field {
	fields := make([]http2.Field, 0, len(header)+2)
	hasDate, hasLength := false, false
	for k, vs := range header {
		switch k {
		case "Connection", "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade":
			continue
		case "Date":
			hasDate = true
		case "Content-Length":
			hasLength = true
		case "Trailer":
			for _, v := range vs {
				for v != "" {
					var t string
					t, v, _ = strings.Cut(v, ",")
					if t = strings.TrimSpace(t); t != "" {
						if *trailers == nil {
							*trailers = make([]string, 0, 4) // gRPC declares three
						}
						*trailers = append(*trailers, http.CanonicalHeaderKey(t))
					}
				}
			}
		}
		if len(vs) == 0 || strings.HasPrefix(k, http.TrailerPrefix) {
			continue
		}
		name := fieldName(k)
		for _, v := range vs {
			fields = append(fields, http2.Field{Name: name, Value: v})
		}
	}
	if !hasDate {
		fields = append(fields, http2.Field{Name: "date", Value: s.dateString()})
	}
	if length >= 0 && !hasLength && http1.BodyAllowed(status) {
		fields = append(fields, http2.Field{Name: "content-length", Value: lengthString(length)})
	}
	return fields
}

// adapterTrailers returns a handler's trailers: the fields its Trailer
// field declared, and those set with http.TrailerPrefix.
func adapterTrailers(header http.Header, declared []string) []http2.Field {
	var out []http2.Field
	for _, k := range declared {
		for _, v := range header[k] {
			if out == nil {
				out = make([]http2.Field, 0, len(declared))
			}
			out = append(out, http2.Field{Name: fieldName(k), Value: v})
		}
	}
	for k, vs := range header {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			for _, v := range vs {
				out = append(out, http2.Field{Name: fieldName(name), Value: v})
			}
		}
	}
	return out
}

// hasTrailerPrefix reports whether h sets a trailer with http.TrailerPrefix.
func hasTrailerPrefix(h http.Header) bool {
	for k := range h {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			return true
		}
	}
	return false
}

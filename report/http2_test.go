package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gust-http/gust/result"
)

// autoRun is http2Run over TLS with --proto auto: the server gave h2 to 8
// connections and http/1.1 to 2, so HTTP/2's counters still show.
func autoRun() *result.Result {
	r := http2Run()
	r.URL = "https://api.example.test/"
	r.Protocol = result.ProtoAuto
	r.Protocols = map[string]int64{result.ProtoH2: 8, result.ProtoHTTP11: 2}
	r.Connects, r.Reconnects = 10, 0
	t := result.NewTLS()
	t.Versions["TLS 1.3"] = 10
	t.CipherSuites["TLS_AES_128_GCM_SHA256"] = 10
	t.ALPN["h2"], t.ALPN["http/1.1"] = 8, 2
	t.Full = 10
	record(t.Handshake, 900, 10)
	r.TLS = t
	return r
}

// autoHTTP1Run is an auto run whose server offered only http/1.1.
func autoHTTP1Run() *result.Result {
	r := autoRun()
	r.Protocols = map[string]int64{result.ProtoH2: 0, result.ProtoHTTP11: 10}
	r.HTTP2 = result.NewHTTP2(10)
	r.Errors = map[result.ErrorKind]int64{}
	r.TLS.ALPN = map[string]int64{"http/1.1": 10}
	return r
}

// TestProtocolLines: what the text report says of the protocol spoken,
// and what it leaves out.
func TestProtocolLines(t *testing.T) {
	tests := []struct {
		name    string
		r       *result.Result
		want    []string
		wantNot []string
	}{
		{"an HTTP/1.1 run says nothing of protocols", closedRun(), nil, []string{"HTTP/2", "Protocols"}},
		{"an h2c run says HTTP/2 and its counters", http2Run(), []string{
			"HTTP/2 (h2c), 10 streams per connection",
			"HTTP/2      RST_STREAM INTERNAL_ERROR: 7",
		}, []string{"Protocols"}},
		{"an auto run counts the connections per protocol, HTTP/2's counters kept", autoRun(), []string{
			"HTTP/2 or HTTP/1.1 by ALPN, 10 streams per h2 connection",
			"Protocols   h2: 8 connections, http/1.1: 2 connections",
			"HTTP/2      RST_STREAM INTERNAL_ERROR: 7",
		}, nil},
		{"an auto run that got no h2 has no HTTP/2 line", autoHTTP1Run(), []string{
			"HTTP/2 or HTTP/1.1 by ALPN",
			"Protocols   h2: 0 connections, http/1.1: 10 connections",
		}, []string{"HTTP/2      "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, tt.r); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(b.String(), w) {
					t.Errorf("report has %q:\n%s", w, b.String())
				}
			}
		})
	}
}

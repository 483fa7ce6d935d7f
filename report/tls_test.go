package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// tlsRun is a run over TLS with a connection per request: mostly resumed
// handshakes, a few full ones, two servers' versions and some refused
// certificates.
func tlsRun() *result.Result {
	r := keepAliveOffRun()
	r.URL = "https://api.example.test/health"
	r.Errors[result.ErrConnect] = 3 // the failed handshakes
	t := result.NewTLS()
	t.Versions["TLS 1.3"] = 10900
	t.Versions["TLS 1.2"] = 100
	t.CipherSuites["TLS_AES_128_GCM_SHA256"] = 10900
	t.CipherSuites["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"] = 100
	t.ALPN["http/1.1"] = 11000
	t.Full, t.Resumed = 16, 10984
	t.Errors[result.TLSErrExpired] = 3
	record(t.Handshake, 180, 10984, 900, 12, 2400, 4)
	r.TLS = t
	return r
}

// tlsShard is shard i of a 2-way TLS run: keep-alive, one handshake per
// connection, all full.
func tlsShard(i int) *result.Result {
	r := shardRun(i, fixtureStart, 3*time.Second, 3)
	r.URL = "https://gust-server:8443/"
	r.Shard = result.Shard{Index: i, Count: 2}
	t := result.NewTLS()
	t.Versions["TLS 1.3"] = 20
	t.CipherSuites["TLS_AES_128_GCM_SHA256"] = 20
	t.ALPN["http/1.1"] = 20
	t.Full = 20
	t.Errors[result.TLSErrTimeout] = int64(i)
	record(t.Handshake, 700+100*int64(i), 20)
	r.TLS = t
	return r
}

func TestTLSReportsOnlyForTLS(t *testing.T) {
	tests := []struct {
		name string
		r    *result.Result
		want []string
	}{
		{"a TLS run says what was negotiated and how long handshakes took", tlsRun(), []string{
			"TLS         TLS 1.3: 10,900, TLS 1.2: 100, TLS_AES_128_GCM_SHA256: 10,900, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 100, ALPN http/1.1",
			"Handshakes  p50 180us, p99 180us, max 2.4ms (16 full, 10,984 resumed)",
			"TLS errors  expired: 3",
		}},
		{"a plain run says nothing of TLS", keepAliveOffRun(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Text(&b, tt.r); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, w := range tt.want {
				if !strings.Contains(out, w+"\n") {
					t.Errorf("text lacks %q:\n%s", w, out)
				}
			}
			if tt.want == nil && (strings.Contains(out, "TLS") || strings.Contains(out, "Handshake")) {
				t.Errorf("plain run's text mentions TLS:\n%s", out)
			}
			b.Reset()
			if err := JSON(&b, tt.r); err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(b.String(), `"tls"`); has != (tt.want != nil) {
				t.Errorf("JSON has a tls key = %v, want %v", has, tt.want != nil)
			}
		})
	}
}

// TestTLSMergesExactly: JSON -> ReadResults -> Merge adds the agents' TLS
// records as it adds the rest: counts summed, histograms added.
func TestTLSMergesExactly(t *testing.T) {
	var doc bytes.Buffer
	for i := range 2 {
		if err := JSON(&doc, tlsShard(i)); err != nil {
			t.Fatal(err)
		}
	}
	parts, err := ReadResults(doc.Bytes(), "agents.json")
	if err != nil {
		t.Fatal(err)
	}
	m, err := result.Merge(parts, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	want := hdrhistogram.New(result.HistMin, result.HistMax, result.HistSigFigs)
	for i := range 2 {
		want.Merge(tlsShard(i).TLS.Handshake)
	}
	got := m.TLS
	switch {
	case got == nil:
		t.Fatal("merged result lost its TLS record")
	case got.Full != 40 || got.Resumed != 0 || got.Versions["TLS 1.3"] != 40 || got.ALPN["http/1.1"] != 40:
		t.Errorf("merged counts: full %d resumed %d versions %v ALPN %v, want 40 full TLS 1.3 http/1.1", got.Full, got.Resumed, got.Versions, got.ALPN)
	case got.Errors[result.TLSErrTimeout] != 1:
		t.Errorf("merged errors %v, want timeout: 1", got.Errors)
	case !got.Handshake.Equals(want):
		t.Errorf("merged handshake histogram differs from the sum of the agents'")
	}
}

func TestTLSReadRefusesCutResults(t *testing.T) {
	var doc bytes.Buffer
	if err := JSON(&doc, tlsShard(0)); err != nil {
		t.Fatal(err)
	}
	cut := strings.Replace(doc.String(), `"full": 20`, `"full": 21`, 1)
	_, err := ReadResults([]byte(cut), "cut.json")
	if err == nil || !strings.Contains(err.Error(), "handshake_hdr holds 20 values") {
		t.Fatalf("err = %v, want a refusal naming the handshake histogram", err)
	}
}

// The tls object's keys and their types are a contract, as the rest of the
// document's.
func TestTLSJSONKeys(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, tlsRun()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	tls, ok := doc["tls"].(map[string]any)
	if !ok {
		t.Fatalf("tls is %s, want object", jsonType(doc["tls"]))
	}
	want := map[string]string{
		"versions": "object", "cipher_suites": "object", "alpn": "object", "full": "number", "resumed": "number",
		"errors": "object", "error_total": "number", "handshake_us": "object", "handshake_hdr": "string",
	}
	for key, typ := range want {
		if got := jsonType(tls[key]); got != typ {
			t.Errorf("tls.%s is %s, want %s", key, got, typ)
		}
	}
	checkObject(t, "tls.handshake_us", tls["handshake_us"], []string{"min", "mean", "stddev", "p50", "p75", "p90", "p99", "p999", "p9999", "max"})
}

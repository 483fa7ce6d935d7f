package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

func TestJSON(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := JSON(&buf, f.result()); err != nil {
				t.Fatal(err)
			}
			golden(t, "json_"+f.name+".golden", buf.Bytes())
		})
	}
}

// The JSON keys and their types are a contract with other tools.
func TestJSONKeys(t *testing.T) {
	const (
		str = "string"
		num = "number"
		boo = "bool"
		obj = "object"
		arr = "array"
	)
	required := map[string]string{
		"url": str, "method": str, "connections": num, "loops": num, "pipeline": num,
		"rate": num, "keepalive": boo, "start": str, "duration_s": num, "interrupted": boo,
		"requests": num, "rps": num, "bytes_read": num, "bytes_written": num,
		"connects": num, "reconnects": num, "latency_us": obj, "status": obj,
		"errors": obj, "error_total": num, "timeline": arr, "latency_hdr": str,
	}
	statsKeys := []string{"min", "mean", "stddev", "p50", "p75", "p90", "p99", "p999", "p9999", "max"}
	lateKeys := []string{"count", "threshold_us", "p50_us", "p99_us", "max_us"}
	secondKeys := []string{"second", "requests", "errors", "bytes_read", "p50_us", "p99_us"}

	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r := f.result()
			var buf bytes.Buffer
			if err := JSON(&buf, r); err != nil {
				t.Fatal(err)
			}
			var doc map[string]any
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			for key, want := range required {
				if got := jsonType(doc[key]); got != want {
					t.Errorf("%s is %s, want %s", key, got, want)
				}
			}
			checkObject(t, "latency_us", doc["latency_us"], statsKeys)

			hasConnect := r.Connect != nil && r.Connect.TotalCount() > 0
			if _, ok := doc["connect_us"]; ok != hasConnect {
				t.Errorf("connect_us present = %v, want %v", ok, hasConnect)
			} else if ok {
				checkObject(t, "connect_us", doc["connect_us"], statsKeys)
			}
			if _, ok := doc["late"]; ok != r.Scheduled() {
				t.Errorf("late present = %v, want %v", ok, r.Scheduled())
			} else if ok {
				checkObject(t, "late", doc["late"], lateKeys)
			}

			errs := doc["errors"].(map[string]any)
			for _, kind := range result.ErrorKinds() {
				if kind.HTTP2Only() && r.HTTP2 == nil {
					if _, ok := errs[kind.String()]; ok {
						t.Errorf("errors of an HTTP/1.1 run has HTTP/2's %s", kind)
					}
					continue
				}
				if kind.WebSocketOnly() && r.WebSocket == nil {
					if _, ok := errs[kind.String()]; ok {
						t.Errorf("errors of an HTTP run has WebSocket's %s", kind)
					}
					continue
				}
				if jsonType(errs[kind.String()]) != num {
					t.Errorf("errors lacks %s", kind)
				}
			}
			timeline := doc["timeline"].([]any)
			if len(timeline) != len(r.Timeline) {
				t.Errorf("timeline has %d entries, want %d", len(timeline), len(r.Timeline))
			}
			for i, s := range timeline {
				checkObject(t, "timeline entry", s, secondKeys)
				// A second carries its histogram when the run kept it.
				_, ok := s.(map[string]any)["hdr"]
				if want := len(r.Timeline[i].Hist) > 0; ok != want {
					t.Errorf("second %d has hdr = %v, want %v", i, ok, want)
				}
			}

			start, err := time.Parse(time.RFC3339, doc["start"].(string))
			if err != nil {
				t.Fatalf("start: %v", err)
			}
			if !start.Equal(r.Start) {
				t.Errorf("start reads back as %v, want %v", start, r.Start)
			}
		})
	}
}

func TestJSONDecodesIntoSummary(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name, func(t *testing.T) {
			r := f.result()
			var buf bytes.Buffer
			if err := JSON(&buf, r); err != nil {
				t.Fatal(err)
			}
			var got Summary
			if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if want := NewSummary(r); !reflect.DeepEqual(got, want) {
				t.Errorf("decoded summary differs:\ngot  %+v\nwant %+v", got, want)
			}
			h, err := got.LatencyHistogram()
			if err != nil {
				t.Fatal(err)
			}
			if r.Latency != nil && !h.Equals(r.Latency) {
				t.Error("latency_hdr does not decode to the run's latency histogram")
			}
		})
	}
}

func TestJSONKeepsURLReadable(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, openLateRun()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"url": "http://localhost:9000/api/items?limit=10&sort=id"`) {
		t.Errorf("url is escaped:\n%s", buf.String())
	}
}

func TestSummaryRounding(t *testing.T) {
	r := closedRun()
	r.Requests = 1000
	r.Duration = 3 * time.Second
	s := NewSummary(r)
	if s.RPS != 333.3 {
		t.Errorf("rps = %v, want 333.3", s.RPS)
	}
	if s.DurationS != 3 {
		t.Errorf("duration_s = %v, want 3", s.DurationS)
	}
	for name, v := range map[string]float64{"mean": s.Latency.Mean, "stddev": s.Latency.Stddev} {
		if v*10 != float64(int64(v*10)) {
			t.Errorf("%s = %v, not rounded to 0.1", name, v)
		}
	}
}

func TestSummaryLatencyHistogramRejectsGarbage(t *testing.T) {
	if _, err := (Summary{LatencyHdr: "not a histogram"}).LatencyHistogram(); err == nil {
		t.Error("decoding garbage returned no error")
	}
}

func checkObject(t *testing.T, name string, v any, keys []string) {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Errorf("%s is %s, want object", name, jsonType(v))
		return
	}
	for _, k := range keys {
		if jsonType(m[k]) != "number" {
			t.Errorf("%s.%s is %s, want number", name, k, jsonType(m[k]))
		}
	}
}

// jsonType names the JSON type encoding/json decoded v from.
func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case nil:
		return "missing or null"
	}
	return "unknown"
}

package report

import (
	"bytes"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// jsonOf returns what JSON writes for r.
func jsonOf(t testing.TB, r *result.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReadResultsRoundTrip writes each load fixture as JSON and reads it
// back: everything gust merge needs must survive.
func TestReadResultsRoundTrip(t *testing.T) {
	sameHist := func(name string, got, want *hdrhistogram.Histogram) {
		t.Helper()
		if want == nil {
			want = result.NewHistogram()
		}
		if !got.Equals(want) && got.TotalCount()+want.TotalCount() > 0 {
			t.Errorf("%s histogram: read %d values (p99 %d), want %d (p99 %d)", name,
				got.TotalCount(), got.ValueAtQuantile(99), want.TotalCount(), want.ValueAtQuantile(99))
		}
	}
	for _, f := range fixtures {
		if f.name == "replay" || f.name == "zero" {
			continue // refused: see TestReadResultsRefusesBadInput
		}
		t.Run(f.name, func(t *testing.T) {
			want := f.result()
			if f.name == "open_late" {
				want.Shard = result.Shard{Index: 2, Count: 4}
				want.StartAt = fixtureStart.Add(-2 * time.Second)
			}
			parts, err := ReadResults(jsonOf(t, want), "run.json")
			if err != nil {
				t.Fatal(err)
			}
			if len(parts) != 1 || parts[0].Name != "run.json" {
				t.Fatalf("read %d parts (%v), want one named run.json", len(parts), parts)
			}
			got := parts[0].Result
			if got.URL != want.URL || got.Method != want.Method || got.Connections != want.Connections ||
				got.Loops != want.Loops || got.Pipeline != want.Pipeline || got.Rate != want.Rate ||
				got.KeepAlive != want.KeepAlive || got.Shard != want.Shard || !got.StartAt.Equal(want.StartAt) ||
				!got.Start.Equal(want.Start) || got.Duration != want.Duration || got.Interrupted != want.Interrupted {
				t.Errorf("run read back as %+v, want %+v", got, want)
			}
			if got.Requests != want.Requests || got.BytesRead != want.BytesRead || got.BytesWritten != want.BytesWritten ||
				got.Connects != want.Connects || got.Reconnects != want.Reconnects || got.Late != want.Late {
				t.Errorf("counters read back differ")
			}
			for code, n := range want.Status {
				if got.Status[code] != n {
					t.Errorf("status %d: read %d, want %d", code, got.Status[code], n)
				}
			}
			for kind, n := range want.Errors {
				if got.Errors[kind] != n {
					t.Errorf("errors %s: read %d, want %d", kind, got.Errors[kind], n)
				}
			}
			if got.Protocol != want.Protocol || !reflect.DeepEqual(got.HTTP2, want.HTTP2) || !maps.Equal(got.Protocols, want.Protocols) {
				t.Errorf("protocol %q (%v), HTTP/2 %+v read back; want %q (%v), %+v",
					got.Protocol, got.Protocols, got.HTTP2, want.Protocol, want.Protocols, want.HTTP2)
			}
			sameHist("latency", got.Latency, want.Latency)
			sameHist("connect", got.Connect, want.Connect)
			if want.Scheduled() {
				sameHist("lateness", got.Lateness, want.Lateness)
			}
			if len(got.Endpoints) != len(want.Endpoints) {
				t.Errorf("read %d endpoints, want %d", len(got.Endpoints), len(want.Endpoints))
			}
			for _, w := range want.Endpoints {
				i := slices.IndexFunc(got.Endpoints, func(e result.Endpoint) bool { return e.Name == w.Name })
				if i < 0 || got.Endpoints[i].Requests != w.Requests || got.Endpoints[i].Errors != w.Errors ||
					got.Endpoints[i].Status5xx != w.Status5xx || !got.Endpoints[i].Latency.Equals(w.Latency) {
					t.Errorf("endpoint %q did not read back as it was written", w.Name)
				}
			}
			if len(got.Timeline) != len(want.Timeline) {
				t.Fatalf("timeline has %d seconds, want %d", len(got.Timeline), len(want.Timeline))
			}
			for i, s := range got.Timeline {
				w := want.Timeline[i]
				if s.Second != w.Second || s.Requests != w.Requests || s.Errors != w.Errors ||
					s.BytesRead != w.BytesRead || !bytes.Equal(s.Hist, w.Hist) {
					t.Errorf("second %d read back differs", i)
				}
			}
		})
	}
}

// TestReadResultsOfConcatenatedAgents reads three agents' JSON one after
// another, as kubectl logs of their pods gives it, and merges them: the
// result must be the in-memory merge of the same agents.
func TestReadResultsOfConcatenatedAgents(t *testing.T) {
	agents := []*result.Result{
		shardRun(1, fixtureStart.Add(3*time.Millisecond), 3*time.Second, 3),
		shardRun(0, fixtureStart, 3*time.Second, 3),
		shardRun(2, fixtureStart.Add(time.Millisecond), 3*time.Second, 3),
	}
	var stream []byte
	var inMemory []result.Part
	for i, a := range agents {
		stream = append(stream, jsonOf(t, a)...)
		inMemory = append(inMemory, result.Part{Name: fmt.Sprintf("stdin#%d", i+1), Result: a})
	}
	parts, err := ReadResults(stream, "stdin")
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || parts[0].Name != "stdin#1" || parts[2].Name != "stdin#3" {
		t.Fatalf("read %d parts, want stdin#1 to stdin#3", len(parts))
	}
	got, err := result.Merge(parts, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	want, err := result.Merge(inMemory, result.DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Latency.Equals(want.Latency) || !got.Connect.Equals(want.Connect) || !got.Lateness.Equals(want.Lateness) {
		t.Error("histograms merged from JSON differ from the in-memory merge")
	}
	if got.Requests != want.Requests || got.Status[200] != want.Status[200] || got.Errors[result.ErrReset] != 3 {
		t.Errorf("merged %d requests, status %v, errors %v; want %d requests and 3 resets", got.Requests, got.Status, got.Errors, want.Requests)
	}
	var text, wantText bytes.Buffer
	if err := Text(&text, got); err != nil {
		t.Fatal(err)
	}
	if err := Text(&wantText, want); err != nil {
		t.Fatal(err)
	}
	if text.String() != wantText.String() {
		t.Errorf("report from JSON:\n%s\nreport in memory:\n%s", text.String(), wantText.String())
	}
}

func TestReadResultsRefusesBadInput(t *testing.T) {
	good := string(jsonOf(t, shardRun(0, fixtureStart, 3*time.Second, 3)))
	replay := string(jsonOf(t, replayRun()))
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("fixture JSON lacks %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{"empty input", "", "in.json: no results in it (empty input)"},
		{"only white space", " \n\t\n", "no results in it"},
		{"text", "Error from server (NotFound): pods \"gust-load-0\" not found\n", `in.json line 1: not the JSON of gust load -o json: "Error from server (NotFound): pods \"gust-load-0\" not found"`},
		{"a good result, then garbage", good + "\nthis is not JSON\n",
			fmt.Sprintf("in.json line %d: not the JSON of gust load -o json: \"this is not JSON\"", strings.Count(good, "\n")+2)},
		{"a cut result", good[:len(good)/2], "in.json line 1: not the JSON of gust load -o json"},
		{"an empty object", "{}", "not a gust load result (it has no url or latency_hdr)"},
		{"an array", "[1, 2]", "not a gust load result: json: cannot unmarshal array"},
		{"a wrong type", edit(`"requests": 3000`, `"requests": "many"`), "not a gust load result: json: cannot unmarshal string"},
		{"a replay", replay, "a gust replay result"},
		{"a corrupt histogram", edit(`"latency_hdr": "HISTF`, `"latency_hdr": "HISTFxx`), "latency_hdr is not an encoded histogram"},
		{"requests that disagree with the histogram", edit(`"requests": 3000`, `"requests": 3001`), "latency_hdr holds 3000 values but requests is 3001"},
		{"an unknown error kind", edit(`"reset": 0`, `"gremlins": 1`), `unknown error kind "gremlins"`},
		{"a bad status code", edit(`"200": 3000`, `"OK": 3000`), `status "OK" is not a status code`},
		{"a bad start", edit(`"start": "2025`, `"start": "yesterday`), "is not an RFC 3339 time"},
		{"a bad shard", edit(`"shard": "0/3"`, `"shard": "3/3"`), "bad shard 3/3"},
		{"a huge histogram", edit(`"connect_hdr": "HISTF`, `"connect_hdr": "`+hugeHistogram(t)+`", "x": "`), "connect_hdr is a histogram of 5 significant digits"},
		{"no lateness histogram", strings.Replace(good, `"lateness_hdr"`, `"lateness_old"`, 1), "without its connect or lateness histogram"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadResults([]byte(tt.input), "in.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q spans lines", err)
			}
		})
	}
}

// FuzzReadResults feeds ReadResults arbitrary bytes, starting from real
// results: it must return results or an error, never panic or hang.
func FuzzReadResults(f *testing.F) {
	f.Add(jsonOf(f, shardRun(0, fixtureStart, 3*time.Second, 2)))
	f.Add(jsonOf(f, closedRun()))
	f.Add(jsonOf(f, targetsShard(1, fixtureStart)))
	f.Add([]byte("{}{}"))
	f.Add([]byte(`{"url":"http://x/","latency_hdr":"HISTFAAAACl4nJNpmSzMwMDAyAABzFCaEUzOfx5hD2EBAEXMAxU=","start":"2025-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parts, err := ReadResults(data, "fuzz")
		if err == nil && len(parts) == 0 {
			t.Error("no error and no results")
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q spans lines", err)
		}
	})
}

// hugeHistogram encodes an empty histogram whose counts would take tens
// of megabytes.
func hugeHistogram(t *testing.T) string {
	enc, err := hdrhistogram.New(1, 1<<50, 5).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(enc)
}

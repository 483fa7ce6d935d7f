package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gust-http/gust/result"
)

// ReadResults reads the JSON documents JSON writes, one after another as
// several agents' outputs concatenated (kubectl logs of several pods, say),
// and returns each as a result.Part for result.Merge. Parts are named after
// name, the input's name: name itself for a single document, "name#2" for
// the second of several.
//
// Input that is empty, is not JSON, or holds a document that is not a gust
// load result (JSON of another shape, a replay's result, or one written
// before results carried every histogram) is an error of one line that
// says where.
func ReadResults(data []byte, name string) ([]result.Part, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var parts []result.Part
	for {
		at := skipSpace(data, dec.InputOffset())
		var s Summary
		err := dec.Decode(&s)
		if err != nil && isEOF(err) && at == int64(len(data)) {
			break
		}
		where := fmt.Sprintf("%s line %d", name, lineOf(data, at))
		if err != nil {
			if _, ok := err.(*json.SyntaxError); ok || isEOF(err) {
				return nil, fmt.Errorf("%s: not the JSON of gust load -o json: %s", where, snippet(data[at:]))
			}
			return nil, fmt.Errorf("%s: not a gust load result: %v", where, err)
		}
		r, err := s.Result()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		parts = append(parts, result.Part{Result: r})
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("%s: no results in it (empty input)", name)
	}
	for i := range parts {
		parts[i].Name = name
		if len(parts) > 1 {
			parts[i].Name += "#" + strconv.Itoa(i+1)
		}
	}
	return parts, nil
}

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// skipSpace returns the offset of the first byte at or after off that is
// not JSON white space.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) {
		switch data[off] {
		case ' ', '\t', '\r', '\n':
			off++
		default:
			return off
		}
	}
	return off
}

// lineOf returns the line number, from 1, of data's byte at off.
func lineOf(data []byte, off int64) int {
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// snippet quotes the start of the first line of b, for an error.
func snippet(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	const most = 60
	if len(b) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return strconv.Quote(string(b[:cut])) + "..."
	}
	return strconv.Quote(string(b))
}

// Result rebuilds the result.Result that s describes, with every histogram
// decoded, for result.Merge. It fails for a document that is not a gust load
// result: no URL or latency histogram, a replay's result, an unknown status
// or error kind, or counts that disagree with the histograms. The endpoints
// of a gust load --targets run are read back with their histograms.
func (s Summary) Result() (*result.Result, error) {
	switch {
	case s.URL == "" || s.LatencyHdr == "":
		return nil, errors.New("not a gust load result (it has no url or latency_hdr)")
	case s.Input != nil || s.Speed > 0:
		return nil, errors.New("a gust replay result: only gust load results can be merged")
	case s.Connect != nil && s.ConnectHdr == "", s.Late != nil && s.LatenessHdr == "":
		return nil, errors.New("a result without its connect or lateness histogram (written by an older gust): run the agents with this one")
	}
	r := &result.Result{
		URL:          s.URL,
		Method:       s.Method,
		Connections:  s.Connections,
		Loops:        s.Loops,
		Pipeline:     s.Pipeline,
		Rate:         s.Rate,
		Stages:       s.Stages,
		KeepAlive:    s.KeepAlive,
		Protocol:     s.Protocol,
		Protocols:    s.Protocols,
		HTTP2:        s.HTTP2.result(),
		Duration:     time.Duration(math.Round(s.DurationS*1000)) * time.Millisecond,
		Interrupted:  s.Interrupted,
		Requests:     s.Requests,
		BytesRead:    s.BytesRead,
		BytesWritten: s.BytesWritten,
		Connects:     s.Connects,
		Reconnects:   s.Reconnects,
		Retried:      s.Retried,
		Status:       make(map[int]int64, len(s.Status)),
		Errors:       make(map[result.ErrorKind]int64),
	}
	var err error
	if r.Start, err = time.Parse(time.RFC3339, s.Start); err != nil {
		return nil, fmt.Errorf("start %q is not an RFC 3339 time", s.Start)
	}
	if s.StartAt != "" {
		if r.StartAt, err = time.Parse(time.RFC3339, s.StartAt); err != nil {
			return nil, fmt.Errorf("start_at %q is not an RFC 3339 time", s.StartAt)
		}
	}
	if s.Shard != "" {
		if r.Shard, err = result.ParseShard(s.Shard); err != nil {
			return nil, err
		}
	}
	if r.Latency, err = decodeHistogram("latency_hdr", s.LatencyHdr, nil); err != nil {
		return nil, err
	}
	if r.Connect, err = decodeHistogram("connect_hdr", s.ConnectHdr, r.Latency); err != nil {
		return nil, err
	}
	if r.Lateness, err = decodeHistogram("lateness_hdr", s.LatenessHdr, r.Latency); err != nil {
		return nil, err
	}
	if r.TLS, err = tlsResult(s.TLS, r.Latency); err != nil {
		return nil, err
	}
	if r.QUIC, err = quicResult(s.QUIC, r.Latency); err != nil {
		return nil, err
	}
	if r.WebSocket, err = webSocketResult(s.WebSocket, r.Latency); err != nil {
		return nil, err
	}
	if r.Stream, err = streamResult(s.SSE, s.Stream, r.Latency); err != nil {
		return nil, err
	}
	if r.GRPC, err = grpcResult(s.GRPC); err != nil {
		return nil, err
	}
	if s.Late != nil {
		r.Late = s.Late.Count
	}
	if n := r.Latency.TotalCount(); n != s.Requests {
		return nil, fmt.Errorf("latency_hdr holds %d values but requests is %d: the result was changed or cut", n, s.Requests)
	}
	if err := readCounts(r, s); err != nil {
		return nil, err
	}
	if r.Endpoints, err = readEndpoints(s.Endpoints); err != nil {
		return nil, err
	}
	if r.Flows, err = flowsResult(s.Flows); err != nil {
		return nil, err
	}
	for _, sec := range s.Timeline {
		r.Timeline = append(r.Timeline, result.Second{
			Second:     sec.Second,
			Requests:   sec.Requests,
			Errors:     sec.Errors,
			BytesRead:  sec.BytesRead,
			TargetRate: sec.TargetRate,
			P50us:      sec.P50us,
			P99us:      sec.P99us,
			Hist:       []byte(sec.Hdr),
		})
	}
	return r, nil
}

// readEndpoints rebuilds the endpoints of a gust load --targets run, each
// with its latency histogram.
func readEndpoints(rows []EndpointStats) ([]result.Endpoint, error) {
	var out []result.Endpoint
	for _, row := range rows {
		if row.LatencyHdr == "" {
			return nil, fmt.Errorf("endpoint %q has no latency_hdr (written by an older gust): run the agents with this one", row.Endpoint)
		}
		h, err := decodeHistogram("endpoint "+strconv.Quote(row.Endpoint)+" latency_hdr", row.LatencyHdr, nil)
		if err != nil {
			return nil, err
		}
		if n := h.TotalCount(); n != row.Count {
			return nil, fmt.Errorf("endpoint %q: latency_hdr holds %d values but count is %d: the result was changed or cut", row.Endpoint, n, row.Count)
		}
		out = append(out, result.Endpoint{Name: row.Endpoint, Requests: row.Count, Errors: row.Errors, Status5xx: row.Status5xx, Latency: h})
	}
	return out, nil
}

// readCounts fills r's status codes and errors from s.
func readCounts(r *result.Result, s Summary) error {
	for code, n := range s.Status {
		c, err := strconv.Atoi(code)
		if err != nil || c < 100 || c > 999 {
			return fmt.Errorf("status %q is not a status code", code)
		}
		r.Status[c] = n
	}
	kinds := make(map[string]result.ErrorKind)
	for _, k := range result.ErrorKinds() {
		kinds[k.String()] = k
	}
	for name, n := range s.Errors {
		k, ok := kinds[name]
		if !ok {
			return fmt.Errorf("unknown error kind %q (from a newer gust?)", name)
		}
		if n != 0 {
			r.Errors[k] = n
		}
	}
	return nil
}

// decodeHistogram decodes one of Summary's encoded histograms; an empty
// string is an empty histogram with like's settings.
func decodeHistogram(key, enc string, like *hdrhistogram.Histogram) (*hdrhistogram.Histogram, error) {
	if enc == "" && like != nil {
		return hdrhistogram.New(like.LowestTrackableValue(), like.HighestTrackableValue(), int(like.SignificantFigures())), nil
	}
	h, err := hdrhistogram.Decode([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("%s is not an encoded histogram: %v", key, err)
	}
	if h.ByteSize() > maxHistogramBytes {
		return nil, fmt.Errorf("%s is a histogram of %d significant digits up to %d: far more than gust records",
			key, h.SignificantFigures(), h.HighestTrackableValue())
	}
	return h, nil
}

// maxHistogramBytes bounds the memory of a histogram read back: gust's
// own take 190 kB (3 digits up to an hour in microseconds); this allows 4
// digits, and keeps a few bytes of input from asking for tens of megabytes.
const maxHistogramBytes = 4 << 20

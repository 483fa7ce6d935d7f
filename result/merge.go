package result

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Part is one agent's Result for Merge, with the name it is known by in
// reports and errors (a file name, say).
type Part struct {
	// Name is what reports and errors call the part.
	Name string
	// Result is the agent's result.
	Result *Result
}

// Merge combines the results of agents that each ran a share of one run
// (see Config.Shard) into one Result, exactly: latency, connect, lateness
// and TLS handshake histograms are added, and so are counters, status
// codes, errors, connections per protocol, TLS handshake counts and WebSocket counts (upgrades, messages, closes, pings, held connections); connections, loops and rates are summed. The timeline is added
// second by second, each agent's seconds placed by its Start to the
// nearest second, and each merged second's percentiles come from the sum
// of the agents' histograms for that second. The endpoints of a
// data-driven run (gust load --targets) are added by name (see
// mergeEndpoints).
//
// The merged run starts with the earliest agent and ends with the last;
// Agents lists every part (by shard, then in the order given), with Late
// and Short set for an agent that started more than maxSkew after the
// first or measured (in the open model: sent its schedule for) more than
// maxSkew less than the longest.
//
// Merge refuses parts that did not run the same load: a different URL,
// method, pipeline depth, keep-alive, load model or WebSocket messages, histograms of
// different settings (their sum would not be exact), shards of different
// counts or the same shard twice, a replay's results, a part with
// endpoints beside one without (that measured something), and a timeline
// second with responses but without its histogram (see
// Config.IntervalHistograms). Each error is one line naming the parts.
func Merge(parts []Part, maxSkew time.Duration) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("nothing to merge")
	}
	if err := checkParts(parts); err != nil {
		return nil, err
	}
	first := parts[0].Result
	out := &Result{
		URL:       first.URL,
		Method:    first.Method,
		Pipeline:  first.Pipeline,
		Stages:    first.Stages,
		KeepAlive: first.KeepAlive,
		Protocol:  first.Protocol,
		StartAt:   first.StartAt,
		Latency:   newLike(first.Latency),
		Connect:   newLike(first.Latency),
		Lateness:  newLike(first.Latency),
		Status:    make(map[int]int64),
		Errors:    make(map[ErrorKind]int64),
	}
	start, end := first.Start, first.Start.Add(first.Duration)
	for _, p := range parts {
		r := p.Result
		if r.Start.Before(start) {
			start = r.Start
		}
		if e := r.Start.Add(r.Duration); e.After(end) {
			end = e
		}
		if !r.StartAt.Equal(out.StartAt) {
			out.StartAt = time.Time{}
		}
		addShare(out, r)
	}
	// Shares of a rate that is not whole add up with rounding errors.
	out.Rate = math.Round(out.Rate*1e6) / 1e6
	out.Start, out.Duration = start, end.Sub(start)

	timeline, err := mergeTimelines(parts, start, first.Latency)
	if err != nil {
		return nil, err
	}
	out.Timeline = timeline
	out.Endpoints = mergeEndpoints(parts)
	out.Flows = mergeFlows(parts)
	out.Agents = agents(parts, start, maxSkew)
	return out, nil
}

// addShare adds r, one agent's share, to out: its counts (Add), and its
// connections, loops and rate.
func addShare(out, r *Result) {
	out.Connections += r.Connections
	out.Loops += r.Loops
	out.Rate += r.Rate
	out.Interrupted = out.Interrupted || r.Interrupted
	out.Add(r)
}

// Add adds r's counters, latency, connect and lateness histograms, status
// codes, errors, connections per protocol, TLS handshakes, WebSocket counts and gRPC statuses to out: what sums alike over a run's
// event loops and over the agents of Merge. out's histograms and maps must be made.
func (out *Result) Add(r *Result) {
	out.Requests += r.Requests
	out.BytesRead += r.BytesRead
	out.BytesWritten += r.BytesWritten
	out.Connects += r.Connects
	out.Reconnects += r.Reconnects
	out.Retried += r.Retried
	out.Late += r.Late
	for _, h := range [][2]*hdrhistogram.Histogram{{out.Latency, r.Latency}, {out.Connect, r.Connect}, {out.Lateness, r.Lateness}} {
		if h[1] != nil {
			h[0].Merge(h[1])
		}
	}
	for code, n := range r.Status {
		out.Status[code] += n
	}
	for kind, n := range r.Errors {
		out.Errors[kind] += n
	}
	if r.HTTP2 != nil {
		if out.HTTP2 == nil {
			out.HTTP2 = NewHTTP2(r.HTTP2.Streams)
		}
		out.HTTP2.add(r.HTTP2)
	}
	out.addProtocols(r)
	out.addTLS(r)
	out.addQUIC(r)
	out.addWebSocket(r)
	out.addStream(r)
	out.addGRPC(r)
}

// checkParts refuses parts that are not shares of one run.
func checkParts(parts []Part) error {
	for _, p := range parts {
		if p.Result == nil {
			return fmt.Errorf("%s: no result", p.Name)
		}
		if p.Result.Latency == nil {
			return fmt.Errorf("%s: no latency histogram", p.Name)
		}
		// A replay runs at its log's times (Speed) or says what it read
		// (Input); a --targets run of gust load has endpoints too.
		if p.Result.Speed > 0 || p.Result.Input != nil {
			return fmt.Errorf("%s is a replay's result: only gust load results can be merged", p.Name)
		}
	}
	a := parts[0]
	ar := a.Result
	for _, b := range parts[1:] {
		br := b.Result
		var what, x, y string
		switch {
		case br.URL != ar.URL:
			what, x, y = "targets", ar.URL, br.URL
		case br.Method != ar.Method:
			what, x, y = "sends", methodName(ar.Method), methodName(br.Method)
		case br.Pipeline != ar.Pipeline:
			what, x, y = "pipelines", fmt.Sprint(ar.Pipeline, " deep"), fmt.Sprint(br.Pipeline, " deep")
		case br.Protocol != ar.Protocol:
			what, x, y = "speaks", protoName(ar.Protocol), protoName(br.Protocol)
		case wsModel(br) != wsModel(ar):
			what, x, y = "sends", wsModel(ar), wsModel(br)
		case streams(br) != streams(ar):
			what, x, y = "keeps", fmt.Sprint(streams(ar), " streams per connection"), fmt.Sprint(streams(br), " streams per connection")
		case br.KeepAlive != ar.KeepAlive:
			what, x, y = "has keep-alive", onOff(ar.KeepAlive), onOff(br.KeepAlive)
		case br.Scheduled() != ar.Scheduled():
			what, x, y = "runs", model(ar), model(br)
		case br.Stages != ar.Stages:
			what, x, y = "runs the stages", ar.Stages, br.Stages
		}
		if what != "" {
			return fmt.Errorf("%s %s %s but %s %s %s: only shares of one run can be merged", a.Name, what, x, b.Name, what, y)
		}
	}
	if err := checkShards(parts); err != nil {
		return err
	}
	if err := checkEndpoints(parts); err != nil {
		return err
	}
	return checkHistograms(parts)
}

// methodName names a Result.Method for an error message: "" is a
// data-driven run's, whose requests have their own.
func methodName(m string) string {
	if m == "" {
		return "the requests of its --targets or --data-csv file"
	}
	return m
}

// protoName names a Result.Protocol for an error message.
func protoName(p string) string {
	switch p {
	case "":
		return "HTTP/1.1"
	case ProtoAuto:
		return "h2 or http/1.1 as ALPN chose (--proto auto)"
	}
	return p
}

// wsModel describes how a WebSocket run sent its messages, for comparing
// parts: "" for an HTTP run.
func wsModel(r *Result) string {
	w := r.WebSocket
	switch {
	case w == nil:
		return ""
	case w.Hold:
		return fmt.Sprintf("no messages (held, a ping every %s)", w.Ping)
	}
	kind := "binary"
	if w.Text {
		kind = "text"
	}
	over := ""
	if w.HTTP2 {
		over = " over HTTP/2"
	}
	return fmt.Sprintf("%d-byte %s messages, %d in flight, deflate %s%s", w.Size, kind, w.Inflight, onOff(w.DeflateOffered), over)
}

// streams returns r's streams per connection, 0 for HTTP/1.1.
func streams(r *Result) int {
	if r.HTTP2 == nil {
		return 0
	}
	return r.HTTP2.Streams
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func model(r *Result) string {
	if r.Scheduled() {
		return "the open model"
	}
	return "the closed model"
}

// checkShards refuses a mix of shard counts, and a shard given twice.
func checkShards(parts []Part) error {
	seen := make(map[int]string)
	a := parts[0]
	for _, p := range parts {
		s := p.Result.Shard
		if s.Count != a.Result.Shard.Count {
			return fmt.Errorf("%s is %s but %s is %s: only shares of one run can be merged",
				a.Name, shardName(a.Result.Shard), p.Name, shardName(s))
		}
		if !s.Sharded() {
			continue
		}
		if other, ok := seen[s.Index]; ok {
			return fmt.Errorf("%s and %s are both shard %s: is one result given twice?", other, p.Name, s)
		}
		seen[s.Index] = p.Name
	}
	return nil
}

func shardName(s Shard) string {
	if !s.Sharded() {
		return "a whole run"
	}
	return "shard " + s.String()
}

// histSettings are what two histograms must share to be added exactly.
type histSettings struct {
	lowest, highest, digits int64
}

func settingsOf(h *hdrhistogram.Histogram) histSettings {
	return histSettings{h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()}
}

func (s histSettings) String() string {
	return fmt.Sprintf("%d significant digits from %d to %d", s.digits, s.lowest, s.highest)
}

// checkHistograms refuses histograms whose settings differ from the first
// part's latency histogram.
func checkHistograms(parts []Part) error {
	want := settingsOf(parts[0].Result.Latency)
	for _, p := range parts {
		r := p.Result
		hists := []struct {
			name string
			h    *hdrhistogram.Histogram
		}{{"latency", r.Latency}, {"connect", r.Connect}, {"lateness", r.Lateness}}
		if r.TLS != nil {
			hists = append(hists, struct {
				name string
				h    *hdrhistogram.Histogram
			}{"handshake", r.TLS.Handshake})
		}
		if r.WebSocket != nil {
			hists = append(hists, struct {
				name string
				h    *hdrhistogram.Histogram
			}{"upgrade", r.WebSocket.Upgrade})
		}
		for _, nh := range hists {
			name, h := nh.name, nh.h
			if h == nil {
				continue
			}
			if got := settingsOf(h); got != want {
				return fmt.Errorf("%s's %s histogram has %s but %s's latency histogram has %s: they cannot be added exactly",
					p.Name, name, got, parts[0].Name, want)
			}
		}
	}
	return nil
}

// newLike returns an empty histogram with h's settings.
func newLike(h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	s := settingsOf(h)
	return hdrhistogram.New(s.lowest, s.highest, int(s.digits))
}

// mergeTimelines adds the parts' timelines second by second, each placed
// by its Start relative to start, and recomputes each second's
// percentiles from the sum of its histograms.
func mergeTimelines(parts []Part, start time.Time, like *hdrhistogram.Histogram) ([]Second, error) {
	type acc struct {
		Second
		hist *hdrhistogram.Histogram
	}
	var seconds []*acc
	want := settingsOf(like)
	for _, p := range parts {
		shift := int(math.Round(p.Result.Start.Sub(start).Seconds()))
		for _, s := range p.Result.Timeline {
			i := s.Second + shift
			if i < 0 {
				return nil, fmt.Errorf("%s: timeline second %d is negative", p.Name, s.Second)
			}
			for len(seconds) <= i {
				seconds = append(seconds, &acc{Second: Second{Second: len(seconds)}, hist: newLike(like)})
			}
			a := seconds[i]
			a.Requests += s.Requests
			a.Errors += s.Errors
			a.BytesRead += s.BytesRead
			a.TargetRate += s.TargetRate
			if len(s.Hist) == 0 {
				if s.Requests > 0 {
					return nil, fmt.Errorf("%s: timeline second %d has no histogram, so its percentiles cannot be merged (gust load -o json keeps them)", p.Name, s.Second)
				}
				continue
			}
			h, err := hdrhistogram.Decode(s.Hist)
			if err != nil {
				return nil, fmt.Errorf("%s: timeline second %d: %w", p.Name, s.Second, err)
			}
			if got := settingsOf(h); got != want {
				return nil, fmt.Errorf("%s: timeline second %d has a histogram of %s, not %s: they cannot be added exactly", p.Name, s.Second, got, want)
			}
			a.hist.Merge(h)
		}
	}
	out := make([]Second, len(seconds))
	for i, a := range seconds {
		a.P50us = a.hist.ValueAtQuantile(50)
		a.P99us = a.hist.ValueAtQuantile(99)
		enc, err := a.hist.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			return nil, fmt.Errorf("timeline second %d: %w", i, err)
		}
		a.Hist = enc
		out[i] = a.Second
	}
	return out, nil
}

package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gust-http/gust/result"
)

// CapacityDoc is the JSON document of a capacity search (gust load
// --find-max): {"capacity": {...}}. Keys are only added.
type CapacityDoc struct {
	Capacity CapacityStats `json:"capacity"`
}

// CapacityStats describes a result.Capacity.
type CapacityStats struct {
	// URL, Method and Connections are the steps' target and connection
	// pool (the first step's).
	URL         string `json:"url"`
	Method      string `json:"method"`
	Connections int    `json:"connections"`
	// SLO lists the objective's thresholds as written.
	SLO []string `json:"slo"`
	// MaxRate is the highest rate (req/s) whose step met the objective;
	// 0 when none did.
	MaxRate float64 `json:"max_rate"`
	// Stop says why the search ended: converged, max-time, no rate met
	// or interrupted.
	Stop string `json:"stop"`
	// ElapsedS is how long the search took, in seconds.
	ElapsedS float64 `json:"elapsed_s"`
	// Reruns counts the steps that ran a rate already run (Rerun).
	Reruns int `json:"reruns"`
	// Steps holds every step in the order run.
	Steps []CapacityStepStats `json:"steps"`
}

// CapacityStepStats is one step of a capacity search.
type CapacityStepStats struct {
	// Rate is the rate asked for, AchievedRPS the responses per second
	// measured.
	Rate        float64 `json:"rate"`
	AchievedRPS float64 `json:"achieved_rps"`
	// DurationS is the step's measured time.
	DurationS float64 `json:"duration_s"`
	Requests  int64   `json:"requests"`
	// Errors counts failures of every kind.
	Errors int64 `json:"errors"`
	// Latency holds the step's p50, p99 and p99.9 in microseconds.
	Latency StepLatency `json:"latency_us"`
	// Short is true when AchievedRPS fell too far short of Rate.
	Short bool `json:"short"`
	// OK is true when the step met the objective.
	OK bool `json:"ok"`
	// Rerun is true for a run of a rate already run: a miss run again to
	// tell a transient miss from a lasting one, or a bound of the search
	// settled before it ends.
	Rerun bool `json:"rerun,omitempty"`
	// Thresholds judge the step by the objective.
	Thresholds []ThresholdStats `json:"thresholds"`
}

// StepLatency is a capacity step's latency percentiles in microseconds.
type StepLatency struct {
	P50  int64 `json:"p50"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p999"`
}

// NewCapacityDoc describes c.
func NewCapacityDoc(c *result.Capacity) CapacityDoc {
	s := CapacityStats{MaxRate: c.MaxRate, Stop: c.Stop, ElapsedS: round(c.Elapsed.Seconds(), 3), SLO: []string{}, Steps: []CapacityStepStats{}}
	for _, t := range c.SLO {
		s.SLO = append(s.SLO, t.Expr)
	}
	s.Reruns = reruns(c)
	for i, st := range c.Steps {
		r := st.Result
		if i == 0 {
			s.URL, s.Method, s.Connections = r.URL, r.Method, r.Connections
		}
		l := newStats(orEmpty(r.Latency))
		s.Steps = append(s.Steps, CapacityStepStats{
			Rate: st.Rate, AchievedRPS: round(r.RPS(), 1), DurationS: round(r.Duration.Seconds(), 3),
			Requests: r.Requests, Errors: r.ErrorCount(),
			Latency: StepLatency{P50: l.P50, P99: l.P99, P999: l.P999},
			Short:   st.Short, OK: st.OK, Rerun: st.Rerun, Thresholds: newThresholdStats(st.Verdicts),
		})
	}
	return CapacityDoc{Capacity: s}
}

// CapacityFormats lists the formats WriteCapacity knows: the ones Write
// knows, with csv a row per step.
var CapacityFormats = Formats

// WriteCapacity writes a capacity search in format, one of
// CapacityFormats: text (the result and a table of steps), json
// (CapacityDoc), csv (a row per step) or html (a page with the latency
// against throughput chart).
func WriteCapacity(w io.Writer, format string, c *result.Capacity) error {
	switch format {
	case "text":
		return capacityText(w, c)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(NewCapacityDoc(c))
	case "csv":
		return capacityCSV(w, c)
	case "html":
		return capacityHTML(w, c)
	}
	return fmt.Errorf("unknown report format %q: give one of %s", format, strings.Join(CapacityFormats, ", "))
}

// capacityColumns head the steps table.
var capacityColumns = []string{"step", "rate", "achieved", "p50", "p99", "p99.9", "errors", "verdict"}

// capacityWidths are the widths of every column but the last.
var capacityWidths = []int{6, 10, 12, 9, 9, 9, 9}

// capacityCells renders step i (from 0) in capacityColumns' order.
func capacityCells(i int, s result.CapacityStep) []string {
	r := s.Result
	l := newStats(orEmpty(r.Latency))
	return []string{strconv.Itoa(i + 1), formatRate(s.Rate), formatFloat(r.RPS(), 1),
		formatMicros(float64(l.P50)), formatMicros(float64(l.P99)), formatMicros(float64(l.P999)),
		formatCount(r.ErrorCount()), stepVerdict(s)}
}

// stepVerdict is "ok", or "missed:" and what missed: the achieved share of
// the rate, each failed threshold's measured value.
func stepVerdict(s result.CapacityStep) string {
	again := ""
	if s.Rerun {
		again = " (run again)"
	}
	if s.OK {
		return "ok" + again
	}
	var why []string
	if s.Short {
		share := 0.0
		if s.Rate > 0 {
			share = s.Result.RPS() / s.Rate
		}
		why = append(why, "achieved "+formatRatio(share)+" of the rate")
	}
	for _, v := range s.Verdicts {
		if !v.OK {
			name := strings.TrimSpace(v.Expr[:max(0, strings.IndexAny(v.Expr, "<>"))])
			why = append(why, name+" "+verdictValue(v))
		}
	}
	return "missed" + again + ": " + strings.Join(why, ", ")
}

// CapacityStepLine describes step i (from 0) on one line, as gust load
// --find-max prints each step while it searches.
func CapacityStepLine(i int, s result.CapacityStep) string {
	c := capacityCells(i, s)
	return fmt.Sprintf("step %s: %s req/s: achieved %s, p50 %s, p99 %s, p99.9 %s, %s errors: %s", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
}

// capacityFacts are the text and HTML summary's lines: target, objective,
// capacity and how the search ended.
func capacityFacts(c *result.Capacity) []fact {
	var slo []string
	for _, t := range c.SLO {
		slo = append(slo, t.Expr)
	}
	facts := []fact{}
	if len(c.Steps) > 0 {
		r := c.Steps[0].Result
		facts = append(facts,
			fact{"Target", strings.TrimSpace(r.Method + " " + r.URL)},
			fact{"Load", fmt.Sprintf("open model, %s, each step %s after its warmup",
				plural(int64(r.Connections), "connection", "connections"), formatDuration(r.Duration))})
	}
	facts = append(facts, fact{"Objective", strings.Join(slo, ", ")})
	found := "no rate met the objective"
	if c.MaxRate > 0 {
		found = formatRate(c.MaxRate) + " req/s met the objective"
	}
	how := map[string]string{
		result.StopConverged:   "converged",
		result.StopMaxTime:     "stopped at --max-time",
		result.StopNoRate:      "the lowest rate missed",
		result.StopInterrupted: "interrupted",
	}[c.Stop]
	if how == "" {
		how = c.Stop
	}
	steps := plural(int64(len(c.Steps)), "step", "steps")
	if n := reruns(c); n > 0 {
		steps += fmt.Sprintf(", %d of them reruns,", n)
	}
	facts = append(facts, fact{"Capacity", fmt.Sprintf("%s (%s after %s in %s)",
		found, how, steps, formatDuration(c.Elapsed))})
	return facts
}

// reruns counts c's steps that ran a rate already run.
func reruns(c *result.Capacity) int {
	n := 0
	for _, s := range c.Steps {
		if s.Rerun {
			n++
		}
	}
	return n
}

func capacityText(w io.Writer, c *result.Capacity) error {
	var b strings.Builder
	for _, f := range capacityFacts(c) {
		line(&b, f.label, f.value)
	}
	b.WriteByte('\n')
	row := func(cells []string) string {
		var r strings.Builder
		for i, cell := range cells[:len(cells)-1] {
			fmt.Fprintf(&r, "%-*s", capacityWidths[i], cell)
		}
		r.WriteString(cells[len(cells)-1])
		return r.String()
	}
	line(&b, "Steps", row(capacityColumns))
	for i, s := range c.Steps {
		line(&b, "", row(capacityCells(i, s)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func capacityCSV(w io.Writer, c *result.Capacity) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"step", "rate", "achieved_rps", "requests", "errors", "p50_us", "p99_us", "p999_us", "short", "ok"})
	for i, s := range NewCapacityDoc(c).Capacity.Steps {
		cw.Write([]string{strconv.Itoa(i + 1), strconv.FormatFloat(s.Rate, 'f', -1, 64), strconv.FormatFloat(s.AchievedRPS, 'f', -1, 64),
			strconv.FormatInt(s.Requests, 10), strconv.FormatInt(s.Errors, 10),
			strconv.FormatInt(s.Latency.P50, 10), strconv.FormatInt(s.Latency.P99, 10), strconv.FormatInt(s.Latency.P999, 10),
			strconv.FormatBool(s.Short), strconv.FormatBool(s.OK)})
	}
	cw.Flush()
	return cw.Error()
}

package result

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// A data-driven gust load run (--targets) has endpoints, one per request
// of its targets file, and so has each of its shards. Merge adds them by
// name: nothing in a result says which file a run read, so the names are
// what ties the shards' endpoints together. A shard may lack an endpoint
// another has (its share never picked a rare request), so the merged run
// has every name any part has; two requests of one file with the same
// name are one row, as they would be to a reader of the report.

// checkEndpoints refuses parts of which one has endpoints and another,
// though it measured something, has none (a --targets run and a run of
// one request), and endpoint histograms whose settings differ.
func checkEndpoints(parts []Part) error {
	var with *Part
	for i := range parts {
		if len(parts[i].Result.Endpoints) > 0 {
			with = &parts[i]
			break
		}
	}
	if with == nil {
		return nil
	}
	for _, p := range parts {
		r := p.Result
		// A share that measured nothing has no endpoints to list.
		if len(r.Endpoints) == 0 && (r.Requests > 0 || r.ErrorCount() > 0) {
			return fmt.Errorf("%s has per-endpoint counts (gust load --targets) but %s has none: only shares of one run can be merged",
				with.Name, p.Name)
		}
	}
	var want histSettings
	var wantName, wantEndpoint string
	for _, p := range parts {
		for _, ep := range p.Result.Endpoints {
			if empty(ep.Latency) {
				continue // adds nothing, whatever its settings
			}
			got := settingsOf(ep.Latency)
			if wantName == "" {
				want, wantName, wantEndpoint = got, p.Name, ep.Name
				continue
			}
			if got != want {
				return fmt.Errorf("%s's histogram of %q has %s but %s's of %q has %s: they cannot be added exactly",
					p.Name, ep.Name, got, wantName, wantEndpoint, want)
			}
		}
	}
	return nil
}

// mergeEndpoints adds the parts' endpoints by name: requests, errors and
// 5xx summed, latency histograms added. They are listed in the first
// part's order, then each name no earlier part had in the order it
// appears. Parts without endpoints give nil.
func mergeEndpoints(parts []Part) []Endpoint {
	like := firstEndpointHistogram(parts)
	var out []Endpoint
	at := make(map[string]int)
	for _, p := range parts {
		for _, ep := range p.Result.Endpoints {
			i, ok := at[ep.Name]
			if !ok {
				i = len(out)
				at[ep.Name] = i
				out = append(out, Endpoint{Name: ep.Name, Latency: newLike(like)})
			}
			m := &out[i]
			m.Requests += ep.Requests
			m.Errors += ep.Errors
			m.Status5xx += ep.Status5xx
			if !empty(ep.Latency) {
				m.Latency.Merge(ep.Latency)
			}
		}
	}
	return out
}

// firstEndpointHistogram returns the parts' first endpoint histogram that
// holds values (checkEndpoints saw that all such have its settings), or
// an empty one from NewEndpointHistogram when none does.
func firstEndpointHistogram(parts []Part) *hdrhistogram.Histogram {
	for _, p := range parts {
		for _, ep := range p.Result.Endpoints {
			if !empty(ep.Latency) {
				return ep.Latency
			}
		}
	}
	return NewEndpointHistogram()
}

// empty reports whether h is nil or holds no values.
func empty(h *hdrhistogram.Histogram) bool { return h == nil || h.TotalCount() == 0 }

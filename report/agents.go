package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gust-http/gust/result"
)

// agentColumns head the agents table of a merged result; the name comes
// last because its width varies.
var agentColumns = []string{"shard", "start", "duration", "responses", "errors", "p99", "flags", "name"}

// agentColumnWidths are the widths of every column but the last.
var agentColumnWidths = []int{7, 10, 10, 11, 9, 9, 20}

// agentFlags names what is wrong with an agent's share: "late", "short",
// "interrupted", or "" when nothing is.
func agentFlags(a result.Agent) string {
	var flags []string
	if a.Late {
		flags = append(flags, "late")
	}
	if a.Short {
		flags = append(flags, "short")
	}
	if a.Interrupted {
		flags = append(flags, "interrupted")
	}
	return strings.Join(flags, ", ")
}

// agentCells renders one agent's row, in agentColumns' order.
func agentCells(a result.Agent) []string {
	shard := a.Shard.String()
	if shard == "" {
		shard = "-"
	}
	p99 := "-"
	if a.Requests > 0 {
		p99 = formatMicros(float64(a.P99us))
	}
	flags := agentFlags(a)
	if flags == "" {
		flags = "-"
	}
	return []string{shard, "+" + formatDuration(a.Offset), formatDuration(a.Duration),
		formatCount(a.Requests), formatCount(a.Errors), p99, flags, a.Name}
}

// missingShards lists the shards none of agents ran, when all of them are
// shares of the same number: e.g. ["2/4", "3/4"].
func missingShards(agents []result.Agent) []string {
	if len(agents) == 0 || !agents[0].Shard.Sharded() {
		return nil
	}
	n := agents[0].Shard.Count
	var missing []string
	for i := 0; i < n; i++ {
		if !slices.ContainsFunc(agents, func(a result.Agent) bool { return a.Shard.Index == i }) {
			missing = append(missing, result.Shard{Index: i, Count: n}.String())
		}
	}
	return missing
}

// agentsNote sums up the agents in one line: how many, how many are
// flagged, and which shards are missing.
func agentsNote(agents []result.Agent) string {
	note := plural(int64(len(agents)), "agent", "agents")
	flagged := 0
	for _, a := range agents {
		if a.Flagged() {
			flagged++
		}
	}
	if flagged > 0 {
		note += fmt.Sprintf(", %d flagged", flagged)
	}
	if missing := missingShards(agents); len(missing) > 0 {
		note += "; missing " + plural(int64(len(missing)), "shard", "shards") + ": " + strings.Join(missing, ", ")
	}
	return note
}

// writeAgents writes the table of a merged result's agents.
func writeAgents(b *strings.Builder, agents []result.Agent) {
	row := func(cells []string) string {
		var s strings.Builder
		for i, c := range cells {
			if i == len(cells)-1 {
				s.WriteString(c)
				break
			}
			fmt.Fprintf(&s, "%-*s", agentColumnWidths[i], c)
		}
		return s.String()
	}
	line(b, "Agents", agentsNote(agents))
	line(b, "", row(agentColumns))
	for _, a := range agents {
		line(b, "", row(agentCells(a)))
	}
}

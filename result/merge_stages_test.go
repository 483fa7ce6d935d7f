package result

import (
	"strings"
	"testing"
	"time"
)

// TestMergeAddsTheStagesTargets merges two shards of a run in stages:
// each second's target rates add up, the stages are kept, and shards of
// other stages are refused.
func TestMergeAddsTheStagesTargets(t *testing.T) {
	start := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	shard := func(i int, stages string, targets ...float64) *Result {
		r := agentResult(Shard{Index: i, Count: 2}, start, [][]int64{{100, 200}, {300}})
		r.Rate, r.Stages = 0, stages
		for s := range r.Timeline {
			r.Timeline[s].TargetRate = targets[s]
		}
		return r
	}
	out, err := Merge([]Part{{"a", shard(0, "1s:100,1s:300", 50, 200)}, {"b", shard(1, "1s:100,1s:300", 50, 200)}}, DefaultMaxSkew)
	if err != nil {
		t.Fatal(err)
	}
	if out.Stages != "1s:100,1s:300" || !out.Scheduled() {
		t.Errorf("merged stages %q, scheduled %v; want the run's stages, scheduled", out.Stages, out.Scheduled())
	}
	if len(out.Timeline) != 2 || out.Timeline[0].TargetRate != 100 || out.Timeline[1].TargetRate != 400 {
		t.Errorf("merged timeline %+v, want targets 100 and 400", out.Timeline)
	}
	_, err = Merge([]Part{{"a", shard(0, "1s:100,1s:300", 50, 200)}, {"b", shard(1, "2s:100", 50, 200)}}, DefaultMaxSkew)
	if err == nil || !strings.Contains(err.Error(), "a runs the stages 1s:100,1s:300 but b runs the stages 2s:100") {
		t.Errorf("err = %v, want shards of other stages refused", err)
	}
}

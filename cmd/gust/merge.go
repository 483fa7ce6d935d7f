package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// mergeFlags holds gust merge's command line.
type mergeFlags struct {
	output  string
	hdrLog  string
	maxSkew time.Duration
	judge   thresholdFlags
}

func newMergeCmd() *cobra.Command {
	f := &mergeFlags{}
	cmd := &cobra.Command{
		Use:   "merge [flags] FILE...",
		Short: "Merge the -o json results of gust load agents into one report",
		Long: `Merge the results of gust load agents that each ran a share of one run
(gust load --shard I/N ... -o json) into one report, as if one generator had
run it all: latency, connect and lateness histograms are added exactly, the
timelines second by second, status codes and errors summed. The shards of a
gust load --targets run are added endpoint by endpoint, by name.

Each FILE holds one or more results, one after another; - reads standard
input, so the logs of several Kubernetes pods can be piped in. The report
ends with a row per agent; an agent that began measuring more than
--max-skew after the first (late) or measured for that much less than the
longest (short; with --rate, also one that sent that much less of its
schedule, as when its link was cut) is flagged, and so are missing shards.

Results of different runs (another URL, method, pipeline depth, keep-alive,
load model, shard count, or histogram precision; a --targets shard beside one
without endpoints) and gust replay's results are refused.

--threshold judges the merged result, as gust load --threshold judges one
run: percentiles come from the agents' histograms added, not from an average
of their percentiles. The report lists each threshold with its measured value;
the exit status is 99 when one failed.`,
		Example: `  gust merge agent-0.json agent-1.json agent-2.json agent-3.json
  kubectl logs -l job-name=gust-load --tail=-1 | gust merge -o html - > report.html
  gust merge --threshold 'p99<200ms' --threshold 'error_rate<0.1%' --fail-status 5xx agent-*.json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("merge: give the result files of gust load -o json, or - for standard input (see 'gust merge --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(cmd, f, args)
		},
	}
	fl := cmd.Flags()
	fl.SortFlags = false
	fl.StringVarP(&f.output, "output", "o", "text", "report format: text, json, csv (the per-second timeline) or html")
	fl.StringVar(&f.hdrLog, "hdr-log", "", "also write the merged HdrHistogram interval log to this file")
	fl.DurationVar(&f.maxSkew, "max-skew", result.DefaultMaxSkew, "flag agents that start this much after the first, or measure this much less than the longest")
	addThresholdFlags(fl, &f.judge)
	return cmd
}

func runMerge(cmd *cobra.Command, f *mergeFlags, files []string) error {
	if err := report.CheckFormat(f.output, report.Formats); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if err := f.judge.parse(); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	switch {
	case f.maxSkew < 0:
		return fmt.Errorf("merge: --max-skew must not be negative, got %s", f.maxSkew)
	case countOf(files, "-") > 1:
		return errors.New("merge: - is given twice; standard input can be read once")
	}
	var parts []result.Part
	for _, file := range files {
		var data []byte
		var err error
		name := file
		if file == "-" {
			name = "stdin"
			data, err = io.ReadAll(cmd.InOrStdin())
		} else {
			data, err = os.ReadFile(file)
		}
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		ps, err := report.ReadResults(data, name)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		parts = append(parts, ps...)
	}
	res, err := result.Merge(parts, f.maxSkew)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	if f.hdrLog != "" {
		if err := writeFile(f.hdrLog, func(w io.Writer) error { return report.HdrLog(w, res) }); err != nil {
			return fmt.Errorf("merge: --hdr-log: %w", err)
		}
	}
	f.judge.judge(res)
	if err := report.Write(cmd.OutOrStdout(), f.output, res); err != nil {
		return err
	}
	return f.judge.verdict(cmd.ErrOrStderr(), res)
}

// countOf returns how many of list are s.
func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}

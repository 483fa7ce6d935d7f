package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/result"
)

// exitThresholds is the exit status of a run whose thresholds failed, as
// in k6: CI tells it from a run that could not be made (1 or 2).
const exitThresholds = 99

// thresholdFlags are --threshold and --fail-status, shared by gust load
// and gust merge: conditions on the whole run that set the exit status.
type thresholdFlags struct {
	exprs      []string
	failStatus string
	thresholds []result.Threshold
	fail       result.StatusSet
}

func addThresholdFlags(fl *pflag.FlagSet, f *thresholdFlags) {
	fl.StringArrayVar(&f.exprs, "threshold", nil, "fail the run (exit status 99) unless this holds over the whole run, e.g. p99<250ms, p99.9<1s, mean<20ms, error_rate<0.1%, rps>=1000, late_rate<1%; with --flow checks>99.9%, step:login p99<200ms, iteration p95<2s; on streamed answers first_event p99<50ms, gap p99<20ms, first_byte p95<10ms (repeatable)")
	fl.StringVar(&f.failStatus, "fail-status", "", "count responses with these statuses as failed for error_rate: codes, classes or ranges, e.g. 5xx or 429,5xx")
}

// parse reads the expressions and the status set; a bad one is an error of
// one line, before anything runs.
func (f *thresholdFlags) parse() error {
	ts, err := result.ParseThresholds(f.exprs)
	if err != nil {
		return err // it names the expression
	}
	fail, err := result.ParseStatusSet(f.failStatus)
	if err != nil {
		return fmt.Errorf("--fail-status: %w", err)
	}
	f.thresholds, f.fail = ts, fail
	return nil
}

// has reports whether any threshold measures m.
func (f *thresholdFlags) has(m result.Metric) bool {
	for _, t := range f.thresholds {
		if t.Metric == m {
			return true
		}
	}
	return false
}

// judge puts the verdicts into r, for its report.
func (f *thresholdFlags) judge(r *result.Result) {
	if len(f.thresholds) > 0 {
		r.Thresholds = result.Judge(r, f.thresholds, f.fail)
	}
}

// verdict returns exit status 99, after a line on stderr, when one of r's
// thresholds failed; nil otherwise.
func (f *thresholdFlags) verdict(stderr io.Writer, r *result.Result) error {
	failed := 0
	for _, v := range r.Thresholds {
		if !v.OK {
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	fmt.Fprintf(stderr, "gust: %d of %d thresholds failed (exit status %d)\n", failed, len(r.Thresholds), exitThresholds)
	return exitError{code: exitThresholds}
}

// check parses the flags and refuses what gust load's run cannot measure:
// late_rate in the closed model.
func (f *thresholdFlags) check(cfg load.Config) error {
	if err := f.parse(); err != nil {
		return err
	}
	if f.has(result.MetricLateRate) && cfg.Rate <= 0 && len(cfg.Stages) == 0 {
		return errors.New("--threshold late_rate needs the open model (--rate, -q or --stages): a closed run sends nothing late")
	}
	return nil
}

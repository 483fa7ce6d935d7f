package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/load/flow"
	"github.com/gust-http/gust/reqdata"
)

// flowFlags are gust load's user journeys: --flow FILE runs its steps as
// virtual users sharing the connections: --vus of them looping (closed;
// --stages ramps how many are busy), or iterations begun at
// --iterations-rate (open).
type flowFlags struct {
	file       string
	vus        int
	iterations int64
	rate       float64
	dataPer    string
	fl         *pflag.FlagSet
}

func addFlowFlags(fl *pflag.FlagSet, f *flowFlags) {
	f.fl = fl
	fl.StringVar(&f.file, "flow", "", "run user journeys from this YAML or JSON file: steps with captures, checks and think times")
	fl.IntVar(&f.vus, "vus", 0, "with --flow, the virtual users (default -c); with --stages, the most the stages ask for; they share the -c connections (default --vus, at most 1,000)")
	fl.Int64Var(&f.iterations, "iterations", 0, "with --flow, stop once this many iterations have run (over every user)")
	fl.Float64Var(&f.rate, "iterations-rate", 0, "with --flow, open model: iterations begun per second in total, each by a free user")
	fl.StringVar(&f.dataPer, "data-per", "user", "with --flow and --data-csv, a row per user or per iteration")
}

// maxFlowConnections is how many connections a flow's users share when
// -c is not given: one per user up to it. A thousand keep-alive
// connections carry tens of thousands of requests a second, enough for
// 100,000 users thinking seconds between steps, within any file limit.
const maxFlowConnections = 1000

// flowConnections returns the connections users share: -c if given (no
// more than the users: one would stay idle), else one per user up to
// maxFlowConnections.
func flowConnections(users, c int, given bool) int {
	if given {
		return max(min(c, users), 1)
	}
	return max(min(users, maxFlowConnections), 1)
}

// given reports whether --flow was.
func (f *flowFlags) given() bool { return f.file != "" }

// apply makes cfg a run of the flow file; lf is gust load's whole command
// line, whose --data-csv gives the flow its variables.
func (f *flowFlags) apply(cfg *load.Config, lf *loadFlags) error {
	if !f.given() {
		for _, name := range []string{"vus", "iterations", "iterations-rate", "data-per"} {
			if f.fl.Changed(name) {
				return fmt.Errorf("--%s needs --flow", name)
			}
		}
		return nil
	}
	switch {
	case lf.reqData.targets != "":
		return errors.New("--flow sends its own steps: drop --targets")
	case lf.data != "" || lf.dataFile != "" || cfg.Method != "GET":
		return errors.New("--flow gives each step its method and body: drop -m, -d and -D")
	case lf.rate > 0 || lf.qps > 0 || lf.requests > 0:
		return errors.New("--flow counts iterations, not requests: use --iterations-rate and --iterations instead of --rate, -q and -n")
	case f.vus < 0 || f.iterations < 0 || f.rate < 0:
		return errors.New("--vus, --iterations and --iterations-rate must not be negative")
	case f.dataPer != "user" && f.dataPer != "iteration":
		return fmt.Errorf("--data-per %q: use user or iteration", f.dataPer)
	case lf.find.on:
		return errors.New("--find-max searches a rate of requests: it does not run a --flow")
	case f.rate > 0 && len(cfg.Stages) > 0:
		return errors.New("--stages ramp the busy users of the closed model: drop --iterations-rate")
	}
	src, err := os.ReadFile(f.file)
	if err != nil {
		return fmt.Errorf("--flow: %w", err)
	}
	opts := flow.Options{File: f.file, PerIteration: f.dataPer == "iteration"}
	if u, err := url.Parse(cfg.URL); err == nil {
		opts.Host = u.Host // where a step's redirects may lead
	}
	for _, h := range cfg.Header {
		if !strings.EqualFold(h[0], "Host") { // the engine sends -H Host: as every request's Host
			opts.Header = append(opts.Header, h)
		} else {
			opts.Host = h[1]
		}
	}
	if csv := lf.reqData.csv; csv != "" {
		file, err := os.Open(csv)
		if err != nil {
			return fmt.Errorf("--data-csv: %w", err)
		}
		data, err := reqdata.ReadCSV(file, csv)
		file.Close()
		if err != nil {
			return err
		}
		opts.Columns, opts.Rows = data.Columns, data.Rows
	}
	program, err := flow.Compile(src, opts)
	if err != nil {
		return err // it names the file, line and field
	}
	run := &load.FlowRun{Flow: program, Iterations: f.iterations, IterationRate: f.rate}
	run.Users = f.vus
	if len(cfg.Stages) > 0 {
		run.Stages, cfg.Stages = cfg.Stages, nil // users, not a rate
		cfg.Duration = 0
		for _, st := range run.Stages {
			cfg.Duration += st.Duration
		}
		peak := 0
		for _, st := range run.Stages {
			peak = max(peak, int(st.Target+0.5))
		}
		run.Users = max(f.vus, peak, 1)
	} else if run.Users == 0 {
		run.Users = cfg.Connections
	}
	cfg.Connections = flowConnections(run.Users, cfg.Connections, f.fl.Changed("connections"))
	if f.iterations > 0 && lf.duration == 0 && len(run.Stages) == 0 {
		cfg.Duration = 0 // until the iterations are done
	}
	cfg.Flow = run
	return nil
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/reqdata"
)

// dataFlags are gust load's request data: --targets (requests from a
// file) and --data-csv (rows for {{column}} placeholders), made into a
// load.DataSource.
type dataFlags struct {
	targets       string
	targetsFormat string
	targetsOrder  string
	csv           string
	dataOrder     string
	loop          bool
	seed          uint64
	fl            *pflag.FlagSet // to tell a given --seed from the default

	src *load.DataSource // after apply, for the note on used-up rows
}

func addDataFlags(fl *pflag.FlagSet, f *dataFlags) {
	f.fl = fl
	fl.StringVar(&f.targets, "targets", "", "send the requests of this file instead of URL's one: a line each (METHOD URL [weight=N] [@FILE|BODY], header fields on the lines below) or JSON lines; URL names the server")
	fl.StringVar(&f.targetsFormat, "targets-format", "auto", "--targets file format: auto (JSON if the first request starts with {), lines or json")
	fl.StringVar(&f.targetsOrder, "targets-order", "weighted", "how --targets requests are picked: weighted (interleaved by weight), seq (in file order) or random (by weight, see --seed)")
	fl.StringVar(&f.csv, "data-csv", "", "CSV file whose first line names columns for {{column}} placeholders in the URL, -H, -d and --targets; one row per request")
	fl.StringVar(&f.dataOrder, "data-order", "seq", "how --data-csv rows are taken: seq or random (shuffled each pass)")
	fl.BoolVar(&f.loop, "data-loop", false, "start the --data-csv rows again when used up (without it the run ends there)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed for --targets-order random and --data-order random (default: a new one each run)")
}

// given reports whether any request data was asked for.
func (f *dataFlags) given() bool { return f.targets != "" || f.csv != "" }

// apply makes cfg's requests a DataSource when --targets or --data-csv is
// given: cfg's method, header fields and body (the flags') are the one
// request without --targets; stopGiven is whether -n or -z was.
func (f *dataFlags) apply(cfg *load.Config, rawURL string, stopGiven, bodyGiven bool) error {
	if !f.given() {
		for _, name := range []string{"targets-format", "targets-order", "data-order", "data-loop", "seed"} {
			if f.fl.Changed(name) {
				return fmt.Errorf("--%s needs --targets or --data-csv", name)
			}
		}
		return nil
	}
	switch {
	case f.targets == "" && f.fl.Changed("targets-order"):
		return errors.New("--targets-order needs --targets")
	case f.csv == "" && (f.loop || f.fl.Changed("data-order")):
		return errors.New("--data-loop and --data-order need --data-csv")
	case f.targets != "" && bodyGiven:
		return errors.New("with --targets, bodies come from the targets file: drop -d/-D")
	case f.targets != "" && cfg.Method != "GET":
		return errors.New("with --targets, methods come from the targets file: drop -m")
	case cfg.DisableKeepAlive:
		return errors.New("--targets and --data-csv keep their connections: drop --disable-keepalive")
	case cfg.WebSocket != (load.WebSocketConfig{}) || strings.HasPrefix(rawURL, "ws"):
		return errors.New("--targets and --data-csv are for http:// and https:// URLs")
	}
	order, err := parseOrder("--targets-order", f.targetsOrder, "weighted")
	if err != nil {
		return err
	}
	rowOrder, err := parseOrder("--data-order", f.dataOrder, "")
	if err != nil {
		return err
	}
	origin, target, err := reqdata.SplitURL(rawURL)
	if err != nil {
		return err
	}
	dc := load.DataConfig{Order: order, RowOrder: rowOrder, Loop: f.loop, Seed: f.seed,
		Host: origin[strings.Index(origin, "://")+3:], Shard: cfg.Shard}
	if !f.fl.Changed("seed") {
		dc.Seed = uint64(time.Now().UnixNano())
	}
	if f.csv != "" {
		file, err := os.Open(f.csv)
		if err != nil {
			return fmt.Errorf("--data-csv: %w", err)
		}
		dc.Data, err = reqdata.ReadCSV(file, f.csv)
		file.Close()
		if err != nil {
			return err
		}
	}
	if f.targets != "" {
		if dc.Requests, err = f.readTargets(origin); err != nil {
			return err
		}
		for i := range dc.Requests { // -H applies to every request, first
			t := &dc.Requests[i]
			t.Header = append(append([][2]string(nil), cfg.Header...), t.Header...)
		}
	} else {
		dc.Requests = []load.RequestTemplate{{Method: cfg.Method, Target: target, Header: cfg.Header, Body: string(cfg.Body)}}
	}
	if f.src, err = load.NewDataSource(dc); err != nil {
		return err
	}
	cfg.Source = f.src
	cfg.URL = origin + "/"
	if f.csv != "" && !f.loop && !stopGiven {
		cfg.Duration = 0 // until the rows are used up
	}
	return nil
}

func (f *dataFlags) readTargets(origin string) ([]load.RequestTemplate, error) {
	format, err := reqdata.ParseFormat(f.targetsFormat)
	if err != nil {
		return nil, fmt.Errorf("--targets-format: %w", err)
	}
	file, err := os.Open(f.targets)
	if err != nil {
		return nil, fmt.Errorf("--targets: %w", err)
	}
	defer file.Close()
	return reqdata.ParseTargets(file, reqdata.Options{Name: f.targets, Format: format, Origin: origin, ReadFile: os.ReadFile})
}

func parseOrder(flag, s, weighted string) (load.Order, error) {
	switch s {
	case "seq":
		return load.SequentialOrder, nil
	case "random":
		return load.RandomOrder, nil
	case weighted:
		if s != "" {
			return load.WeightedOrder, nil
		}
	}
	if weighted != "" {
		return 0, fmt.Errorf("%s %q: use weighted, seq or random", flag, s)
	}
	return 0, fmt.Errorf("%s %q: use seq or random", flag, s)
}

// note says on w when the run ended because the rows were used up.
func (f *dataFlags) note(w io.Writer) {
	if f.src == nil {
		return
	}
	if n, ranOut := f.src.RowsUsed(); ranOut {
		fmt.Fprintf(w, "load: the run ended when the rows of %s were used up (%d sent; --data-loop starts them again)\n", f.csv, n)
	}
}

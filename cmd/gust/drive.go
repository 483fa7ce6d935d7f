package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/gust-http/gust/load"
	"github.com/gust-http/gust/report"
	"github.com/gust-http/gust/result"
)

// driveOptions are the run-time flags gust load and gust replay share.
type driveOptions struct {
	quiet      bool   // no progress line
	cpuProfile string // file for a CPU profile of gust itself
	hdrLog     string // file for the HdrHistogram interval log
}

// drive runs cfg the way both generator commands do: a progress line on a
// terminal, an optional CPU profile, Ctrl-C ending the run with its
// report, and the HdrHistogram log written afterwards. Errors are prefixed
// with name.
func drive(cmd *cobra.Command, name string, cfg load.Config, o driveOptions) (*result.Result, error) {
	stderr := cmd.ErrOrStderr()
	var progress *progressLine
	if !o.quiet && isTerminal(stderr) {
		progress = &progressLine{w: stderr}
		cfg.Progress = progress.update
	}
	if o.cpuProfile != "" {
		prof, err := os.Create(o.cpuProfile)
		if err != nil {
			return nil, fmt.Errorf("%s: --cpuprofile: %w", name, err)
		}
		defer prof.Close()
		if err := pprof.StartCPUProfile(prof); err != nil {
			return nil, fmt.Errorf("%s: --cpuprofile: %w", name, err)
		}
		defer pprof.StopCPUProfile()
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := load.Run(ctx, cfg)
	if progress != nil {
		progress.clear()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if o.hdrLog != "" {
		if err := writeFile(o.hdrLog, func(w io.Writer) error { return report.HdrLog(w, res) }); err != nil {
			return nil, fmt.Errorf("%s: --hdr-log: %w", name, err)
		}
	}
	return res, nil
}

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gust-http/gust/load"
)

// exitError carries a process exit code through cobra's error path.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "gust",
		Short:         "HTTP performance at high concurrency: load generator, target server, benchmark lab",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Suggestions span several lines; errors here are one line.
		DisableSuggestions: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%s: %w (see '%s --help')", c.Name(), err, c.CommandPath())
	})
	root.AddCommand(newLoadCmd(), newMergeCmd(), newServeCmd(), newReplayCmd(), newBenchCmd(), newFlowCmd())
	return root
}

func main() {
	err := newRootCmd().Execute()
	if err == nil {
		return
	}
	var ee exitError
	if errors.As(err, &ee) {
		os.Exit(ee.code)
	}
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown command") {
		msg += " (see 'gust --help')"
	}
	fmt.Fprintln(os.Stderr, "gust:", msg)
	os.Exit(exitCode(err))
}

// exitCode is the exit status of a command that failed with err: 1 when
// the target was reached but refused (a TLS handshake: a certificate not
// trusted, no shared version), 2 for every other error.
func exitCode(err error) int {
	var he *load.HandshakeError
	if errors.As(err, &he) {
		return 1
	}
	return 2
}

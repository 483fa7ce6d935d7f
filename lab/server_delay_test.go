package lab

import (
	"strings"
	"testing"
	"time"
)

// TestDelayCellsNeedADelay: a server whose command cannot wait (nginx, a
// --server without {delay}) gets an error in a delay cell, not a rate far
// above the cell's ideal that reads as a result.
func TestDelayCellsNeedADelay(t *testing.T) {
	s := Server{Name: "nginx", Command: "nginx.sh {mode} {addr} {root}"}
	if _, err := s.commandLine("a:1", "", 2*time.Second, ModeHTTP1, ""); err == nil || !strings.Contains(err.Error(), "cannot wait") {
		t.Errorf("a delay cell: %v, want a refusal", err)
	}
	if got, err := s.commandLine("a:1", "", 0, ModeHTTP1, ""); err != nil || got != "nginx.sh http1 a:1 " {
		t.Errorf("without a delay: %q, %v", got, err)
	}
}

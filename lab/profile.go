package lab

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// profileTopN is how many entries of pprof -top -cum a cell keeps.
const profileTopN = 15

// captureProfile waits for the warmup, then fetches a CPU profile of the
// measured part from the server's /debug/pprof/profile into dir and
// returns its path.
func captureProfile(ctx context.Context, debug, dir, name string, sc Scenario) (string, error) {
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case <-time.After(time.Duration(sc.Warmup)):
	}
	secs := max(1, int(time.Duration(sc.Duration)/time.Second))
	client := &http.Client{Timeout: time.Duration(secs)*time.Second + 10*time.Second}
	req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", debug, secs), nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("profile: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("profile: %s", resp.Status)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".pb.gz")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// profileTop returns the first entries of `go tool pprof -top -cum`.
func profileTop(path string) ([]string, error) {
	out, err := exec.Command("go", "tool", "pprof", "-top", "-cum", fmt.Sprintf("-nodecount=%d", profileTopN), path).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof: %w", err)
	}
	var top []string
	table := false
	for line := range strings.SplitSeq(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "flat ") {
			table = true // keep the column header
		}
		if table && strings.TrimSpace(line) != "" {
			top = append(top, strings.TrimRight(line, " "))
		}
	}
	return top, nil
}

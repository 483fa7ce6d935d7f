package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLoadJobIsScraped checks that the Job's pods are annotated for
// Prometheus on the port and path the agents serve their metrics on.
func TestLoadJobIsScraped(t *testing.T) {
	job := filepath.Join(deployDir, "k8s/load/job.yaml")
	ann := yamlBlock(t, job, "annotations")
	var addr, linger string
	for _, a := range yamlList(t, job, "args") {
		if v, ok := strings.CutPrefix(a, "--metrics-addr="); ok {
			addr = v
		}
		if v, ok := strings.CutPrefix(a, "--metrics-linger="); ok {
			linger = v
		}
	}
	_, port, ok := strings.Cut(addr, ":")
	if !ok || port == "" {
		t.Fatalf("the agents' args have --metrics-addr=%q, want :PORT", addr)
	}
	if linger == "" {
		t.Error("the agents do not linger (--metrics-linger): the last scrape would miss the end of the run")
	}
	want := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": port, "prometheus.io/path": "/metrics"}
	for k, v := range want {
		if ann[k] != v {
			t.Errorf("pod annotation %s = %q, want %q (annotations %v)", k, ann[k], v, ann)
		}
	}
	if got := yamlInt(t, job, "containerPort"); strconv.Itoa(got) != port {
		t.Errorf("containerPort %d, want the metrics port %s", got, port)
	}
}

// yamlBlock returns the "key: value" lines indented under the first
// "key:" line, up to the first line indented no deeper than it.
func yamlBlock(t *testing.T, path, key string) map[string]string {
	t.Helper()
	lines := readLines(t, path)
	for i, l := range lines {
		if strings.TrimSpace(l) != key+":" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		m := map[string]string{}
		for _, item := range lines[i+1:] {
			if len(item)-len(strings.TrimLeft(item, " ")) <= indent {
				break
			}
			k, v, _ := strings.Cut(strings.TrimSpace(item), ": ")
			m[k] = unquote(t, v)
		}
		return m
	}
	t.Fatalf("%s has no %s: block", path, key)
	return nil
}

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// sharedRef is how a kind's schema refers to the shared definitions.
const sharedRef = "/api/_definitions.json#/$defs/"

// localRef is how a standalone schema refers to its own definitions.
const localRef = "#/$defs/"

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: standalone SRC_DIR DST_DIR KIND...  (KIND as in job-batch-v1)")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintln(os.Stderr, "standalone:", err)
		os.Exit(1)
	}
}

func run(src, dst string, kinds []string) error {
	var shared struct {
		Defs map[string]any `json:"$defs"`
	}
	if err := readJSON(filepath.Join(src, "_definitions.json"), &shared); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, kind := range kinds {
		var schema map[string]any
		if err := readJSON(filepath.Join(src, kind+".json"), &schema); err != nil {
			return err
		}
		out, err := standalone(schema, shared.Defs)
		if err != nil {
			return fmt.Errorf("%s: %w", kind, err)
		}
		data, err := json.MarshalIndent(out, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, kind+".json"), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// standalone returns schema with the definitions it needs from defs.
func standalone(schema map[string]any, defs map[string]any) (map[string]any, error) {
	out := clean(schema).(map[string]any)
	delete(out, "$id")
	need := map[string]any{}
	queue := refs(out)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if _, done := need[name]; done {
			continue
		}
		def, ok := defs[name]
		if !ok {
			return nil, fmt.Errorf("no definition %q", name)
		}
		def = clean(def)
		need[name] = def
		queue = append(queue, refs(def)...)
	}
	if len(need) > 0 {
		out["$defs"] = need
	}
	return out, nil
}

// clean returns a copy of v without descriptions and with shared
// references made local.
func clean(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			if k == "description" {
				if _, isText := x.(string); isText {
					continue
				}
			}
			if s, ok := x.(string); ok && k == "$ref" {
				x = strings.Replace(s, sharedRef, localRef, 1)
			}
			m[k] = clean(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = clean(x)
		}
		return s
	}
	return v
}

// refs lists the local definitions v refers to, sorted.
func refs(v any) []string {
	var names []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if s, ok := v["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(s, localRef); ok {
					names = append(names, name)
				}
			}
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	slices.Sort(names)
	return slices.Compact(names)
}

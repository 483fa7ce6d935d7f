package main

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Captures suggested by from-har: a value a response gave (a string in
// its JSON body, or a header other than the usual ones) that a later
// request of the flow sends back (in its URL, a header or its body, as
// recorded or URL-encoded) is captured at the step that received it and
// sent as {{name}} from then on, so that each virtual user replays its
// own token rather than the recorded one. Values shorter than
// minCaptureLen are left alone: short strings recur by chance.

// minCaptureLen is the shortest value worth a capture.
const minCaptureLen = 8

// harValue is one value a response gave and how a flow captures it.
type harValue struct {
	value string
	kind  string // "json" or "header"
	arg   string // the JSON path or the header name
	name  string // the variable it suggests
}

// ordinaryResponseHeaders are response headers that carry no value a
// client sends back.
var ordinaryResponseHeaders = map[string]bool{"date": true, "content-type": true, "content-length": true, "server": true,
	"cache-control": true, "expires": true, "last-modified": true, "etag": true, "vary": true, "connection": true,
	"keep-alive": true, "set-cookie": true, "content-encoding": true, "transfer-encoding": true, "age": true,
	"strict-transport-security": true, "x-content-type-options": true, "x-frame-options": true, "accept-ranges": true,
	"alt-svc": true, "content-security-policy": true, "referrer-policy": true, "access-control-allow-origin": true}

// suggestCaptures adds the captures to flow's steps (one per kept entry)
// and rewrites the later requests; it returns how many it added.
func suggestCaptures(flow *flowOut, kept []*harEntry) int {
	taken := map[string]bool{"vu": true, "iter": true}
	added := 0
	for i, e := range kept {
		for _, v := range responseValues(e) {
			if len(v.value) < minCaptureLen {
				continue
			}
			name := uniqueName(v.name, taken)
			placeholder := "{{" + name + "}}"
			used := false
			for j := i + 1; j < len(flow.Steps); j++ {
				used = replaceValue(&flow.Steps[j], v.value, placeholder) || used
			}
			if !used {
				continue
			}
			taken[name] = true
			st := &flow.Steps[i]
			if st.Capture == nil {
				st.Capture = map[string]map[string]string{}
			}
			st.Capture[name] = map[string]string{v.kind: v.arg}
			added++
		}
	}
	return added
}

// responseValues lists the values e's response gave: its JSON body's
// strings by path (keys in order), then its headers.
func responseValues(e *harEntry) []harValue {
	var out []harValue
	if c := e.Response.Content; strings.Contains(c.MimeType, "json") && c.Text != "" {
		body := []byte(c.Text)
		if c.Encoding == "base64" {
			body, _ = base64.StdEncoding.DecodeString(c.Text) // nil, not JSON, when it does not decode
		}
		var doc any
		if json.Unmarshal(body, &doc) == nil {
			walkJSON(doc, "", "", &out)
		}
	}
	for _, f := range e.Response.Headers {
		n := strings.ToLower(f.Name)
		if ordinaryResponseHeaders[n] || strings.HasPrefix(n, ":") {
			continue
		}
		out = append(out, harValue{value: f.Value, kind: "header", arg: canonicalHeader(f.Name), name: n})
	}
	return out
}

// walkJSON collects the string leaves of v under path; key is the last
// object key on the way, which names the variable.
func walkJSON(v any, path, key string, out *[]harValue) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !plainKey(k) {
				continue // a path could not name it
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			walkJSON(v[k], p, k, out)
		}
	case []any:
		for i, x := range v {
			walkJSON(x, path+"["+strconv.Itoa(i)+"]", key, out)
		}
	case string:
		if path != "" {
			*out = append(*out, harValue{value: v, kind: "json", arg: path, name: key})
		}
	}
}

// plainKey reports whether a JSON key can be written in a flow's path.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// uniqueName makes a variable name of hint (letters, digits and _, not a
// digit first) that is not taken yet.
func uniqueName(hint string, taken map[string]bool) string {
	var b strings.Builder
	for _, r := range hint {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		case r == '-':
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		name = "v" + name
	}
	if !taken[name] {
		return name
	}
	for i := 2; ; i++ {
		if n := name + strconv.Itoa(i); !taken[n] {
			return n
		}
	}
}

// replaceValue puts placeholder where st sends value: in its URL (as
// recorded or query-escaped), its headers and its body.
func replaceValue(st *stepOut, value, placeholder string) bool {
	used := false
	rep := func(s string, forms ...string) string {
		for _, f := range forms {
			if f != "" && strings.Contains(s, f) {
				s = strings.ReplaceAll(s, f, placeholder)
				used = true
			}
		}
		return s
	}
	escaped := url.QueryEscape(value)
	if escaped == value {
		escaped = ""
	}
	st.URL = rep(st.URL, value, escaped)
	for k, v := range st.Headers {
		st.Headers[k] = rep(v, value)
	}
	st.Body = rep(st.Body, value)
	return used
}

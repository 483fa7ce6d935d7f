package reqdata

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gust-http/gust/load"
)

// jsonTarget is one line of a JSON targets file, such as
//
//	{"method":"POST","url":"/users/{{id}}","headers":{"Content-Type":"application/json"},
//	 "body":"{\"name\":\"{{name}}\"}","weight":3}
//
// url (a path or an absolute URL on the run's server) or path is
// required; method defaults to GET; headers is an object of strings, or
// of arrays of strings for repeated fields; body or body_base64; weight a
// whole number from 1; name the endpoint's name in the report. Other keys
// are refused, so that a misspelt one is not silently ignored.
type jsonTarget struct {
	Method     *string         `json:"method"`
	URL        *string         `json:"url"`
	Path       *string         `json:"path"`
	Headers    json.RawMessage `json:"headers"`
	Body       *string         `json:"body"`
	BodyBase64 *string         `json:"body_base64"`
	Weight     *int            `json:"weight"`
	Name       *string         `json:"name"`
}

func parseJSONTarget(line []byte, opts *Options) (load.RequestTemplate, error) {
	var t load.RequestTemplate
	var j jsonTarget
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return t, fmt.Errorf("bad JSON: %s", jsonError(err))
	}
	if dec.More() {
		return t, errors.New("bad JSON: text after the object")
	}
	switch {
	case j.URL != nil && j.Path != nil:
		return t, errors.New(`give "url" or "path", not both`)
	case j.URL == nil && j.Path == nil:
		return t, errors.New(`no "url" or "path"`)
	case j.Body != nil && j.BodyBase64 != nil:
		return t, errors.New(`give "body" or "body_base64", not both`)
	case j.Weight != nil && (*j.Weight < 1 || *j.Weight > load.MaxTotalWeight):
		return t, fmt.Errorf(`"weight" %d: want a whole number from 1 to %d`, *j.Weight, load.MaxTotalWeight)
	}
	url := deref(j.URL) + deref(j.Path)
	if j.Path != nil && (url == "" || url[0] != '/') {
		return t, fmt.Errorf(`"path" %q must start with /`, url)
	}
	target, err := resolve(url, opts.Origin)
	if err != nil {
		return t, err
	}
	t.Method, t.Target, t.Body = deref(j.Method), target, deref(j.Body)
	if t.Method == "" {
		t.Method = "GET"
	}
	if j.BodyBase64 != nil {
		b, err := base64.StdEncoding.DecodeString(*j.BodyBase64)
		if err != nil {
			return t, errors.New(`"body_base64" is not standard base64`)
		}
		t.Body = string(b)
	}
	if j.Weight != nil {
		t.Weight = *j.Weight
	}
	t.Name = t.Method + " " + t.Target
	if j.Name != nil {
		t.Name = *j.Name
	}
	if t.Header, err = jsonHeaders(j.Headers); err != nil {
		return t, err
	}
	return t, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// jsonHeaders reads "headers" in the object's order.
func jsonHeaders(raw json.RawMessage) ([][2]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	bad := errors.New(`"headers" must be an object of strings or of arrays of strings`)
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad
	}
	var fields [][2]string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad
		}
		name := tok.(string) // object keys are strings
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, bad
		}
		switch v := v.(type) {
		case string:
			fields = append(fields, [2]string{name, v})
		case []any:
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, bad
				}
				fields = append(fields, [2]string{name, s})
			}
		default:
			return nil, bad
		}
	}
	return fields, nil
}

// jsonError shortens encoding/json's messages to what the line needs.
func jsonError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	return err.Error()
}

//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// harRecorder assembles a HAR 1.2 document from the Network domain's
// events, as DevTools' own "Save all as HAR" does: one entry per request
// to an http or https URL, in the order they started, with the headers
// sent on the wire when Chromium reports them (the *ExtraInfo events),
// the post data, the response's status, headers and body, and timings.
type harRecorder struct {
	mu      sync.Mutex
	order   []string // request ids as they started
	reqs    map[string]*harRecorded
	changed chan struct{} // a token after each event
}

// harRecorded is what the events said about one request.
type harRecorded struct {
	sent        *cdpRequestSent
	sentHeaders map[string]string // requestWillBeSentExtraInfo's
	response    *cdpResponse
	respHeaders map[string]string // responseReceivedExtraInfo's
	finished    bool
	failed      string
	end         float64 // monotonic seconds
	size        float64 // bytes on the wire
	body        string
	base64      bool
}

type cdpRequestSent struct {
	RequestID string `json:"requestId"`
	Request   struct {
		URL         string            `json:"url"`
		Method      string            `json:"method"`
		Headers     map[string]string `json:"headers"`
		PostData    string            `json:"postData"`
		HasPostData bool              `json:"hasPostData"`
	} `json:"request"`
	Timestamp float64 `json:"timestamp"` // monotonic seconds
	WallTime  float64 `json:"wallTime"`  // seconds since the epoch
	Type      string  `json:"type"`      // Document, Stylesheet, Image, Script, Fetch, ...
}

type cdpResponse struct {
	Status     int               `json:"status"`
	StatusText string            `json:"statusText"`
	Headers    map[string]string `json:"headers"`
	MimeType   string            `json:"mimeType"`
	Protocol   string            `json:"protocol"`
	Timing     *struct {
		RequestTime       float64 `json:"requestTime"` // monotonic seconds; the rest are ms after it
		DNSStart          float64 `json:"dnsStart"`
		DNSEnd            float64 `json:"dnsEnd"`
		ConnectStart      float64 `json:"connectStart"`
		ConnectEnd        float64 `json:"connectEnd"`
		SSLStart          float64 `json:"sslStart"`
		SSLEnd            float64 `json:"sslEnd"`
		SendStart         float64 `json:"sendStart"`
		SendEnd           float64 `json:"sendEnd"`
		ReceiveHeadersEnd float64 `json:"receiveHeadersEnd"`
	} `json:"timing"`
}

func newHARRecorder() *harRecorder {
	return &harRecorder{reqs: map[string]*harRecorded{}, changed: make(chan struct{}, 1)}
}

// get returns id's record, made on its first event (an ExtraInfo event
// may come before requestWillBeSent).
func (r *harRecorder) get(id string) *harRecorded {
	rec := r.reqs[id]
	if rec == nil {
		rec = &harRecorded{}
		r.reqs[id] = rec
	}
	return rec
}

// event takes one DevTools event; it is dialCDP's handler.
func (r *harRecorder) event(m cdpMessage) {
	var p struct {
		RequestID         string            `json:"requestId"`
		Headers           map[string]string `json:"headers"`
		Response          *cdpResponse      `json:"response"`
		Timestamp         float64           `json:"timestamp"`
		EncodedDataLength float64           `json:"encodedDataLength"`
		ErrorText         string            `json:"errorText"`
	}
	if !strings.HasPrefix(m.Method, "Network.") || json.Unmarshal(m.Params, &p) != nil || p.RequestID == "" {
		return
	}
	r.mu.Lock()
	rec := r.get(p.RequestID)
	switch m.Method {
	case "Network.requestWillBeSent":
		var sent cdpRequestSent
		if json.Unmarshal(m.Params, &sent) == nil && rec.sent == nil {
			rec.sent = &sent
			r.order = append(r.order, p.RequestID)
		}
	case "Network.requestWillBeSentExtraInfo":
		rec.sentHeaders = p.Headers
	case "Network.responseReceived":
		rec.response = p.Response
	case "Network.responseReceivedExtraInfo":
		rec.respHeaders = p.Headers
	case "Network.loadingFinished":
		rec.finished, rec.end, rec.size = true, p.Timestamp, p.EncodedDataLength
	case "Network.loadingFailed":
		rec.failed, rec.end = p.ErrorText, p.Timestamp
	}
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// web lists the records of http and https requests, in order.
func (r *harRecorder) web() []*harRecorded {
	var out []*harRecorded
	for _, id := range r.order {
		rec := r.reqs[id]
		if u := rec.sent.Request.URL; strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
			out = append(out, rec)
		}
	}
	return out
}

// waitSettled waits until a request whose URL has suffix finished and
// every request that started before it ended (finished or failed).
func (r *harRecorder) waitSettled(ctx context.Context, suffix string) error {
	settled := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		seen := false
		for _, rec := range r.web() {
			if !rec.finished && rec.failed == "" {
				return false
			}
			seen = seen || strings.HasSuffix(rec.sent.Request.URL, suffix) && rec.finished
		}
		return seen
	}
	for !settled() {
		select {
		case <-r.changed:
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to finish: %w", suffix, ctx.Err())
		}
	}
	return nil
}

// fetchBodies asks for each finished request's response body and each
// post data the event left out.
func (r *harRecorder) fetchBodies(ctx context.Context, c *cdpConn, session string) error {
	type ask struct {
		rec            *harRecorded
		id, url        string
		postData, body bool
	}
	var asks []ask
	r.mu.Lock()
	for _, rec := range r.web() {
		q := rec.sent.Request
		st := 0
		if rec.response != nil {
			st = rec.response.Status
		}
		asks = append(asks, ask{rec, rec.sent.RequestID, q.URL, q.HasPostData && q.PostData == "",
			rec.finished && st != 0 && st != 204 && st != 304})
	}
	r.mu.Unlock()
	for _, a := range asks {
		if a.postData {
			var pd struct {
				PostData string `json:"postData"`
			}
			if err := c.call(ctx, session, "Network.getRequestPostData", map[string]string{"requestId": a.id}, &pd); err != nil {
				return fmt.Errorf("%s: %w", a.url, err)
			}
			r.mu.Lock()
			a.rec.sent.Request.PostData = pd.PostData
			r.mu.Unlock()
		}
		if a.body {
			var b struct {
				Body          string `json:"body"`
				Base64Encoded bool   `json:"base64Encoded"`
			}
			if err := c.call(ctx, session, "Network.getResponseBody", map[string]string{"requestId": a.id}, &b); err != nil {
				return fmt.Errorf("%s: %w", a.url, err)
			}
			r.mu.Lock()
			a.rec.body, a.rec.base64 = b.Body, b.Base64Encoded
			r.mu.Unlock()
		}
	}
	return nil
}

// har writes the HAR 1.2 document.
func (r *harRecorder) har(title string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	recs := r.web()
	entries := make([]any, 0, len(recs))
	var started string
	for _, rec := range recs {
		e, at := harEntryOf(rec)
		if started == "" {
			started = at
		}
		entries = append(entries, e)
	}
	doc := map[string]any{"log": map[string]any{
		"version": "1.2",
		"creator": map[string]any{"name": "gust har_chromium test", "version": "1"},
		"pages": []any{map[string]any{"startedDateTime": started, "id": "page_1", "title": title,
			"pageTimings": map[string]any{"onContentLoad": -1, "onLoad": -1}}},
		"entries": entries,
	}}
	return json.MarshalIndent(doc, "", " ")
}

// harEntryOf is rec as a HAR entry, and when it started.
func harEntryOf(rec *harRecorded) (map[string]any, string) {
	s := rec.sent
	started := time.UnixMicro(int64(s.WallTime * 1e6)).UTC().Format("2006-01-02T15:04:05.000Z")
	sent := rec.sentHeaders
	if sent == nil {
		sent = s.Request.Headers
	}
	u, _ := url.Parse(s.Request.URL)
	query := []any{}
	for k, vs := range u.Query() {
		for _, v := range vs {
			query = append(query, map[string]any{"name": k, "value": v})
		}
	}
	version := ""
	if rec.response != nil {
		version = httpVersion(rec.response.Protocol)
	}
	req := map[string]any{
		"method": s.Request.Method, "url": s.Request.URL, "httpVersion": version,
		"headers": harFields(sent), "queryString": query, "cookies": harCookies((&http.Request{Header: httpHeader(sent)}).Cookies()),
		"headersSize": -1, "bodySize": len(s.Request.PostData),
	}
	if s.Request.HasPostData || s.Request.PostData != "" {
		req["postData"] = map[string]any{"mimeType": headerValue(sent, "Content-Type"), "text": s.Request.PostData}
	}
	resp := map[string]any{"status": 0, "statusText": "", "httpVersion": "", "headers": []any{}, "cookies": []any{},
		"content": map[string]any{"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
		"_error": rec.failed}
	timings := map[string]any{"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 0}
	total := 0.0
	if rs := rec.response; rs != nil {
		got := rec.respHeaders
		if got == nil {
			got = rs.Headers
		}
		content := map[string]any{"size": len(rec.body), "mimeType": rs.MimeType, "text": rec.body}
		if rec.base64 {
			content["encoding"] = "base64"
		}
		resp = map[string]any{"status": rs.Status, "statusText": rs.StatusText, "httpVersion": version,
			"headers": harFields(got), "cookies": harCookies((&http.Response{Header: httpHeader(got)}).Cookies()),
			"content": content, "redirectURL": headerValue(got, "Location"), "headersSize": -1, "bodySize": int(rec.size)}
		if tm := rs.Timing; tm != nil {
			span := func(a, b float64) float64 {
				if a < 0 || b < a {
					return -1
				}
				return b - a
			}
			blocked := (tm.RequestTime - s.Timestamp) * 1000
			for _, first := range []float64{tm.DNSStart, tm.ConnectStart, tm.SendStart} {
				if first >= 0 {
					blocked += first
					break
				}
			}
			receive := (rec.end-tm.RequestTime)*1000 - tm.ReceiveHeadersEnd
			timings = map[string]any{"blocked": blocked, "dns": span(tm.DNSStart, tm.DNSEnd),
				"connect": span(tm.ConnectStart, tm.ConnectEnd), "ssl": span(tm.SSLStart, tm.SSLEnd),
				"send": tm.SendEnd - tm.SendStart, "wait": tm.ReceiveHeadersEnd - tm.SendEnd, "receive": receive}
			for _, k := range []string{"blocked", "dns", "connect", "send", "wait", "receive"} { // ssl is within connect
				if v := timings[k].(float64); v > 0 {
					total += v
				}
			}
		}
	}
	return map[string]any{"pageref": "page_1", "startedDateTime": started, "time": total,
		"_resourceType": strings.ToLower(s.Type), "request": req, "response": resp,
		"cache": map[string]any{}, "timings": timings}, started
}

// httpVersion names a protocol as DevTools' HAR export does.
func httpVersion(protocol string) string {
	switch protocol {
	case "http/1.1", "http/1.0":
		return strings.ToUpper(protocol)
	case "h2":
		return "http/2.0"
	}
	return protocol
}

// harFields lists headers as HAR name/value pairs, sorted by name (the
// events give them as an object); a value on several lines is several
// fields, as Set-Cookie comes.
func harFields(h map[string]string) []any {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	out := []any{}
	for _, k := range names {
		for _, v := range strings.Split(h[k], "\n") {
			out = append(out, map[string]any{"name": k, "value": v})
		}
	}
	return out
}

// harCookies lists cookies as HAR name/value pairs.
func harCookies(cs []*http.Cookie) []any {
	out := []any{}
	for _, c := range cs {
		out = append(out, map[string]any{"name": c.Name, "value": c.Value})
	}
	return out
}

// httpHeader is h as an http.Header (a value on several lines is several
// values).
func httpHeader(h map[string]string) http.Header {
	out := http.Header{}
	for k, v := range h {
		for _, line := range strings.Split(v, "\n") {
			out.Add(k, line)
		}
	}
	return out
}

// headerValue is h's value for name, whatever its case.
func headerValue(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

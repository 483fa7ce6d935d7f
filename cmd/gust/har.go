package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// gust flow from-har: a browser's HAR export (the Network panel's "Save
// all as HAR") turned into a flow file for gust load --flow, since
// recording in the browser is how many teams start. Requests to the
// page's origin become steps, in order; static assets are dropped unless
// asked for, other origins and WebSockets always (a flow's URLs are
// paths on the target, its requests plain HTTP); headers are trimmed to those a server acts on; and a value a
// response gave that a later request sends back (a token in a JSON body,
// a header) becomes a capture and a {{variable}} in its place.

// harFile is the part of a HAR 1.2 document the converter reads.
type harFile struct {
	Log struct {
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"` // ms
	ResourceType    string      `json:"_resourceType"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
}

type harRequest struct {
	Method   string     `json:"method"`
	URL      string     `json:"url"`
	Headers  []harField `json:"headers"`
	PostData *struct {
		MimeType string     `json:"mimeType"`
		Text     string     `json:"text"`
		Params   []harField `json:"params"`
	} `json:"postData"`
}

type harResponse struct {
	Status  int        `json:"status"`
	Headers []harField `json:"headers"`
	Content struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Encoding string `json:"encoding"`
	} `json:"content"`
}

type harField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// harOptions are from-har's flags.
type harOptions struct {
	KeepStatic bool
	Origin     string // scheme://host[:port]; "" takes the first request's
	Think      bool   // keep the recorded pauses between requests
}

// flowOut is a flow file as from-har writes it.
type flowOut struct {
	Steps []stepOut `yaml:"steps"`
}

type stepOut struct {
	Name    string                       `yaml:"name"`
	Method  string                       `yaml:"method"`
	URL     string                       `yaml:"url"`
	Headers map[string]string            `yaml:"headers,omitempty"`
	Body    string                       `yaml:"body,omitempty"`
	Capture map[string]map[string]string `yaml:"capture,omitempty"`
	Check   map[string]int               `yaml:"check,omitempty"`
	Think   string                       `yaml:"think,omitempty"`
}

// harSummary says what the conversion kept and dropped.
type harSummary struct {
	entries, kept, static, otherOrigin, webSockets, captures int
}

func (s harSummary) String() string {
	ws := ""
	if s.webSockets > 0 {
		ws = fmt.Sprintf(", %d WebSockets", s.webSockets)
	}
	return fmt.Sprintf("gust flow from-har: %d steps from %d requests (dropped: %d static assets, %d to other origins%s); %d captures suggested",
		s.kept, s.entries, s.static, s.otherOrigin, ws, s.captures)
}

func newFlowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "flow",
		Short: "Work with flow files for gust load --flow",
	}
	var opts harOptions
	var out string
	fromHAR := &cobra.Command{
		Use:   "from-har FILE.har",
		Short: "Turn a browser's HAR export into a flow file",
		Long: "Turn a browser's HAR export (the Network panel's \"Save all as HAR\") into a flow file for\n" +
			"gust load --flow. Requests to one origin (--origin, or the first request's) become steps in\n" +
			"order; static assets (scripts, styles, images, fonts) are dropped unless --keep-static, other\n" +
			"origins and WebSockets always. Headers are trimmed to those a server acts on (cookies are the flow's jar's).\n" +
			"A value a response gave that a later request sends back becomes a capture on that step and a\n" +
			"{{variable}} where it is sent. Each step checks the status recorded.",
		Args:          cobra.ExactArgs(1),
		SilenceUsage:  true, // an error is said in one line, as gust's root says them
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return fmt.Errorf("flow from-har: %w", err)
			}
			flow, sum, err := convertHAR(data, opts)
			if err != nil {
				return fmt.Errorf("flow from-har: %s: %w", args[0], err)
			}
			w := cmd.OutOrStdout()
			if out != "" {
				f, err := os.Create(out)
				if err != nil {
					return fmt.Errorf("flow from-har: %w", err)
				}
				defer f.Close()
				w = f
			}
			if _, err := io.WriteString(w, "# A flow from "+path.Base(args[0])+" (gust flow from-har); run it with gust load --flow.\n"); err != nil {
				return err
			}
			enc := yaml.NewEncoder(w)
			enc.SetIndent(2)
			if err := enc.Encode(flow); err != nil {
				return fmt.Errorf("flow from-har: %w", err)
			}
			if err := enc.Close(); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), sum)
			return nil
		},
	}
	f := fromHAR.Flags()
	f.StringVarP(&out, "output", "o", "", "write the flow file here (default: standard output)")
	f.BoolVar(&opts.KeepStatic, "keep-static", false, "keep requests for scripts, styles, images, fonts and media")
	f.StringVar(&opts.Origin, "origin", "", "keep requests to this origin (scheme://host[:port]; default: the first request's)")
	f.BoolVar(&opts.Think, "think", false, "keep the recorded pauses between requests as think times")
	cmd.AddCommand(fromHAR)
	return cmd
}

// convertHAR turns a HAR document into a flow.
func convertHAR(data []byte, opts harOptions) (*flowOut, harSummary, error) {
	var h harFile
	var sum harSummary
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, sum, fmt.Errorf("not a HAR file (JSON with log.entries): %v", err)
	}
	sum.entries = len(h.Log.Entries)
	if sum.entries == 0 {
		return nil, sum, fmt.Errorf("no requests in log.entries")
	}
	origin := opts.Origin
	if origin == "" {
		u, err := url.Parse(h.Log.Entries[0].Request.URL)
		if err != nil || u.Host == "" {
			return nil, sum, fmt.Errorf("entry 1: request.url %q is not an absolute URL", h.Log.Entries[0].Request.URL)
		}
		origin = u.Scheme + "://" + u.Host
	}
	origin = strings.TrimSuffix(origin, "/")
	var kept []*harEntry
	for i := range h.Log.Entries {
		e := &h.Log.Entries[i]
		u, err := url.Parse(e.Request.URL)
		if err != nil || u.Host == "" {
			return nil, sum, fmt.Errorf("entry %d: request.url %q is not an absolute URL", i+1, e.Request.URL)
		}
		if e.Request.Method == "" {
			return nil, sum, fmt.Errorf("entry %d: request.method is empty", i+1)
		}
		switch {
		case u.Scheme+"://"+u.Host != origin:
			sum.otherOrigin++
		case isWebSocket(e):
			sum.webSockets++
		case !opts.KeepStatic && isStaticAsset(e, u):
			sum.static++
		default:
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		return nil, sum, fmt.Errorf("no request to %s is left to replay (%d static assets, %d to other origins dropped)", origin, sum.static, sum.otherOrigin)
	}
	flow := &flowOut{}
	names := map[string]int{}
	for i, e := range kept {
		u, _ := url.Parse(e.Request.URL)
		st := stepOut{Method: e.Request.Method, URL: u.RequestURI(),
			Check: map[string]int{"status": e.Response.Status}}
		if e.Response.Status == 0 {
			st.Check = nil // the browser got no answer (blocked, cancelled)
		}
		for _, f := range e.Request.Headers {
			if keptHeader(f.Name) {
				if st.Headers == nil {
					st.Headers = map[string]string{}
				}
				st.Headers[canonicalHeader(f.Name)] = f.Value
			}
		}
		if pd := e.Request.PostData; pd != nil {
			st.Body = pd.Text
			if st.Body == "" && len(pd.Params) > 0 {
				st.Body = formBody(pd.Params)
			}
		}
		if opts.Think && i+1 < len(kept) {
			st.Think = recordedPause(e, kept[i+1])
		}
		flow.Steps = append(flow.Steps, st)
	}
	sum.kept = len(flow.Steps)
	sum.captures = suggestCaptures(flow, kept)
	for i := range flow.Steps {
		// Named once the captures are in: by the path a user sends.
		p, _, _ := strings.Cut(flow.Steps[i].URL, "?")
		flow.Steps[i].Name = stepName(flow.Steps[i].Method, p, names)
	}
	return flow, sum, nil
}

// staticTypes are the resource types and extensions of static assets.
var (
	staticTypes      = map[string]bool{"script": true, "stylesheet": true, "image": true, "font": true, "media": true, "manifest": true}
	staticExtensions = map[string]bool{".js": true, ".mjs": true, ".css": true, ".png": true, ".jpg": true, ".jpeg": true, ".gif": true,
		".svg": true, ".webp": true, ".avif": true, ".ico": true, ".woff": true, ".woff2": true, ".ttf": true, ".otf": true, ".map": true,
		".mp4": true, ".webm": true, ".mp3": true}
)

// isStaticAsset reports whether e fetched a script, a style, an image, a
// font or media: by the browser's resource type when the HAR has one
// other than "other" (Chromium's type for what the page did not ask for
// by a tag or a call, a favicon for one), by the path's extension and the
// answer's type otherwise.
func isStaticAsset(e *harEntry, u *url.URL) bool {
	if t := strings.ToLower(e.ResourceType); t != "" && t != "other" {
		return staticTypes[t]
	}
	if staticExtensions[strings.ToLower(path.Ext(u.Path))] {
		return true
	}
	mt := e.Response.Content.MimeType
	return strings.HasPrefix(mt, "image/") || strings.HasPrefix(mt, "font/") || mt == "text/css" || strings.Contains(mt, "javascript")
}

// isWebSocket reports whether e opened a WebSocket, which a flow's
// requests cannot replay: by Chromium's resource type, the 101 answer or
// the Upgrade header.
func isWebSocket(e *harEntry) bool {
	if strings.EqualFold(e.ResourceType, "websocket") || e.Response.Status == http.StatusSwitchingProtocols {
		return true
	}
	for _, f := range e.Request.Headers {
		if strings.EqualFold(f.Name, "upgrade") && strings.Contains(strings.ToLower(f.Value), "websocket") {
			return true
		}
	}
	return false
}

// formBody writes a form's fields as the URL-encoded body a browser sends
// (HARs may give only params for a form post). Names and values are
// decoded first when the HAR kept them encoded, so that they are encoded
// once.
func formBody(params []harField) string {
	var b strings.Builder
	for i, p := range params {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(unescapeForm(p.Name)) + "=" + url.QueryEscape(unescapeForm(p.Value)))
	}
	return b.String()
}

// unescapeForm is s with its form escapes decoded, or s when it has none
// that decode.
func unescapeForm(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// keptHeader reports whether a recorded request header is one a server
// acts on. Dropped: what the client sets itself (Host, Content-Length,
// Connection, Accept-Encoding, HTTP/2 pseudo-headers), the browser's
// identity and hints (User-Agent, sec-*, Accept-Language, Referer,
// Origin, caches), hop-by-hop headers (Upgrade, Proxy-Connection,
// HTTP2-Settings), and Cookie, which the flow's cookie jar sends.
func keptHeader(name string) bool {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, ":"), strings.HasPrefix(n, "sec-"):
		return false
	}
	switch n {
	case "host", "content-length", "connection", "accept-encoding", "user-agent", "accept-language", "referer",
		"origin", "cookie", "cache-control", "pragma", "upgrade-insecure-requests", "dnt", "priority", "te",
		"if-none-match", "if-modified-since", "keep-alive", "transfer-encoding", "purpose", "x-client-data",
		"upgrade", "proxy-connection", "http2-settings":
		return false
	}
	return true
}

// canonicalHeader writes a header name as HTTP/1.1 usually has it
// (HTTP/2 HARs record them in lower case).
func canonicalHeader(name string) string {
	parts := strings.Split(strings.ToLower(name), "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "-")
}

// stepName names a step by its method and path, unique in the flow.
func stepName(method, p string, names map[string]int) string {
	base := strings.ToLower(method) + " " + p
	if len(base) > 60 {
		base = base[:60]
	}
	names[base]++
	if n := names[base]; n > 1 {
		return base + " #" + strconv.Itoa(n)
	}
	return base
}

// recordedPause is the time between the end of e and the start of next,
// to the millisecond; "" when they overlapped or the times are missing.
func recordedPause(e, next *harEntry) string {
	t0, err0 := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	t1, err1 := time.Parse(time.RFC3339Nano, next.StartedDateTime)
	if err0 != nil || err1 != nil {
		return ""
	}
	pause := t1.Sub(t0) - time.Duration(e.Time*float64(time.Millisecond))
	if pause < time.Millisecond {
		return ""
	}
	return pause.Round(time.Millisecond).String()
}

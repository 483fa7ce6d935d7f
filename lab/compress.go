package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// Compress makes a scenario's responses compressed: every server answers
// BodyBytes of the same JSON document (internal/hello.JSON) compressed by
// its own means (gust serve --compress; net/http through klauspost's
// gzhttp, fasthttp through its CompressHandlerBrotliLevel), and the
// loader asks for Coding in Accept-Encoding. Only the gust loader sends it.
type Compress struct {
	// Coding is what Accept-Encoding asks for: gzip (the default, which
	// every peer has), br (not net/http's gzhttp) or zstd (gust alone).
	Coding string `json:"coding,omitempty"`
	// BodyBytes is the JSON document's size; 0 means 100 KiB.
	BodyBytes int `json:"body_bytes,omitempty"`
}

// coding is the Accept-Encoding asked for.
func (c *Compress) coding() string {
	if c.Coding == "" {
		return "gzip"
	}
	return c.Coding
}

// bodyBytes is the JSON document's size.
func (c *Compress) bodyBytes() int {
	if c.BodyBytes == 0 {
		return 100 << 10
	}
	return c.BodyBytes
}

func (c *Compress) validate(name string) error {
	switch {
	case c.Coding != "" && c.Coding != "gzip" && c.Coding != "br" && c.Coding != "zstd":
		return fmt.Errorf("scenario %q: compress.coding must be gzip, br or zstd, got %q", name, c.Coding)
	case c.BodyBytes != 0 && c.BodyBytes < 64:
		return fmt.Errorf("scenario %q: compress.body_bytes must be 64 or more, got %d", name, c.BodyBytes)
	}
	return nil
}

// group is what Scenario.Group says of compression.
func (c *Compress) group() string {
	return fmt.Sprintf(", %s-compressed %d KiB JSON", c.coding(), c.bodyBytes()>>10)
}

// requestHeader is the loader's extra header fields for s: Accept-Encoding
// in a compression cell, none otherwise.
func (s Scenario) requestHeader() [][2]string {
	if s.Compress == nil {
		return nil
	}
	return [][2]string{{"Accept-Encoding", s.Compress.coding()}}
}

// compressFlags are, per built-in server, the flags of a compression cell,
// with {json} for the body's size; a server without them cannot compress.
var compressFlags = map[string]string{
	"fasthttp": "-compress -body-json {json}",
	"nethttp":  "-compress -body-json {json}",
}

// peerCodings are the codings each peer's compression has; gust serve has
// all three.
var peerCodings = map[string]string{
	"fasthttp": "gzip br",
	"nethttp":  "gzip", // gzhttp
}

// gustCompressFlags are gust serve's.
const gustCompressFlags = "--compress --body-json {json}"

// compressCommand appends a compression cell's flags to command, or says
// why srv cannot serve one.
func (srv Server) compressCommand(command string, sc Scenario) (string, error) {
	if sc.Compress == nil {
		return command, nil
	}
	if srv.Compress == "" {
		return "", fmt.Errorf("%s has no compression flags: it cannot serve %s", srv.Name, sc.Name)
	}
	if have, ok := peerCodings[srv.Name]; ok && !strings.Contains(" "+have+" ", " "+sc.Compress.coding()+" ") {
		return "", fmt.Errorf("%s does not compress with %s (only %s)", srv.Name, sc.Compress.coding(), have)
	}
	if srv.Probe != nil {
		if err := srv.Probe(strings.ReplaceAll(srv.Compress, "{json}", "")); err != nil {
			return "", err
		}
	}
	return command + " " + strings.ReplaceAll(srv.Compress, "{json}", strconv.Itoa(sc.Compress.bodyBytes())), nil
}

package server

import (
	"net/http"
	"strconv"
)

// statusLines holds "HTTP/1.1 NNN Reason\r\n" for every code 100-999, built
// once so that writing a status line is a copy.
var statusLines = func() [1000][]byte {
	var lines [1000][]byte
	for code := 100; code < 1000; code++ {
		reason := http.StatusText(code)
		line := "HTTP/1.1 " + strconv.Itoa(code) + " " + reason + "\r\n"
		lines[code] = []byte(line)
	}
	return lines
}()

// bodyAllowed reports whether a response with this status may carry a body
// (RFC 9110 section 6.4.1).
func bodyAllowed(code int) bool {
	return code >= 200 && code != 204 && code != 304
}

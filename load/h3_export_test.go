package load

import "testing"

// StartH3TestServer starts the well-behaved HTTP/3 test server
// (h3server_test.go) for the package's external tests, and returns its
// https:// URL and a count of the requests it answered.
func StartH3TestServer(t *testing.T) (url string, answered func() int) {
	srv, url := startH3TestServer(t, h3TestOptions{})
	return url, func() int { n, _ := srv.counts(); return n }
}

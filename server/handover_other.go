//go:build !linux

package server

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
)

// newEngineFromFiles is newEngine on an inherited listening socket: the
// portable engine accepts on one.
func newEngineFromFiles(s *Server, files []*os.File) (*engine, error) {
	if len(files) != 1 {
		return nil, errors.New("server: the portable engine serves one inherited listener")
	}
	ln, err := net.FileListener(files[0])
	if err != nil {
		return nil, err
	}
	if s.tlsConf != nil {
		ln = tls.NewListener(ln, s.tlsConf)
	}
	return &engine{srv: s, ln: ln, addr: ln.Addr(), conns: make(map[*fallbackConn]struct{})}, nil
}

// listenerFiles duplicates the listening socket.
func (e *engine) listenerFiles() ([]*os.File, error) {
	tl, ok := e.ln.(interface{ File() (*os.File, error) })
	if !ok {
		return nil, errors.New("server: this listener cannot be handed over")
	}
	f, err := tl.File()
	if err != nil {
		return nil, err
	}
	return []*os.File{f}, nil
}

package server

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Handing listeners over: a server can start from listening sockets it
// inherits, from the process that started it (a predecessor's
// ListenerFiles, passed as extra files) or from systemd's socket
// activation (InheritedListeners), and hand its own to a successor.
// Parent and successor then share the same sockets, so a connection
// waiting in the accept queue is taken by whichever accepts it: none is
// refused or reset while the old server drains with Shutdown.

// ListenFiles is Listen on listening TCP sockets the server inherits
// instead of an address: one per event loop (Config.Loops), each taken by
// its loop, or a single one, which loop 0 accepts on and hands out round
// robin as Config.Acceptor's AcceptOne does. The server takes duplicates:
// the caller may close files afterwards.
func (s *Server) ListenFiles(files []*os.File) error {
	if len(files) == 0 {
		return errors.New("server: ListenFiles needs at least one listener")
	}
	return s.listen(func() (*engine, error) { return newEngineFromFiles(s, files) })
}

// ListenerFiles returns duplicates of the server's listening sockets, one
// per accepting loop, for a successor to serve with ListenFiles (as
// os/exec's ExtraFiles, say). Call it while the server serves, before
// Shutdown: a draining server has let its listeners go. The caller closes
// the files once they are handed over.
func (s *Server) ListenerFiles() ([]*os.File, error) {
	s.mu.Lock()
	eng := s.eng
	s.mu.Unlock()
	if eng == nil {
		return nil, errors.New("server: ListenerFiles needs a server that listens")
	}
	return eng.listenerFiles()
}

// InheritedListeners returns the listening sockets systemd's socket
// activation passed to this process (sd_listen_fds(3): LISTEN_FDS sockets
// from descriptor 3, for this process if LISTEN_PID says so), or nil when
// there are none. The variables are removed from the environment, so that
// processes this one starts do not take the sockets for theirs.
// LISTEN_PID may be absent (a parent that cannot know its child's pid
// before starting it); then LISTEN_FDS alone counts.
func InheritedListeners() ([]*os.File, error) {
	fdsVar, ok := os.LookupEnv("LISTEN_FDS")
	if !ok {
		return nil, nil
	}
	pidVar := os.Getenv("LISTEN_PID")
	for _, v := range []string{"LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"} {
		os.Unsetenv(v)
	}
	if pidVar != "" {
		if pid, err := strconv.Atoi(pidVar); err != nil || pid != os.Getpid() {
			return nil, nil // meant for another process
		}
	}
	n, err := strconv.Atoi(fdsVar)
	if err != nil || n < 0 || n > 1024 {
		return nil, fmt.Errorf("server: LISTEN_FDS=%q is not a count of descriptors", fdsVar)
	}
	const first = 3 // SD_LISTEN_FDS_START
	files := make([]*os.File, 0, n)
	for i := range n {
		fd := first + i
		if err := markCloseOnExec(fd); err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, fmt.Errorf("server: LISTEN_FDS=%d, but descriptor %d: %w", n, fd, err)
		}
		files = append(files, os.NewFile(uintptr(fd), "listener-"+strconv.Itoa(fd)))
	}
	return files, nil
}

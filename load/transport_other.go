//go:build !linux

package load

// plainTransport stands in for transport.Plain where the engine cannot run
// (it needs epoll): every call fails.
type plainTransport struct{}

func (p *plainTransport) Reset(fd int)                {}
func (p *plainTransport) Read(b []byte) (int, error)  { return 0, errNoSockets }
func (p *plainTransport) Write(b []byte) (int, error) { return 0, errNoSockets }
func (p *plainTransport) Buffered() int               { return 0 }
func (p *plainTransport) ReadStamped(b, oob []byte) (int, int64, error) {
	return 0, 0, errNoSockets
}
func (p *plainTransport) FD() int { return -1 }

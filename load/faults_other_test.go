//go:build !unix

package load_test

import (
	"net"
	"testing"
)

func fullBacklog(t *testing.T) net.Listener {
	t.Skip("a listener with a full backlog needs the unix socket calls")
	return nil
}

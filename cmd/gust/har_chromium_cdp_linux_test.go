//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// A small Chrome DevTools Protocol client for the test that records a HAR
// in headless Chromium: Chromium is started with a DevTools port of its
// own choosing, its browser endpoint read from the line it writes to
// standard error, and commands sent over one WebSocket (x/net/websocket,
// already in the module graph) to a page attached in flat mode, so that
// the page's commands and events carry its session id.

// cdpOrigin is the Origin the client dials with; Chromium refuses DevTools
// connections from origins not named by --remote-allow-origins.
const cdpOrigin = "http://127.0.0.1"

// needChromium skips the test when chromium is not installed, and fails it
// under CI=true, where .ci/run installs it.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("chromium"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is missing; .ci/run installs it")
		}
		t.Skipf("chromium is not installed: the HAR is recorded by headless Chromium")
	}
}

// chromium is a headless Chromium the test started, in a process group of
// its own so that its helpers end with it.
type chromium struct {
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has been waited for
	mu     sync.Mutex
	stderr strings.Builder
}

// startChromium starts headless Chromium on about:blank and returns it and
// its browser's DevTools WebSocket URL; t's cleanup ends it.
func startChromium(t *testing.T, ctx context.Context) (*chromium, string) {
	t.Helper()
	c := &chromium{done: make(chan struct{})}
	c.cmd = exec.Command("chromium", "--headless=new", "--remote-debugging-port=0",
		"--remote-allow-origins="+cdpOrigin, "--user-data-dir="+t.TempDir(), "--no-sandbox",
		"--ignore-certificate-errors", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "about:blank")
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			c.mu.Lock()
			c.stderr.WriteString(line + "\n")
			c.mu.Unlock()
			if _, ws, ok := strings.Cut(line, "DevTools listening on "); ok && strings.HasPrefix(ws, "ws://") {
				select {
				case endpoint <- strings.TrimSpace(ws):
				default:
				}
			}
		}
		c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(c.stop)
	select {
	case ws := <-endpoint:
		return c, ws
	case <-c.done:
		t.Fatalf("chromium exited before it said where DevTools listens:\n%s", c.output())
	case <-ctx.Done():
		t.Fatalf("chromium did not say where DevTools listens in time:\n%s", c.output())
	}
	return nil, ""
}

// output is what Chromium wrote to standard error so far.
func (c *chromium) output() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

// stop waits a little for Chromium to exit (after Browser.close), then
// kills its process group.
func (c *chromium) stop() {
	select {
	case <-c.done:
		return
	case <-time.After(5 * time.Second):
	}
	syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
	<-c.done
}

// cdpMessage is a DevTools message either way: a command (id, method,
// params), its answer (id, result or error) or an event (method, params).
type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// cdpConn is a DevTools connection: call sends a command and waits for its
// answer; events go to the handler given to dialCDP, in order, on the
// connection's reading goroutine.
type cdpConn struct {
	ws      *websocket.Conn
	onEvent func(cdpMessage)
	mu      sync.Mutex
	next    int64
	pending map[int64]chan cdpMessage
	closed  chan struct{}
	err     error // why reading stopped; set before closed is closed
}

// dialCDP connects to a DevTools WebSocket URL.
func dialCDP(wsURL string, onEvent func(cdpMessage)) (*cdpConn, error) {
	ws, err := websocket.Dial(wsURL, "", cdpOrigin)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", wsURL, err)
	}
	ws.MaxPayloadBytes = 64 << 20
	c := &cdpConn{ws: ws, onEvent: onEvent, pending: map[int64]chan cdpMessage{}, closed: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *cdpConn) read() {
	for {
		var m cdpMessage
		if err := websocket.JSON.Receive(c.ws, &m); err != nil {
			c.err = err
			close(c.closed)
			return
		}
		if m.ID == 0 {
			c.onEvent(m)
			continue
		}
		c.mu.Lock()
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// call sends method with params (to a page's session, or the browser's if
// session is "") and decodes the answer's result into result (if not nil).
func (c *cdpConn) call(ctx context.Context, session, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if params == nil {
		raw = []byte("{}")
	}
	ch := make(chan cdpMessage, 1)
	c.mu.Lock()
	c.next++
	id := c.next
	c.pending[id] = ch
	err = websocket.JSON.Send(c.ws, cdpMessage{ID: id, SessionID: session, Method: method, Params: raw})
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-c.closed:
		return fmt.Errorf("%s: the DevTools connection closed: %v", method, c.err)
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// close ends the connection.
func (c *cdpConn) close() { c.ws.Close() }

// attachPage attaches to the first page target (about:blank) in flat mode
// and returns its session id.
func attachPage(ctx context.Context, c *cdpConn) (string, error) {
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	if err := c.call(ctx, "", "Target.getTargets", nil, &targets); err != nil {
		return "", err
	}
	for _, ti := range targets.TargetInfos {
		if ti.Type != "page" {
			continue
		}
		var att struct {
			SessionID string `json:"sessionId"`
		}
		err := c.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": ti.TargetID, "flatten": true}, &att)
		return att.SessionID, err
	}
	return "", fmt.Errorf("no page among Chromium's targets")
}

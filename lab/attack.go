package lab

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Attack is hostile traffic a scenario sends beside its load, for the
// whole cell, from the generator's CPUs, to see what it costs the clients
// that behave (latency) and the server (memory).
type Attack struct {
	// Kind is one of AttackKinds.
	Kind string `json:"kind"`
	// Connections is how many hostile connections are kept open: one that
	// the server closes is replaced at once.
	Connections int `json:"connections"`
	// Sink, for a control run, sends the attack to a listener of gust
	// bench's own instead of the server: what the load's numbers lose
	// then is the attack's cost to the generator, not to the server.
	Sink bool `json:"sink,omitempty"`
}

// startSink listens on loopback and reads and discards whatever arrives
// on the connections it accepts, until ctx ends.
func startSink(ctx context.Context) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("attack sink: %w", err)
	}
	context.AfterFunc(ctx, func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			stop := context.AfterFunc(ctx, func() { c.Close() })
			go func() {
				defer stop()
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), nil
}

// The attacks.
const (
	// AttackSlowloris sends a request head a byte a second, never ending it.
	AttackSlowloris = "slowloris"
	// AttackIdle opens connections that send nothing (a connection flood).
	AttackIdle = "idle-conns"
	// AttackBigHeads sends a head whose header section never ends, as fast
	// as the server takes it.
	AttackBigHeads = "big-heads"
	// AttackBigBodies sends a chunked request body that never ends, as fast
	// as the server takes it.
	AttackBigBodies = "big-bodies"
)

// AttackKinds lists the kinds of Attack.
var AttackKinds = []string{AttackSlowloris, AttackIdle, AttackBigHeads, AttackBigBodies}

// maxAttackConns bounds Attack.Connections to what one process can open here.
const maxAttackConns = 15000

func (a *Attack) validate(scenario string) error {
	ok := false
	for _, k := range AttackKinds {
		ok = ok || a.Kind == k
	}
	if !ok {
		return fmt.Errorf("scenario %q: attack kind %q is not one of %s", scenario, a.Kind, strings.Join(AttackKinds, ", "))
	}
	if a.Connections < 1 || a.Connections > maxAttackConns {
		return fmt.Errorf("scenario %q: attack connections must be between 1 and %d, got %d", scenario, maxAttackConns, a.Connections)
	}
	return nil
}

// AttackStats is what an attack did.
type AttackStats struct {
	Opened int64 `json:"opened"` // connections established
	Cut    int64 `json:"cut"`    // connections the server closed or reset
	Failed int64 `json:"failed"` // connection attempts that failed
	Bytes  int64 `json:"bytes"`  // bytes the server accepted
}

// attacker runs an Attack against addr until stopped.
type attacker struct {
	a      Attack
	addr   string
	opened atomic.Int64
	cut    atomic.Int64
	failed atomic.Int64
	bytes  atomic.Int64
	wg     sync.WaitGroup
	cancel context.CancelFunc
	// nextRedial paces replacements (ns since the Unix epoch): the attack
	// shares the generator's CPU, and thousands of goroutines redialing
	// flat out would slow the load it is measuring, not the server.
	nextRedial atomic.Int64
}

// maxRedials is how many cut connections an attack replaces per second.
const maxRedials = 1000

// waitRedial waits for the attack's next replacement slot.
func (at *attacker) waitRedial(ctx context.Context) bool {
	now := time.Now().UnixNano()
	step := int64(time.Second / maxRedials)
	slot := at.nextRedial.Add(step) - step
	if slot < now {
		// Idle slots are not saved up for a burst.
		at.nextRedial.CompareAndSwap(slot+step, now+step)
		return true
	}
	return sleepCtx(ctx, time.Duration(slot-now))
}

// startAttack starts a's connections, each in its own goroutine, after
// delay (so that the load's own connections are up first: those are the
// "existing" ones a server must keep serving).
func startAttack(ctx context.Context, a Attack, addr string, delay time.Duration) *attacker {
	ctx, cancel := context.WithCancel(ctx)
	at := &attacker{a: a, addr: addr, cancel: cancel}
	if a.Kind == AttackSlowloris {
		at.wg.Add(1)
		go func() {
			defer at.wg.Done()
			at.slowloris(ctx, delay)
		}()
		return at
	}
	for i := 0; i < a.Connections; i++ {
		at.wg.Add(1)
		go func() {
			defer at.wg.Done()
			at.keepOne(ctx, i, delay)
		}()
	}
	return at
}

// stop ends the attack, closes its connections and returns its stats.
func (at *attacker) stop() AttackStats {
	at.cancel()
	at.wg.Wait()
	return AttackStats{Opened: at.opened.Load(), Cut: at.cut.Load(), Failed: at.failed.Load(), Bytes: at.bytes.Load()}
}

// keepOne keeps one hostile connection going until ctx ends.
func (at *attacker) keepOne(ctx context.Context, i int, delay time.Duration) {
	// Spread the first connections over a second rather than opening
	// thousands in one burst.
	if !sleepCtx(ctx, delay+time.Duration(i)*time.Second/time.Duration(at.a.Connections)) {
		return
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	for first := true; ctx.Err() == nil; first = false {
		if !first && !at.waitRedial(ctx) {
			return
		}
		c, err := d.DialContext(ctx, "tcp", at.addr)
		if err != nil {
			if ctx.Err() == nil {
				at.failed.Add(1)
			}
			sleepCtx(ctx, 100*time.Millisecond)
			continue
		}
		at.opened.Add(1)
		stop := context.AfterFunc(ctx, func() { c.Close() })
		cut := at.feed(ctx, c)
		stop()
		c.Close()
		if cut && ctx.Err() == nil {
			at.cut.Add(1)
		}
	}
}

// feed sends the attack's bytes on c until the server cuts it (true) or
// ctx ends.
func (at *attacker) feed(ctx context.Context, c net.Conn) bool {
	write := func(p []byte) bool {
		c.SetWriteDeadline(time.Now().Add(time.Second))
		for {
			n, err := c.Write(p)
			at.bytes.Add(int64(n))
			if err == nil {
				return true
			}
			if isTimeout(err) && ctx.Err() == nil {
				// The server is not reading: keep the pressure on.
				p = p[n:]
				c.SetWriteDeadline(time.Now().Add(time.Second))
				continue
			}
			return false
		}
	}
	switch at.a.Kind {
	case AttackIdle:
		// Nothing to send: wait for the server to close it.
		c.SetReadDeadline(time.Time{})
		c.Read(make([]byte, 1))
	case AttackBigHeads, AttackBigBodies:
		start, repeat := "GET / HTTP/1.1\r\nHost: x\r\nX-Big: ", strings.Repeat("a", 16<<10)
		if at.a.Kind == AttackBigBodies {
			start = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
			repeat = fmt.Sprintf("%x\r\n%s\r\n", 16<<10, strings.Repeat("b", 16<<10))
		}
		if write([]byte(start)) {
			p := []byte(repeat)
			for ctx.Err() == nil && write(p) {
			}
		}
	}
	return true
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// sleepCtx sleeps for d or until ctx ends; false means ctx ended.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

package lab

import (
	"context"
	"io"
	"log"
	"testing"
	"time"

	"github.com/gust-http/gust/server"
)

// TestAttacksAreCutByTheServer runs each attack against a gust server with
// tight limits and checks that the attack connected, that the server cut
// its connections (and the attack replaced them), and that stop returns.
func TestAttacksAreCutByTheServer(t *testing.T) {
	for _, kind := range AttackKinds {
		t.Run(kind, func(t *testing.T) {
			s := &server.Server{
				Handler: server.HandlerFunc(func(c *server.Ctx) { c.WriteString("ok") }),
				Config: server.Config{
					ReadHeaderTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond,
					MaxHeaderBytes: 4096, MaxBodyBytes: 64 << 10, ErrorLog: log.New(io.Discard, "", 0),
				},
			}
			if err := s.Listen("127.0.0.1:0"); err != nil {
				t.Fatal(err)
			}
			go s.Serve()
			defer s.Close()

			at := startAttack(context.Background(), Attack{Kind: kind, Connections: 10}, s.Addr().String(), 0)
			// Stop once the server has cut a connection and the attack has
			// replaced it (a slowloris connection learns it was cut at its
			// next write but one, a byte a second), and bytes went out.
			for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if at.opened.Load() > 10 && at.cut.Load() > 0 && (kind == AttackIdle || at.bytes.Load() > 0) {
					break
				}
			}
			done := make(chan AttackStats, 1)
			go func() { done <- at.stop() }()
			var st AttackStats
			select {
			case st = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("stop did not return")
			}
			if st.Opened <= 10 || st.Cut == 0 || st.Failed != 0 {
				t.Errorf("stats %+v: want more than 10 opened (cut ones replaced), some cut, none failed", st)
			}
			if kind != AttackIdle && st.Bytes == 0 {
				t.Errorf("stats %+v: nothing sent", st)
			}
		})
	}
}

// TestAttackAtASinkLeavesTheServerAlone: a control attack goes to the
// sink, not to the server.
func TestAttackAtASinkLeavesTheServerAlone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, err := startSink(ctx)
	if err != nil {
		t.Fatal(err)
	}
	at := startAttack(ctx, Attack{Kind: AttackSlowloris, Connections: 5, Sink: true}, addr, 0)
	// The first connections are spread over a second; on a busy machine
	// they may take longer, so wait for them (bounded) rather than a fixed
	// time, and for bytes to have gone out on them.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if at.opened.Load() == 5 && at.bytes.Load() > 0 {
			break
		}
	}
	st := at.stop()
	if st.Opened != 5 || st.Cut != 0 || st.Bytes == 0 {
		t.Errorf("stats %+v: want 5 connections held by the sink, bytes sent, none cut", st)
	}
}

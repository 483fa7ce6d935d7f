package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gust-http/gust/result"
)

// webSocketRun is a WebSocket echo run: messages as requests, upgrades
// with a few refused by status, a server close, its section in every
// report.
func webSocketRun() *result.Result {
	r := closedRun()
	r.URL = "ws://127.0.0.1:8080/ws"
	r.Protocol = result.ProtoWebSocket
	r.Status = map[int]int64{}
	r.Errors[result.ErrUpgrade] = 3
	r.Errors[result.ErrClosed] = 1
	w := result.NewWebSocket()
	w.Inflight, w.Size, w.DeflateOffered = 1, 64, true
	w.Upgrades, w.Deflate, w.UpgradeFailed = 51, 51, 3
	w.UpgradeStatus[404] = 3
	record(w.Upgrade, 120, 50, 900, 1)
	w.MessagesSent, w.MessagesReceived = r.Requests+1, r.Requests
	w.BytesSent, w.BytesReceived = 64*(r.Requests+1), 64*r.Requests
	w.Closes[4001] = 1
	w.PingsReceived = 2
	w.Held = 50
	r.WebSocket = w
	return r
}

// heldRun is a --ws-hold run: no messages, pings every 30s.
func heldRun() *result.Result {
	r := emptyInterruptedRun()
	r.URL = "wss://127.0.0.1:8443/ws"
	r.Protocol = result.ProtoWebSocket
	w := result.NewWebSocket()
	w.Hold, w.Ping = true, 30*time.Second
	w.Upgrades, w.Held, w.PingsSent, w.PongsReceived = 3, 3, 6, 6
	record(w.Upgrade, 300, 3)
	r.WebSocket = w
	return r
}

func TestWebSocketSections(t *testing.T) {
	for _, tc := range []struct {
		name    string
		run     func() *result.Result
		want    []string
		notWant []string
	}{
		{"an echo run describes its messages, upgrades, closes and held connections", webSocketRun, []string{
			"WebSocket, 64-byte binary messages, 1 in flight per connection, permessage-deflate offered, closed model",
			"Upgrades    p50 120us, p99 120us, max 900us (51 upgrades), permessage-deflate on 51, 3 failed (status 404: 3)",
			"Closes      4001: 1", "Held        50 of 50 connections open at the end", "upgrade: 3",
		}, nil},
		{"a held run pings and sends no messages", heldRun, []string{
			"WebSocket, held (a ping every 30s)\n", "Pings       6 sent, 6 pongs received", "Held        3 of",
		}, []string{"Messages"}},
		{"an HTTP run has no WebSocket section", closedRun, nil, []string{"Upgrades", "WebSocket", "Held", "upgrade"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Text(&buf, tc.run()); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("text lacks %q:\n%s", w, buf.String())
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(buf.String(), w) {
					t.Errorf("text has %q:\n%s", w, buf.String())
				}
			}
		})
	}
}

// TestWebSocketJSONReadsBack writes a WebSocket run as JSON and reads it
// back: every counter, code and histogram the same.
func TestWebSocketJSONReadsBack(t *testing.T) {
	for _, run := range []func() *result.Result{webSocketRun, heldRun} {
		r := run()
		var buf bytes.Buffer
		if err := JSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		parts, err := ReadResults(buf.Bytes(), "ws.json")
		if err != nil {
			t.Fatal(err)
		}
		got, want := parts[0].Result.WebSocket, r.WebSocket
		if !got.Upgrade.Equals(want.Upgrade) {
			t.Error("the upgrade histogram changed on the way")
		}
		got.Upgrade, want.Upgrade = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("read back %+v\nwant %+v", got, want)
		}
		if parts[0].Result.Errors[result.ErrUpgrade] != r.Errors[result.ErrUpgrade] {
			t.Errorf("upgrade errors %v, want %v", parts[0].Result.Errors, r.Errors)
		}
	}
}

// TestWebSocketMergeIsTheSum merges two agents' WebSocket results read
// back from JSON: every counter the sum, the upgrade histograms added.
func TestWebSocketMergeIsTheSum(t *testing.T) {
	var parts []result.Part
	var sum result.WebSocket
	sumHist := result.NewHistogram()
	for i := range 2 {
		r := shardRun(i, fixtureStart, 3*time.Second, 3)
		r.URL, r.Protocol, r.Status = "ws://gust-server:8080/ws", result.ProtoWebSocket, map[int]int64{}
		r.Shard = result.Shard{Index: i, Count: 2}
		w := result.NewWebSocket()
		w.Inflight, w.Size = 1, 64
		w.Upgrades, w.Held, w.MessagesSent, w.MessagesReceived = 10, 10-int64(i), 100+int64(i), 100
		w.Closes[1001] = int64(i)
		w.UpgradeStatus[503] = 2
		w.UpgradeFailed = 2
		record(w.Upgrade, 200+int64(i)*100, 10)
		sumHist.Merge(w.Upgrade)
		sum.Upgrades += w.Upgrades
		sum.Held += w.Held
		sum.MessagesSent += w.MessagesSent
		sum.UpgradeFailed += w.UpgradeFailed
		r.WebSocket = w
		var buf bytes.Buffer
		if err := JSON(&buf, r); err != nil {
			t.Fatal(err)
		}
		p, err := ReadResults(buf.Bytes(), "agent")
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p...)
	}
	m, err := result.Merge(parts, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	w := m.WebSocket
	if w.Upgrades != sum.Upgrades || w.Held != sum.Held || w.MessagesSent != sum.MessagesSent || w.UpgradeFailed != sum.UpgradeFailed ||
		w.UpgradeStatus[503] != 4 || w.Closes[1001] != 1 || !w.Upgrade.Equals(sumHist) || w.Inflight != 1 {
		t.Errorf("merged %+v, want the sum of the agents'", w)
	}
	parts[1].Result.WebSocket.Inflight = 4
	if _, err := result.Merge(parts, time.Second); err == nil || !strings.Contains(err.Error(), "4 in flight") {
		t.Errorf("merging different in-flight depths: err = %v", err)
	}
}

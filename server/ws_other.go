//go:build !linux

package server

import (
	"net"
	"net/http"
)

// The portable fallback engine serves no WebSocket of its own:
// Ctx.UpgradeWebSocket answers 501 there (a net/http handler can still
// Hijack and use a WebSocket library). These stand-ins keep the API the
// same on every platform.

// WSConn is one WebSocket connection (Linux engine only).
type WSConn struct{}

// Send fails: there are no WebSocket connections off Linux.
func (ws *WSConn) Send(typ WSMessageType, data []byte) error { return ErrWSClosed }

// SendText fails: there are no WebSocket connections off Linux.
func (ws *WSConn) SendText(s string) error { return ErrWSClosed }

// Ping fails: there are no WebSocket connections off Linux.
func (ws *WSConn) Ping(data []byte) error { return ErrWSClosed }

// Close fails: there are no WebSocket connections off Linux.
func (ws *WSConn) Close(code int, reason string) error { return ErrWSClosed }

// Subprotocol returns "".
func (ws *WSConn) Subprotocol() string { return "" }

// RemoteAddr returns nil.
func (ws *WSConn) RemoteAddr() net.Addr { return nil }

// SetValue does nothing.
func (ws *WSConn) SetValue(v any) {}

// Value returns nil.
func (ws *WSConn) Value() any { return nil }

// WSGroup is a set of WebSocket connections (Linux engine only).
type WSGroup struct{}

// Add does nothing.
func (g *WSGroup) Add(ws *WSConn) {}

// Remove does nothing.
func (g *WSGroup) Remove(ws *WSConn) {}

// Len returns 0.
func (g *WSGroup) Len() int { return 0 }

// Broadcast sends to no one.
func (g *WSGroup) Broadcast(typ WSMessageType, data []byte) int { return 0 }

func (c *Ctx) canUpgrade() bool { return false }

func upgradeStream(w http.ResponseWriter, ws *WebSocket) (bool, error) { return false, nil }

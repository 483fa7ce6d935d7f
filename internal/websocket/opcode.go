package websocket

// Opcode is a frame's opcode (RFC 6455 section 5.2).
type Opcode byte

// The opcodes RFC 6455 defines; the others are reserved and refused.
const (
	OpContinuation Opcode = 0x0
	OpText         Opcode = 0x1
	OpBinary       Opcode = 0x2
	OpClose        Opcode = 0x8
	OpPing         Opcode = 0x9
	OpPong         Opcode = 0xA
)

// IsControl reports whether op is a control opcode (close, ping, pong and
// the reserved 0xB-0xF): such frames may not be fragmented and carry at
// most 125 bytes.
func (op Opcode) IsControl() bool { return op&0x8 != 0 }

// Known reports whether op is one of the six opcodes RFC 6455 defines.
func (op Opcode) Known() bool {
	switch op {
	case OpContinuation, OpText, OpBinary, OpClose, OpPing, OpPong:
		return true
	}
	return false
}

var opNames = [...]string{0: "continuation", 1: "text", 2: "binary", 8: "close", 9: "ping", 10: "pong"}

// String returns the opcode's lowercase name, or "reserved".
func (op Opcode) String() string {
	if int(op) < len(opNames) && opNames[op] != "" {
		return opNames[op]
	}
	return "reserved"
}

//go:build !linux

package server

func loopConnCounts(*Server) []int { return nil }

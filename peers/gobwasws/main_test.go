package main

import (
	"testing"

	"github.com/gust-http/gust/peers/internal/wscheck"
)

func TestWebSocketPaths(t *testing.T) { wscheck.RunNetHTTP(t, newHandler) }

// Package wsclients checks gust/server's WebSocket against real Go clients,
// gorilla/websocket's and coder/websocket's, over ws and wss, with and
// without permessage-deflate. It has tests only.
package wsclients

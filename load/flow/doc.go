// Package flow runs user journeys without I/O: a flow file (YAML or
// JSON) of steps, each a request whose answer may set variables
// (captures from a JSON path, a header, a regular expression, and
// cookies) and is checked (status, body, JSON, headers, latency), with
// think times between steps, weighted choices, repeated blocks and once
// steps at a user's start. Compile turns the file into a Flow shared by
// every loop; each virtual user is a User of a few hundred bytes that a
// load loop drives on whichever connection is free: Next says what to
// send or how long to think, Request builds the request in the loop's
// Builder, Done takes the response. No goroutine per user, no map
// per user: variables are a slice by number, templates compiled once.
//
// # Files
//
//   - builder.go: Builder, the loop's buffers a user's request is built in
//   - compile.go: Options, Flow, Compile: steps, templates and the program of once and iteration steps
//   - jar.go: a user's cookies: Set-Cookie kept by name and path, expiry, the Cookie field sent
//   - jsonpath.go: JSON paths (a.b[0].c) looked up by scanning the body, never decoding it
//   - parse.go: the flow file read from YAML nodes, every error naming its line and field
//   - redirect.go: a step's redirects followed as a browser does, on the target's host
//   - response.go: Response, header lookup, captures and checks
//   - stats.go: Stats, one loop's iterations and check counts, added into result.Flows
//   - think.go: Think, fixed, uniform and exponential pauses
//   - user.go: User: Begin, Next, Done, variables
package flow

// Package grpcmsg turns a gRPC call named on the command line into what
// gust load sends: .proto files compiled in process (no code generator,
// no protoc) or the descriptors asked of the server by gRPC server
// reflection, the method found by its full name, and the request message
// read from JSON and encoded once as a length-prefixed gRPC message. The
// generator's loops see only the bytes and the path; nothing of protobuf
// runs per request.
//
// # Files
//
//   - grpcmsg.go: Compile, a method from .proto files; Method.Body, its request from JSON, length-prefixed
//   - reflect.go: Reflect, a method from the server's reflection service (v1, else v1alpha)
package grpcmsg

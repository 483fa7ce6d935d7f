package grpcmsg

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Method is a gRPC method found in compiled .proto files.
type Method struct {
	// Path is the request's :path, /PACKAGE.SERVICE/METHOD.
	Path string
	// Input and Output are the request and response message types.
	Input, Output protoreflect.MessageDescriptor
	// ClientStreaming and ServerStreaming are the method's stream kinds.
	ClientStreaming, ServerStreaming bool
}

// Compile compiles the .proto files (their imports looked up under
// importPaths, the directory of each file, then the well-known types
// google/protobuf/*.proto) and returns the method call names, written
// PACKAGE.SERVICE/METHOD. Errors are one line naming the file, service or
// method at fault.
func Compile(files, importPaths []string, call string) (*Method, error) {
	svcName, methName, err := splitCall(call)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("--grpc-call needs the service's .proto file: add --grpc-proto FILE")
	}
	paths := append([]string{""}, importPaths...)
	for _, f := range files {
		if d := filepath.Dir(f); d != "." {
			paths = append(paths, d)
		}
	}
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: paths}),
	}
	compiled, err := c.Compile(context.Background(), files...)
	if err != nil {
		return nil, fmt.Errorf("--grpc-proto: %s", oneLine(err.Error()))
	}
	for _, f := range compiled {
		d := f.FindDescriptorByName(protoreflect.FullName(svcName))
		if d == nil {
			continue
		}
		svc, ok := d.(protoreflect.ServiceDescriptor)
		if !ok {
			return nil, fmt.Errorf("--grpc-call %q: %s is not a service in %s", call, svcName, f.Path())
		}
		return newMethod(svc, call, methName)
	}
	return nil, fmt.Errorf("--grpc-call %q: no service %s in %s", call, svcName, strings.Join(files, ", "))
}

// splitCall splits PACKAGE.SERVICE/METHOD.
func splitCall(call string) (svc, method string, err error) {
	svc, method, ok := strings.Cut(strings.TrimPrefix(call, "/"), "/")
	if !ok || svc == "" || method == "" || strings.Contains(method, "/") {
		return "", "", fmt.Errorf("--grpc-call %q: write it PACKAGE.SERVICE/METHOD, e.g. grpc.testing.TestService/UnaryCall", call)
	}
	return svc, method, nil
}

// newMethod is svc's method name, or an error listing the ones it has.
func newMethod(svc protoreflect.ServiceDescriptor, call, name string) (*Method, error) {
	m := svc.Methods().ByName(protoreflect.Name(name))
	if m == nil {
		return nil, fmt.Errorf("--grpc-call %q: service %s has no method %s (it has %s)", call, svc.FullName(), name, methodNames(svc))
	}
	return &Method{
		Path: "/" + string(svc.FullName()) + "/" + name, Input: m.Input(), Output: m.Output(),
		ClientStreaming: m.IsStreamingClient(), ServerStreaming: m.IsStreamingServer(),
	}, nil
}

// methodNames lists svc's methods, comma-separated.
func methodNames(svc protoreflect.ServiceDescriptor) string {
	ms := svc.Methods()
	names := make([]string, ms.Len())
	for i := range names {
		names[i] = string(ms.Get(i).Name())
	}
	return strings.Join(names, ", ")
}

// Body reads the request message from JSON (protobuf's JSON mapping; an
// empty body is {}) and returns it as one uncompressed gRPC message: a
// zero flag byte, the length in 4 big-endian bytes, the protobuf bytes.
func (m *Method) Body(json []byte) ([]byte, error) {
	msg := dynamicpb.NewMessage(m.Input)
	if len(strings.TrimSpace(string(json))) > 0 {
		if err := protojson.Unmarshal(json, msg); err != nil {
			return nil, fmt.Errorf("request data for %s: %s", m.Input.FullName(), oneLine(err.Error()))
		}
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("request data for %s: %s", m.Input.FullName(), oneLine(err.Error()))
	}
	out := make([]byte, 5, 5+len(b))
	binary.BigEndian.PutUint32(out[1:], uint32(len(b)))
	return append(out, b...), nil
}

// oneLine keeps the first line of a message: a user-facing error is one
// line.
func oneLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(first)
}

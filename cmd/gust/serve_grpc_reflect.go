package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Server reflection for gust serve --grpc: grpc.reflection.v1 and
// v1alpha's ServerReflectionInfo describe gust.echo.Echo, so that gust
// load --grpc-reflect, grpcurl and other clients need no .proto file. The
// service's file is compiled from echoProtoSource once, when the server
// starts; the few request and response fields are read and written with
// protowire.

// echoProtoName is the file's name in its descriptor.
const echoProtoName = "gust/echo.proto"

// echoProtoSource is docs/guides/grpc/echo.proto (a test keeps the two
// the same).
const echoProtoSource = `// The service gust serve --grpc answers: every kind of call, on opaque
// messages it sends back as they came (data), count times for a server
// stream, or counted (count) for a client stream.
syntax = "proto3";

package gust.echo;

message Msg {
  bytes data = 1;
  int32 count = 2;
}

service Echo {
  // Unary answers the message itself.
  rpc Unary(Msg) returns (Msg);
  // ServerStream answers the message count times (once when count is 0).
  rpc ServerStream(Msg) returns (stream Msg);
  // ClientStream answers, once the client is done, a Msg whose count is
  // how many messages it sent.
  rpc ClientStream(stream Msg) returns (Msg);
  // Bidi answers each message as it arrives.
  rpc Bidi(stream Msg) returns (stream Msg);
}
`

// The reflection services' path prefixes.
var grpcReflectPrefixes = []string{"/grpc.reflection.v1.ServerReflection/", "/grpc.reflection.v1alpha.ServerReflection/"}

// Field numbers of ServerReflectionRequest and ServerReflectionResponse.
const (
	reflHost             protowire.Number = 1
	reflFileByFilename   protowire.Number = 3
	reflFileContaining   protowire.Number = 4
	reflExtension        protowire.Number = 5
	reflExtensionNumbers protowire.Number = 6
	reflListServices     protowire.Number = 7

	reflValidHost       protowire.Number = 1
	reflOriginalRequest protowire.Number = 2
	reflFileResponse    protowire.Number = 4
	reflExtensionResp   protowire.Number = 5
	reflServicesResp    protowire.Number = 6
	reflErrorResp       protowire.Number = 7
)

// grpcNotFound is gRPC's NOT_FOUND status code.
const grpcNotFound = 5

// grpcReflection describes the echo service.
type grpcReflection struct {
	files *protoregistry.Files
	file  []byte // echo.proto's FileDescriptorProto
}

// newGRPCReflection compiles echoProtoSource.
func newGRPCReflection() (*grpcReflection, error) {
	c := protocompile.Compiler{Resolver: &protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{echoProtoName: echoProtoSource}),
	}}
	compiled, err := c.Compile(context.Background(), echoProtoName)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", echoProtoName, err)
	}
	fd := protodesc.ToFileDescriptorProto(compiled[0])
	file, err := proto.MarshalOptions{Deterministic: true}.Marshal(fd)
	if err != nil {
		return nil, err
	}
	files := new(protoregistry.Files)
	if err := files.RegisterFile(compiled[0]); err != nil {
		return nil, err
	}
	return &grpcReflection{files: files, file: file}, nil
}

// isGRPCReflection says whether path is a reflection method's.
func isGRPCReflection(path string) bool {
	for _, p := range grpcReflectPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// call runs one ServerReflectionInfo stream: an answer to each request.
func (g *grpcReflection) call(path string, in *bufio.Reader, out *grpcWriter) (code int, msg string) {
	if !strings.HasSuffix(path, "/ServerReflectionInfo") {
		return grpcUnimplemented, "the reflection service has no method " + path[strings.LastIndexByte(path, '/')+1:]
	}
	for {
		req, err := readGRPCMessage(in)
		if errors.Is(err, io.EOF) {
			return grpcOK, ""
		}
		if err != nil {
			return grpcReadStatus(err)
		}
		ans, err := g.answer(req)
		if err != nil {
			return grpcInvalid, err.Error()
		}
		if err := out.send(ans); err != nil {
			return grpcInternal, "the client went away"
		}
	}
}

// answer is the ServerReflectionResponse to req.
func (g *grpcReflection) answer(req []byte) ([]byte, error) {
	var host string
	var kind protowire.Number
	var value []byte
	for b := req; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, errors.New("a reflection request that does not decode")
		}
		b = b[n:]
		var v []byte
		if typ == protowire.BytesType {
			v, n = protowire.ConsumeBytes(b)
		} else {
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return nil, errors.New("a reflection request that does not decode")
		}
		b = b[n:]
		switch {
		case num == reflHost && typ == protowire.BytesType:
			host = string(v)
		case num >= reflFileByFilename && num <= reflListServices:
			kind, value = num, v
		}
	}
	out := protowire.AppendString(protowire.AppendTag(nil, reflValidHost, protowire.BytesType), host)
	out = protowire.AppendBytes(protowire.AppendTag(out, reflOriginalRequest, protowire.BytesType), req)
	switch kind {
	case reflFileByFilename:
		if string(value) == echoProtoName {
			return g.appendFile(out), nil
		}
		return appendReflectError(out, grpcNotFound, "no file "+string(value)), nil
	case reflFileContaining:
		if _, err := g.files.FindDescriptorByName(protoreflect.FullName(value)); err == nil {
			return g.appendFile(out), nil
		}
		return appendReflectError(out, grpcNotFound, "no symbol "+string(value)), nil
	case reflExtensionNumbers:
		if d, err := g.files.FindDescriptorByName(protoreflect.FullName(value)); err == nil {
			if _, ok := d.(protoreflect.MessageDescriptor); ok {
				// No extensions: the base type's name and no numbers.
				resp := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), string(value))
				return protowire.AppendBytes(protowire.AppendTag(out, reflExtensionResp, protowire.BytesType), resp), nil
			}
		}
		return appendReflectError(out, grpcNotFound, "no message type "+string(value)), nil
	case reflExtension:
		return appendReflectError(out, grpcNotFound, echoProtoName+" declares no extensions"), nil
	case reflListServices:
		svc := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), strings.Trim(grpcService, "/"))
		list := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), svc)
		return protowire.AppendBytes(protowire.AppendTag(out, reflServicesResp, protowire.BytesType), list), nil
	}
	return appendReflectError(out, grpcInvalid, "a reflection request asking nothing gust serve knows"), nil
}

// appendFile appends a FileDescriptorResponse holding echo.proto.
func (g *grpcReflection) appendFile(out []byte) []byte {
	resp := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), g.file)
	return protowire.AppendBytes(protowire.AppendTag(out, reflFileResponse, protowire.BytesType), resp)
}

// appendReflectError appends an ErrorResponse.
func appendReflectError(out []byte, code int, msg string) []byte {
	e := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), uint64(code))
	e = protowire.AppendString(protowire.AppendTag(e, 2, protowire.BytesType), msg)
	return protowire.AppendBytes(protowire.AppendTag(out, reflErrorResp, protowire.BytesType), e)
}

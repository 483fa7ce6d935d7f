package grpcmsg

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Server reflection (gust load --grpc-reflect): the method's descriptors
// asked of the server itself, through grpc.reflection.v1's
// ServerReflectionInfo (v1alpha when the server answers v1 with
// UNIMPLEMENTED), once before the run. Each question is a stream of its
// own carrying one request message; the few fields used are read and
// written with protowire, so no generated reflection code is linked in.

// The reflection services, newest first.
const (
	reflectV1      = "grpc.reflection.v1.ServerReflection"
	reflectV1alpha = "grpc.reflection.v1alpha.ServerReflection"
)

// Field numbers of ServerReflectionRequest and ServerReflectionResponse
// (the same in v1 and v1alpha).
const (
	reqFileByFilename       protowire.Number = 3
	reqFileContainingSymbol protowire.Number = 4
	reqListServices         protowire.Number = 7
	respFileDescriptors     protowire.Number = 4
	respListServices        protowire.Number = 6
	respError               protowire.Number = 7
)

// Bounds on what a server's answers may hold.
const (
	maxReflectFiles  = 512
	maxReflectAnswer = 64 << 20
)

// gRPC status codes Reflect tells apart.
const (
	statusNotFound      = 5
	statusUnimplemented = 12
)

// Reflect finds the method call names, written PACKAGE.SERVICE/METHOD, by
// asking the gRPC server at base (http:// for h2c, https:// for h2; no
// path) for the file that defines the service and the files it imports.
// client must speak HTTP/2 to base. Errors are one line: a server without
// reflection, a service or method it does not have, an answer that is not
// a valid descriptor.
func Reflect(ctx context.Context, client *http.Client, base, call string) (*Method, error) {
	svcName, methName, err := splitCall(call)
	if err != nil {
		return nil, err
	}
	r := &reflector{client: client, base: strings.TrimSuffix(base, "/"), service: reflectV1}
	ans, err := r.ask(ctx, reqFileContainingSymbol, svcName)
	if err != nil {
		return nil, err
	}
	if ans.errCode != 0 {
		if ans.errCode == statusNotFound {
			return nil, fmt.Errorf("--grpc-call %q: the server has no service %s (%s)", call, svcName, r.serviceList(ctx))
		}
		return nil, fmt.Errorf("--grpc-reflect: the server could not describe %s: %s", svcName, oneLine(ans.errMsg))
	}
	files := map[string]*descriptorpb.FileDescriptorProto{}
	if err := addFiles(files, ans.files); err != nil {
		return nil, err
	}
	// A server may leave out the imports it sent before on the same
	// stream (each question here has a stream of its own) or ones it does
	// not know it has; each missing one is asked for by name.
	for missing := missingDeps(files); missing != ""; missing = missingDeps(files) {
		if len(files) >= maxReflectFiles {
			return nil, fmt.Errorf("--grpc-reflect: %s imports more than %d files", svcName, maxReflectFiles)
		}
		ans, err := r.ask(ctx, reqFileByFilename, missing)
		if err != nil {
			return nil, err
		}
		if ans.errCode != 0 || len(ans.files) == 0 {
			return nil, fmt.Errorf("--grpc-reflect: the server does not give %s, which %s's file imports", missing, svcName)
		}
		if err := addFiles(files, ans.files); err != nil {
			return nil, err
		}
		if files[missing] == nil {
			return nil, fmt.Errorf("--grpc-reflect: asked for %s, the server gave other files", missing)
		}
	}
	set := &descriptorpb.FileDescriptorSet{}
	for _, f := range files {
		set.File = append(set.File, f)
	}
	reg, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, fmt.Errorf("--grpc-reflect: the server's descriptors of %s do not build: %s", svcName, oneLine(err.Error()))
	}
	d, err := reg.FindDescriptorByName(protoreflect.FullName(svcName))
	if err != nil {
		return nil, fmt.Errorf("--grpc-call %q: the server has no service %s (%s)", call, svcName, r.serviceList(ctx))
	}
	svc, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("--grpc-call %q: %s is not a service on the server", call, svcName)
	}
	return newMethod(svc, call, methName)
}

// addFiles decodes FileDescriptorProtos into files, by name.
func addFiles(files map[string]*descriptorpb.FileDescriptorProto, raw [][]byte) error {
	for _, b := range raw {
		f := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(b, f); err != nil {
			return fmt.Errorf("--grpc-reflect: the server sent a file descriptor that does not decode: %s", oneLine(err.Error()))
		}
		if _, ok := files[f.GetName()]; !ok {
			files[f.GetName()] = f
		}
	}
	return nil
}

// missingDeps returns an import of files that files lacks, "" if none.
func missingDeps(files map[string]*descriptorpb.FileDescriptorProto) string {
	var missing []string
	for _, f := range files {
		for _, dep := range f.GetDependency() {
			if files[dep] == nil {
				missing = append(missing, dep)
			}
		}
	}
	if len(missing) == 0 {
		return ""
	}
	sort.Strings(missing) // the same question order on every run
	return missing[0]
}

// reflector asks one server questions of its reflection service.
type reflector struct {
	client  *http.Client
	base    string
	service string // reflectV1, or reflectV1alpha once v1 was UNIMPLEMENTED
}

// answer is what a ServerReflectionResponse says.
type answer struct {
	files    [][]byte // FileDescriptorProtos
	services []string
	errCode  int
	errMsg   string
}

// ask sends one ServerReflectionRequest whose field is value and returns
// the answer, falling back to v1alpha once if v1 is unimplemented.
func (r *reflector) ask(ctx context.Context, field protowire.Number, value string) (*answer, error) {
	ans, code, err := r.call(ctx, field, value)
	if err == nil && code == statusUnimplemented && r.service == reflectV1 {
		r.service = reflectV1alpha
		ans, code, err = r.call(ctx, field, value)
	}
	switch {
	case err != nil:
		return nil, err
	case code == statusUnimplemented:
		return nil, fmt.Errorf("--grpc-reflect: %s does not serve gRPC server reflection (v1 and v1alpha UNIMPLEMENTED): give the service's .proto file with --grpc-proto instead", r.base)
	case code != 0:
		return nil, fmt.Errorf("--grpc-reflect: %s answered %s with grpc-status %d", r.base, r.service, code)
	}
	return ans, nil
}

// call makes one call of the reflection service and returns its answer
// and grpc-status (an answer only when the status is 0).
func (r *reflector) call(ctx context.Context, field protowire.Number, value string) (*answer, int, error) {
	msg := protowire.AppendString(protowire.AppendTag(nil, field, protowire.BytesType), value)
	body := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(body[1:], uint32(len(msg)))
	body = append(body, msg...)
	url := r.base + "/" + r.service + "/ServerReflectionInfo"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, fmt.Errorf("--grpc-reflect: %s", oneLine(err.Error()))
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("--grpc-reflect: ask %s: %s", r.base, oneLine(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReflectAnswer+1))
	if err != nil {
		return nil, 0, fmt.Errorf("--grpc-reflect: read %s's answer: %s", r.base, oneLine(err.Error()))
	}
	switch {
	case resp.StatusCode == http.StatusNotFound: // gRPC maps it to UNIMPLEMENTED
		return nil, statusUnimplemented, nil
	case resp.StatusCode != http.StatusOK:
		return nil, 0, fmt.Errorf("--grpc-reflect: %s answered HTTP %d, not a gRPC answer", url, resp.StatusCode)
	case !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/grpc"):
		return nil, 0, fmt.Errorf("--grpc-reflect: %s is not a gRPC server (HTTP %d, Content-Type %q): check the URL, or give --grpc-proto", r.base, resp.StatusCode, resp.Header.Get("Content-Type"))
	case len(data) > maxReflectAnswer:
		return nil, 0, fmt.Errorf("--grpc-reflect: %s's answer is over %d MiB", r.base, maxReflectAnswer>>20)
	}
	status := resp.Trailer.Get("Grpc-Status")
	if status == "" {
		status = resp.Header.Get("Grpc-Status") // a trailers-only answer
	}
	code, err := strconv.Atoi(status)
	if err != nil {
		return nil, 0, fmt.Errorf("--grpc-reflect: %s answered without a grpc-status", url)
	}
	if code != 0 {
		return nil, code, nil
	}
	if len(data) < 5 || data[0] != 0 || int(binary.BigEndian.Uint32(data[1:5])) > len(data)-5 {
		return nil, 0, fmt.Errorf("--grpc-reflect: %s's answer is not one uncompressed gRPC message", r.base)
	}
	ans, err := parseAnswer(data[5 : 5+binary.BigEndian.Uint32(data[1:5])])
	if err != nil {
		return nil, 0, fmt.Errorf("--grpc-reflect: %s's answer does not decode: %v", r.base, err)
	}
	return ans, 0, nil
}

// serviceList names the server's services for an error message.
func (r *reflector) serviceList(ctx context.Context) string {
	ans, err := r.ask(ctx, reqListServices, "*")
	if err != nil || ans.errCode != 0 {
		return "it lists none"
	}
	var names []string
	for _, s := range ans.services {
		if !strings.HasPrefix(s, "grpc.reflection.") { // not what a run calls
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return "it lists none"
	}
	sort.Strings(names)
	return "it has " + strings.Join(names, ", ")
}

// parseAnswer reads a ServerReflectionResponse.
func parseAnswer(b []byte) (*answer, error) {
	ans := &answer{}
	err := eachField(b, func(num protowire.Number, v []byte, varint uint64) error {
		switch num {
		case respFileDescriptors: // FileDescriptorResponse: repeated bytes (1)
			return eachField(v, func(num protowire.Number, v []byte, _ uint64) error {
				if num == 1 {
					ans.files = append(ans.files, v)
				}
				return nil
			})
		case respListServices: // ListServiceResponse: repeated ServiceResponse (1), each a name (1)
			return eachField(v, func(num protowire.Number, v []byte, _ uint64) error {
				if num != 1 {
					return nil
				}
				return eachField(v, func(num protowire.Number, v []byte, _ uint64) error {
					if num == 1 {
						ans.services = append(ans.services, string(v))
					}
					return nil
				})
			})
		case respError: // ErrorResponse: error_code (1), error_message (2)
			ans.errCode = -1 // an error even without a code
			return eachField(v, func(num protowire.Number, v []byte, varint uint64) error {
				switch num {
				case 1:
					if varint != 0 {
						ans.errCode = int(int32(varint))
					}
				case 2:
					ans.errMsg = string(v)
				}
				return nil
			})
		}
		return nil
	})
	return ans, err
}

// eachField calls fn with each field of the message b: a length-delimited
// field's bytes as v, a varint's value as varint; other kinds skipped.
func eachField(b []byte, fn func(num protowire.Number, v []byte, varint uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v []byte
		var varint uint64
		switch typ {
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		case protowire.VarintType:
			varint, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.BytesType || typ == protowire.VarintType {
			if err := fn(num, v, varint); err != nil {
				return err
			}
		}
	}
	return nil
}

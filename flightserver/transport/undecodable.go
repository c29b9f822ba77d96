package transport

import (
	"bytes"
	"context"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// A request whose protobuf does not decode (a string field that is not
// UTF-8, a truncated field, a wrong wire type) is the client's mistake,
// but gRPC answers it INTERNAL, the code of the server's own failures,
// and writes that status itself, inside the receive, before a handler or
// an interceptor could say otherwise. So the server's codec
// (requestCodec) does not fail such a request: it hands the handler a
// message marked undecodable, carrying the error, and every handler
// (invalidWhenUndecodable) answers a marked message INVALID_ARGUMENT.

// undecodableField is the field number of the mark: the largest
// protobuf allows, which no Flight or health message uses.
const undecodableField = protowire.MaxValidNumber

// requestCodec is gRPC's protobuf codec, but for requests that do not
// decode, which it marks instead of failing.
type requestCodec struct{ encoding.CodecV2 }

// NewRequestCodec is gRPC's protobuf codec, but that a request which
// does not decode reaches its handler marked undecodable
// (InvalidWhenUndecodable), to be refused as INVALID_ARGUMENT.
func NewRequestCodec() encoding.CodecV2 { return requestCodec{encoding.GetCodecV2(grpcproto.Name)} }

func (c requestCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	m, ok := v.(proto.Message)
	if err == nil || !ok {
		return err
	}
	proto.Reset(m)
	mark := protowire.AppendTag(nil, undecodableField, protowire.BytesType)
	m.ProtoReflect().SetUnknown(protowire.AppendString(mark, err.Error()))
	return nil
}

// undecodable returns the INVALID_ARGUMENT of a marked message, or nil.
func undecodable(m any) error {
	pm, ok := m.(proto.Message)
	if !ok {
		return nil
	}
	u := pm.ProtoReflect().GetUnknown()
	mark := protowire.AppendTag(nil, undecodableField, protowire.BytesType)
	if !bytes.HasPrefix(u, mark) {
		return nil
	}
	msg, n := protowire.ConsumeString(u[len(mark):])
	if n < 0 {
		msg = "malformed"
	}
	return status.Error(codes.InvalidArgument, "read request: "+msg)
}

// InvalidWhenUndecodable returns a copy of desc whose handlers answer a
// request requestCodec marked with INVALID_ARGUMENT.
func InvalidWhenUndecodable(desc *grpc.ServiceDesc) *grpc.ServiceDesc {
	d := *desc
	d.Methods = slices.Clone(desc.Methods)
	for i := range d.Methods {
		h := d.Methods[i].Handler
		d.Methods[i].Handler = func(srv any, ctx context.Context, dec func(any) error, ic grpc.UnaryServerInterceptor) (any, error) {
			return h(srv, ctx, func(m any) error {
				if err := dec(m); err != nil {
					return err
				}
				return undecodable(m)
			}, ic)
		}
	}
	d.Streams = slices.Clone(desc.Streams)
	for i := range d.Streams {
		h := d.Streams[i].Handler
		d.Streams[i].Handler = func(srv any, ss grpc.ServerStream) error {
			return h(srv, decodingStream{ss})
		}
	}
	return &d
}

// decodingStream is a server stream whose marked messages are
// INVALID_ARGUMENT.
type decodingStream struct{ grpc.ServerStream }

func (s decodingStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return undecodable(m)
}

// Package sluice is a thin typed wrapper over the generated stubs (package sluicev1):
// upload from a file in bounded frames, watch to the end, search, and errors with the
// server's details decoded (*Error).
package sluice

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	"google.golang.org/grpc"

	"sluice.dev/clients/go/sluicev1"
)

// DefaultFrameBytes keeps every data frame well under the server's message limit.
const DefaultFrameBytes = 1 << 20

// Client holds one connection and the stubs over it.
type Client struct {
	conn           *grpc.ClientConn
	KnowledgeBases sluicev1.KnowledgeBaseServiceClient
	Knowledge      sluicev1.KnowledgeServiceClient
	Search         sluicev1.SearchServiceClient
}

// Dial connects to target without TLS (grpc.WithInsecure: Debian's grpc 1.33 predates
// credentials/insecure); pass options to change that.
func Dial(target string, options ...grpc.DialOption) (*Client, error) {
	if len(options) == 0 {
		options = []grpc.DialOption{grpc.WithInsecure()}
	}
	conn, err := grpc.Dial(target, options...)
	if err != nil {
		return nil, err
	}
	return &Client{
		conn:           conn,
		KnowledgeBases: sluicev1.NewKnowledgeBaseServiceClient(conn),
		Knowledge:      sluicev1.NewKnowledgeServiceClient(conn),
		Search:         sluicev1.NewSearchServiceClient(conn),
	}, nil
}

func (c *Client) Close() error { return c.conn.Close() }

// CreateKnowledgeBase creates a knowledge base.
func (c *Client) CreateKnowledgeBase(ctx context.Context, req *sluicev1.CreateKnowledgeBaseRequest) (*sluicev1.KnowledgeBase, error) {
	reply, err := c.KnowledgeBases.CreateKnowledgeBase(ctx, req)
	if err != nil {
		return nil, DecodeError(err)
	}
	return reply.GetKnowledgeBase(), nil
}

// UploadFile sends header (its knowledge base, file name and size filled from path when
// empty) and then the file's bytes in frames of frameBytes (0 = DefaultFrameBytes). A read
// error cancels the stream, so the server keeps nothing.
func (c *Client) UploadFile(ctx context.Context, path string, header *sluicev1.FileHeader, frameBytes int) (*sluicev1.Knowledge, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if header.FileName == "" {
		header.FileName = filepath.Base(path)
	}
	if header.Size == nil {
		size := info.Size()
		header.Size = &size
	}
	if frameBytes <= 0 {
		frameBytes = DefaultFrameBytes
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Knowledge.CreateFromFile(ctx)
	if err != nil {
		return nil, DecodeError(err)
	}
	frame := &sluicev1.CreateFromFileRequest{Frame: &sluicev1.CreateFromFileRequest_Header{Header: header}}
	if err := stream.Send(frame); err != nil {
		return nil, closeAndDecode(stream, err)
	}
	buffer := make([]byte, frameBytes)
	for {
		n, readErr := file.Read(buffer)
		if n > 0 {
			data := &sluicev1.CreateFromFileRequest{Frame: &sluicev1.CreateFromFileRequest_Data{Data: buffer[:n]}}
			if err := stream.Send(data); err != nil {
				return nil, closeAndDecode(stream, err)
			}
		}
		if errors.Is(readErr, io.EOF) {
			break
		}
		if readErr != nil {
			return nil, readErr
		}
	}
	reply, err := stream.CloseAndRecv()
	if err != nil {
		return nil, DecodeError(err)
	}
	return reply.GetKnowledge(), nil
}

// closeAndDecode: a Send that fails with io.EOF means the server ended the call; its
// status comes from CloseAndRecv.
func closeAndDecode(stream sluicev1.KnowledgeService_CreateFromFileClient, err error) error {
	if errors.Is(err, io.EOF) {
		_, err = stream.CloseAndRecv()
	}
	return DecodeError(err)
}

// Watch calls onEvent with each WatchSpans event until the END event (included) and
// returns the last one.
func (c *Client) Watch(ctx context.Context, req *sluicev1.WatchSpansRequest, onEvent func(*sluicev1.WatchSpansResponse)) (*sluicev1.WatchSpansResponse, error) {
	stream, err := c.Knowledge.WatchSpans(ctx, req)
	if err != nil {
		return nil, DecodeError(err)
	}
	var last *sluicev1.WatchSpansResponse
	for {
		event, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return last, nil
		}
		if err != nil {
			return last, DecodeError(err)
		}
		last = event
		if onEvent != nil {
			onEvent(event)
		}
	}
}

// SearchChunks runs a search and returns its results, best first.
func (c *Client) SearchChunks(ctx context.Context, req *sluicev1.SearchRequest) ([]*sluicev1.SearchResult, error) {
	reply, err := c.Search.Search(ctx, req)
	if err != nil {
		return nil, DecodeError(err)
	}
	return reply.GetResults(), nil
}

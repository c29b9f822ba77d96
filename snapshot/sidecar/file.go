package sidecar

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// remoteFile is one snapshot file read through the block cache.
type remoteFile struct {
	c     *Client
	info  FileInfo
	name  string // the path it was opened as, for errors
	route string // its component route
	key   string // its cache key
}

func (f *remoteFile) Size() int64  { return f.info.Size }
func (f *remoteFile) Name() string { return f.name }

// ReadAt reads p from off block by block, as io.ReaderAt does: a read
// that reaches the end of the file returns what it got and io.EOF. An
// empty p reads nothing and sends nothing.
func (f *remoteFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", f.name, off)
	}
	if len(p) == 0 {
		return 0, nil
	}
	size, bs := f.info.Size, f.c.opts.BlockSize
	end := min(off+int64(len(p)), size)
	n := 0
	for pos := off; pos < end; {
		i := pos / bs
		b, err := f.block(i)
		if err != nil {
			return n, fmt.Errorf("read %s at %d: %w", f.name, pos, err)
		}
		n += copy(p[n:end-off], b[pos-i*bs:])
		pos = off + int64(n)
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// block returns block i, whole: BlockSize bytes, fewer for the last one.
func (f *remoteFile) block(i int64) ([]byte, error) {
	return f.c.cache.get(blockKey{file: f.key, index: i}, func() ([]byte, error) {
		start := i * f.c.opts.BlockSize
		return f.c.fetchRange(f.route, start, min(f.c.opts.BlockSize, f.info.Size-start))
	})
}

// fetchRange reads n bytes at off of a component with one Range request.
//
// Sidecar answers 206 Partial Content, or 200 OK when the range is the
// whole file; a 200 from a server that ignores Range is read past off.
// The Content-Range start and end are checked; its total is not, since
// Sidecar writes the range's length there, not the file's.
func (c *Client) fetchRange(route string, off, n int64) ([]byte, error) {
	c.st.rangeRequests.Add(1)
	hdr := http.Header{"Range": {fmt.Sprintf("bytes=%d-%d", off, off+n-1)}}
	resp, err := c.do(context.Background(), http.MethodGet, route, hdr, http.StatusPartialContent, http.StatusOK)
	if err != nil {
		return nil, err
	}
	defer drain(resp.Body)
	if resp.StatusCode == http.StatusOK {
		if _, err := io.CopyN(io.Discard, resp.Body, off); err != nil {
			return nil, fmt.Errorf("sidecar GET %s: skip to %d of a whole-file answer: %w", route, off, unexpectedEOF(err))
		}
	} else if cr := resp.Header.Get("Content-Range"); cr != "" {
		var a, b int64
		if _, err := fmt.Sscanf(cr, "bytes %d-%d", &a, &b); err != nil || a != off || b != off+n-1 {
			return nil, fmt.Errorf("sidecar GET %s: asked for bytes %d-%d, answered Content-Range %q", route, off, off+n-1, cr)
		}
	}
	buf := make([]byte, n)
	got, err := io.ReadFull(resp.Body, buf)
	c.st.bytesFetched.Add(int64(got))
	if err != nil {
		return nil, fmt.Errorf("sidecar GET %s: read bytes %d-%d: %w", route, off, off+n-1, unexpectedEOF(err))
	}
	return buf, nil
}

// unexpectedEOF turns a body that ends early into io.ErrUnexpectedEOF: it
// means the file is shorter than the listing said, never the end of it.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

package transport

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// ConnLimit caps the open client connections (Config.MaxConns), as
// golang.org/x/net/netutil.LimitListener does: at the cap, Accept waits
// for one to close, and new connections wait in the kernel's accept
// queue, holding no file descriptor of the process.
//
// It also closes connections whose client takes nothing: gRPC frees
// what it queued for a client (a response whose handler has returned
// included) only when the client reads it or the connection closes. Each
// connection counts the response bytes its RPCs queued (watch.go) and
// the bytes written to it; one with bytes still queued that has written
// nothing for twice StreamStallTimeout is closed. (Twice: a stream
// blocked on such a connection is cut by its watch first, at
// StreamStallTimeout, which counts and logs why; this sweep is for what
// no watch sees, responses queued after their handler returned.)
type ConnLimit struct {
	slots chan struct{}
	open  atomic.Int64
	stall time.Duration
	cut   func(limit string) // counts a connection closed for stalling

	mu    sync.Mutex
	conns map[connKey]*limitedConn // by remote address
}

// connKey is a remote address as a map key: a TCP address by value, so
// that finding an RPC's connection (watch.go, once per RPC) formats no
// string; any other address by its String.
type connKey struct {
	tcp   netip.AddrPort
	other string
}

func keyOf(addr net.Addr) connKey {
	if a, ok := addr.(*net.TCPAddr); ok {
		ap := a.AddrPort()
		// NB: unmapped, so that an IPv4 address reads alike in its 4-
		// and 16-byte forms.
		return connKey{tcp: netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())}
	}
	return connKey{other: addr.String()}
}

func NewConnLimit(max int, stall time.Duration, cut func(string)) *ConnLimit {
	return &ConnLimit{slots: make(chan struct{}, max), stall: stall, cut: cut, conns: map[connKey]*limitedConn{}}
}

// Open is the connections open now, Max how many may be: the server's
// gauges.
func (l *ConnLimit) Open() int64 { return l.open.Load() }
func (l *ConnLimit) Max() int    { return cap(l.slots) }

// Listen wraps lis: its connections count against the cap, and are
// watched until it closes.
func (l *ConnLimit) Listen(lis net.Listener) net.Listener {
	ll := &limitedListener{Listener: lis, l: l, done: make(chan struct{})}
	go l.sweepEvery(ll.done)
	return ll
}

// conn is the connection from addr, if it is open.
func (l *ConnLimit) conn(addr net.Addr) *limitedConn {
	if addr == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conns[keyOf(addr)]
}

func (l *ConnLimit) sweepEvery(done <-chan struct{}) {
	t := time.NewTicker(l.stall / 4)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			l.sweep(now)
		}
	}
}

// sweep closes the connections that have bytes queued and have written
// none for twice StreamStallTimeout. NB: only sweep reads and writes a
// connection's lastWritten and progress.
func (l *ConnLimit) sweep(now time.Time) {
	l.mu.Lock()
	conns := make([]*limitedConn, 0, len(l.conns))
	for _, c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		// Written bytes include frame headers, settings and pings, so a
		// connection that wrote all it queued has written more than that.
		w := c.written.Load()
		if w != c.lastWritten || c.queued.Load() <= w {
			c.lastWritten, c.progress = w, now
			continue
		}
		if now.Sub(c.progress) >= 2*l.stall {
			l.cut("conn_stall")
			c.Close()
		}
	}
}

type limitedListener struct {
	net.Listener
	l         *ConnLimit
	done      chan struct{}
	closeOnce sync.Once
}

func (ll *limitedListener) Accept() (net.Conn, error) {
	select {
	case ll.l.slots <- struct{}{}:
	case <-ll.done:
		return nil, net.ErrClosed
	}
	c, err := ll.Listener.Accept()
	if err != nil {
		<-ll.l.slots
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: ll.l, key: keyOf(c.RemoteAddr()), progress: time.Now()}
	ll.l.mu.Lock()
	ll.l.conns[lc.key] = lc
	ll.l.mu.Unlock()
	ll.l.open.Add(1)
	return lc, nil
}

func (ll *limitedListener) Close() error {
	ll.closeOnce.Do(func() { close(ll.done) })
	return ll.Listener.Close()
}

// limitedConn gives its slot back when closed, and counts what its RPCs
// queued and what it wrote.
type limitedConn struct {
	net.Conn
	l               *ConnLimit
	key             connKey
	closeOnce       sync.Once
	queued, written atomic.Int64
	lastWritten     int64     // sweep's
	progress        time.Time // sweep's: when it last wrote, or had nothing queued
}

func (c *limitedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.written.Add(int64(n))
	return n, err
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		c.l.mu.Lock()
		if c.l.conns[c.key] == c {
			delete(c.l.conns, c.key)
		}
		c.l.mu.Unlock()
		c.l.open.Add(-1)
		<-c.l.slots
	})
	return err
}

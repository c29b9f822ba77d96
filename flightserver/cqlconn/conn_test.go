package cqlconn

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// TestBackoffIsBoundedAndJittered: the waits double from the first
// bound to the cap, each drawn between half and all of its bound, and
// never past the cap however long the node stays away.
func TestBackoffIsBoundedAndJittered(t *testing.T) {
	min, max := time.Second, 30*time.Second
	for n := 1; n <= 100; n++ {
		bound := max
		if n <= 5 {
			bound = min << (n - 1) // 1, 2, 4, 8, 16 s
		}
		seen := map[time.Duration]bool{}
		for range 50 {
			d := backoff(min, max, n)
			if d < bound/2 || d > bound {
				t.Fatalf("attempt %d: waited %v, want within [%v, %v]", n, d, bound/2, bound)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Fatalf("attempt %d: 50 waits all %v: no jitter", n, seen)
		}
	}
}

// syncBuffer is a log sink the connecting goroutine writes to while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUnreachableNodeIsRetriedQuietly: a node whose port refuses
// connections is retried in the background: the failures are counted
// as unreachable, Session says why there is none (ErrNotConnected), the
// state is logged once however many attempts fail, and Close returns.
func TestUnreachableNodeIsRetriedQuietly(t *testing.T) {
	// A port that was free a moment ago: nothing listens there.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	var log syncBuffer
	c, err := New(Config{Addr: addr, Logger: slog.New(slog.NewJSONHandler(&log, nil)),
		MinBackoff: 10 * time.Millisecond, MaxBackoff: 40 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	c.Start()
	deadline := time.Now().Add(time.Minute)
	for c.Failures(ReasonUnreachable) < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute %d failed attempts, want 5; status %+v", c.Failures(ReasonUnreachable), c.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Close()
	s, err := c.Session()
	if s != nil || !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), addr) {
		t.Errorf("Session while down: %v, %v; want ErrNotConnected naming %s and the reason", s, err, addr)
	}
	st := c.Status()
	if st.Up || st.Reason != ReasonUnreachable || st.Err == nil || st.Failures[ReasonUnreachable] < 5 || st.Failures[ReasonAuth] != 0 {
		t.Errorf("status %+v", st)
	}
	if n := strings.Count(log.String(), "cassandra: cannot connect"); n != 1 {
		t.Errorf("%d failed attempts logged %d warnings, want one per change of state:\n%s", st.Failures[ReasonUnreachable], n, log.String())
	}
}

// TestStuckAttemptsAreGivenUp: an attempt whose driver call does not
// return (a node half started) is given up after attemptWait and counted
// as unreachable, naming the bound; the next attempts go on meanwhile,
// at most maxStuck calls are left running (later attempts fail without
// a call), Close does not wait for them, and each one's session is
// closed when it comes.
func TestStuckAttemptsAreGivenUp(t *testing.T) {
	c, err := New(Config{Addr: "127.0.0.1:9042", MinBackoff: time.Millisecond, MaxBackoff: 2 * time.Millisecond,
		ConnectTimeout: 5 * time.Millisecond, Timeout: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var mu sync.Mutex
	n := 0
	c.open = func() (*gocql.Session, error) {
		mu.Lock()
		n++
		mu.Unlock()
		<-release
		return nil, errors.New("released")
	}
	c.Start()
	deadline := time.Now().Add(time.Minute)
	for c.Failures(ReasonUnreachable) < 3*maxStuck {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute %d failed attempts; status %+v", c.Failures(ReasonUnreachable), c.Status())
		}
		time.Sleep(time.Millisecond)
	}
	st := c.Status()
	if st.Up || st.Reason != ReasonUnreachable || !errors.Is(st.Err, errNoAnswer) {
		t.Errorf("status %+v, want down, unreachable, errNoAnswer", st)
	}
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > closeWait {
		t.Errorf("Close took %s with attempts stuck", d)
	}
	mu.Lock()
	got := n
	mu.Unlock()
	if got != maxStuck {
		t.Errorf("%d driver calls for %d failed attempts, want %d: the rest fail without one", got, st.Failures[ReasonUnreachable], maxStuck)
	}
	close(release)
	for c.stuck.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls still counted stuck after they returned", c.stuck.Load())
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCredentialsFilesAreReadEachTime: the user and password are read
// from their files whenever a connection asks (a rotated Secret is
// used by the next one), trimmed; a file emptied since is an error
// naming it, reason credentials, never an empty password.
func TestCredentialsFilesAreReadEachTime(t *testing.T) {
	v := newVolume(t, map[string]string{"username": "reader\n", "password": "first\n"})
	password := v.path("password")
	cfg := Config{Addr: "127.0.0.1:9042", UserFile: v.path("username"), PasswordFile: password}
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	check := func(wantUser, wantPassword string) {
		t.Helper()
		u, p, err := cfg.credentials()
		if err != nil || u != wantUser || p != wantPassword {
			t.Fatalf("credentials: %q, %q, %v; want %q, %q", u, p, err, wantUser, wantPassword)
		}
	}
	check("reader", "first")
	v.write(t, "password", "second\n")
	check("reader", "second")
	v.write(t, "password", "\n")
	_, _, err := cfg.credentials()
	if err == nil || reason(err) != ReasonCredentials || !strings.Contains(err.Error(), password) || !strings.Contains(err.Error(), "holds nothing") {
		t.Fatalf("emptied password file: %v (reason %s); want an error naming %s, reason credentials", err, reason(err), password)
	}
}

// volume is a directory laid out as the kubelet lays out a Secret's
// volume: each key a link through ..data, a link to the current
// version's directory, which an update replaces at once.
type volume struct {
	dir  string
	n    int
	keys map[string]string
}

func newVolume(t *testing.T, keys map[string]string) *volume {
	v := &volume{dir: t.TempDir(), keys: map[string]string{}}
	for k, c := range keys {
		v.keys[k] = c
		if err := os.Symlink(filepath.Join("..data", k), v.path(k)); err != nil {
			t.Fatal(err)
		}
	}
	v.publish(t)
	return v
}

func (v *volume) path(key string) string { return filepath.Join(v.dir, key) }

// write changes one key's content, as an update of the Secret does.
func (v *volume) write(t *testing.T, key, content string) {
	v.keys[key] = content
	v.publish(t)
}

func (v *volume) publish(t *testing.T) {
	t.Helper()
	v.n++
	version := fmt.Sprintf("..v%d", v.n)
	if err := os.Mkdir(filepath.Join(v.dir, version), 0o755); err != nil {
		t.Fatal(err)
	}
	for k, c := range v.keys {
		if err := os.WriteFile(filepath.Join(v.dir, version, k), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(version, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		t.Fatal(err)
	}
}

//go:build kubelet

package charttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The superuser Cassandra creates with PasswordAuthenticator on, which
// the test image keeps (docs/image.md).
const (
	superuser         = "cassandra"
	superuserPassword = "cassandra"
)

// cqlSession opens a session to hosts on port as user.
func cqlSession(hosts []string, port int, user, password string) (*gocql.Session, error) {
	c := gocql.NewCluster(hosts...)
	c.Port = port
	c.ProtoVersion = 5
	c.Timeout = 30 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.All
	c.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
	return c.CreateSession()
}

// superSession waits until Cassandra in the pods at ips takes the
// superuser's login (it creates the role some seconds after CQL opens)
// and returns that session, closed at the end of the test.
func superSession(t *testing.T, ips []string, timeout time.Duration) *gocql.Session {
	t.Helper()
	var s *gocql.Session
	err := poll(timeout, 3*time.Second, func(ctx context.Context) error {
		var err error
		s, err = cqlSession(ips, 9042, superuser, superuserPassword)
		return err
	})
	if err != nil {
		t.Fatalf("log in to Cassandra at %v as %s: %v", ips, superuser, err)
	}
	t.Cleanup(s.Close)
	return s
}

// readerSecret creates a Secret holding a fresh role's name and password
// (keys username and password, as cass-operator's superuser Secret), for
// the chart's cassandra.auth.existingSecret, and returns the two.
func (n *node) readerSecret(t *testing.T, ns, name string) (user, password string) {
	t.Helper()
	b := make([]byte, 12)
	rand.Read(b)
	user, password = "sstf_reader", hex.EncodeToString(b)
	sec := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		StringData: map[string]string{"username": user, "password": password},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := n.kube.CoreV1().Secrets(ns).Create(ctx, sec, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
		t.Fatalf("create Secret %s/%s: %v", ns, name, err)
	}
	return user, password
}

// createRole makes the login role the servers' Secret names.
func createRole(t *testing.T, s *gocql.Session, user, password string) {
	t.Helper()
	q := fmt.Sprintf("CREATE ROLE IF NOT EXISTS %s WITH PASSWORD = '%s' AND LOGIN = true", user, password)
	if err := s.Query(q).Exec(); err != nil {
		t.Fatalf("create role %s: %v", user, err)
	}
}

// writeKV creates ks.kv (k int PRIMARY KEY, v text) with replication
// (a CQL map literal) and writes rows partitions at consistency ALL. The
// table flushes its memtable every second (memtable_flush_period_in_ms),
// so the servers see the rows without a nodetool inside the pods.
func writeKV(t *testing.T, s *gocql.Session, ks, replication string, rows int) map[int32]string {
	t.Helper()
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = " + replication,
		"CREATE TABLE IF NOT EXISTS " + ks + ".kv (k int PRIMARY KEY, v text) WITH memtable_flush_period_in_ms = 1000",
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < rows; k += 8 {
				if err := s.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", k, fmt.Sprintf("v%d", k)).Consistency(gocql.All).Exec(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("write %s.kv at ALL: %v", ks, err)
	}
	return selectKV(t, s, ks, rows)
}

// selectKV is SELECT * of ks.kv at consistency ALL: the oracle.
func selectKV(t *testing.T, s *gocql.Session, ks string, want int) map[int32]string {
	t.Helper()
	iter := s.Query("SELECT k, v FROM " + ks + ".kv").Consistency(gocql.All).Iter()
	got := map[int32]string{}
	var (
		k int32
		v string
	)
	for iter.Scan(&k, &v) {
		got[k] = v
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("SELECT * FROM %s.kv at ALL: %v", ks, err)
	}
	if len(got) != want {
		t.Fatalf("SELECT * FROM %s.kv at ALL: %d rows, wrote %d", ks, len(got), want)
	}
	return got
}

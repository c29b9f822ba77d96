package kube

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestServiceAccountTokenFile: the Source authenticates with a service
// account's token read from a file, as in a pod, and reads the file
// again as the kubelet rotates it: while the file holds a token the API
// server refuses, Status says Unauthorized; once it holds a good one,
// the Source lists.
func TestServiceAccountTokenFile(t *testing.T) {
	admin := adminClient(t)
	ns := namespace(t, admin)
	ctx := t.Context()
	if _, err := admin.DiscoveryV1().EndpointSlices(ns).Create(ctx, forService(slice("cass-a", "flight", 8815, "10.5.0.1"), "cass"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const sa = "sstf"
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: sa}}
	for _, a := range Access {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{a.Group}, Resources: []string{a.Resource}, Verbs: []string{a.Verb}})
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: sa},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sa},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}},
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expiry := int64(600)
	tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	defer func(d time.Duration) { tokenRereadAfter = d }(tokenRereadAfter)
	tokenRereadAfter = 50 * time.Millisecond
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("not-a-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := sourceClient(t, func(c *clientConfig) {
		c.certPEM, c.keyPEM, c.token, c.tokenFile = nil, nil, "", file
	})
	s, err := Start(ctx, Config{Client: c, Namespace: ns, Service: "cass", SyncWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	eventually(t, "refused while the file holds a bad token", func() (bool, string) {
		st := s.Status()
		return !st.Synced && st.Err != nil && strings.Contains(st.Err.Error(), "Unauthorized"), fmt.Sprintf("%+v", st)
	})
	if err := os.WriteFile(file, []byte(tr.Status.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "listed with the token written since", func() (bool, string) {
		st := s.Status()
		return st.Synced && st.Err == nil && st.Endpoints == 1, fmt.Sprintf("%+v", st)
	})
}

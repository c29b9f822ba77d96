package kube

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAccessIsWhatItNeeds runs a Source as a user granted exactly
// Access in its namespace, which must suffice, and as users granted
// Access less one call, checking what each absence does: the list the
// chart's RBAC is checked against is not short, and each entry is there
// for a reason.
func TestAccessIsWhatItNeeds(t *testing.T) {
	admin := adminClient(t)
	ns := namespace(t, admin)
	if _, err := admin.DiscoveryV1().EndpointSlices(ns).Create(t.Context(), forService(slice("cass-a", "flight", 8815, "10.4.0.1"), "cass"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// grant makes a Role of the given calls and binds it to a user of
	// its own; the client impersonates that user.
	grant := func(name string, calls []int) *Source {
		t.Helper()
		role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, i := range calls {
			a := Access[i]
			role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: []string{a.Group}, Resources: []string{a.Resource}, Verbs: []string{a.Verb}})
		}
		if _, err := admin.RbacV1().Roles(ns).Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		user := "sstf-" + name
		binding := &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}
		if _, err := admin.RbacV1().RoleBindings(ns).Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		s, err := Start(t.Context(), Config{Client: impersonating(sourceClient(t, nil), user), Namespace: ns, Service: "cass", SyncWait: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}
	all := make([]int, len(Access))
	for i := range all {
		all[i] = i
	}
	s := grant("all", all)
	eventually(t, "synced with exactly Access", func() (bool, string) {
		st := s.Status()
		return st.Synced && st.Err == nil && st.Endpoints == 1, fmt.Sprintf("%+v", st)
	})
	// Without watch, changes cannot be followed: forbidden.
	// Without list it still syncs here: the Source lists through a watch
	// (a watch-list, sendInitialEvents) where the API server serves
	// that, as this one does. list stays in Access for the fallback, a
	// plain list, where the API server does not.
	for i, a := range Access {
		less := slices.Delete(slices.Clone(all), i, i+1)
		s := grant("no-"+a.Verb, less)
		switch a.Verb {
		case "watch":
			eventually(t, "forbidden without watch", func() (bool, string) {
				st := s.Status()
				return st.Err != nil && strings.Contains(st.Err.Error(), "forbidden"), fmt.Sprintf("%+v", st)
			})
		case "list":
			eventually(t, "synced by watch-list without list", func() (bool, string) {
				st := s.Status()
				return st.Synced && st.Err == nil && st.Endpoints == 1, fmt.Sprintf("%+v", st)
			})
		default:
			t.Errorf("Access[%d] = %+v: no check of what its absence does", i, a)
		}
	}
}

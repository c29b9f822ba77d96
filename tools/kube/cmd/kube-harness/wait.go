package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// corednsUser is the user of CoreDNS's client certificate, bound by
// corednsRBAC to what CoreDNS's kubernetes plugin reads.
const corednsUser = "kube-harness:coredns"

func adminClientset(dir string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfigPath(dir))
	if err != nil {
		return nil, fmt.Errorf("read the admin kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("make an admin client: %w", err)
	}
	return cs, nil
}

// corednsRBAC grants CoreDNS's user the reads of CoreDNS's own
// ClusterRole (as its deployment manifests have it): services,
// endpoints and EndpointSlices, pods and namespaces, listed and watched.
func corednsRBAC(ctx context.Context, cs kubernetes.Interface) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: corednsUser},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"endpoints", "services", "pods", "namespaces"}, Verbs: []string{"list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: corednsUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: corednsUser},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: corednsUser}},
	}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant CoreDNS its reads: %w", err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("grant CoreDNS its reads: %w", err)
	}
	return nil
}

// readiness is one condition start waits for, and whose logs explain
// it when it never holds.
type readiness struct {
	what  string
	logs  []string
	check func(ctx context.Context) error
}

// waitNode waits, within o.timeout in all, until the node is Ready, the
// default namespace has its ServiceAccount and root CA (a pod needs both
// to start), kube-proxy has written the kubernetes Service's DNAT, and
// CoreDNS answers the kubernetes Service's name with its ClusterIP.
// Meanwhile a component that exits fails the wait at once.
func waitNode(ctx context.Context, o options, cs kubernetes.Interface, cfg *nodeConfig) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	conds := []readiness{
		{"node " + nodeName + " Ready", []string{kubeletName, containerdName}, func(ctx context.Context) error {
			n, err := cs.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady {
					if c.Status == corev1.ConditionTrue {
						return nil
					}
					return fmt.Errorf("Ready is %s: %s", c.Status, c.Message)
				}
			}
			return errors.New("no Ready condition yet")
		}},
		{"the default ServiceAccount and kube-root-ca.crt", []string{kcmName}, func(ctx context.Context) error {
			if _, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
				return err
			}
			_, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			return err
		}},
		{"kube-proxy's DNAT of " + nodeServiceIP, []string{proxyName}, func(context.Context) error {
			out, err := command("iptables", "-w", "-t", "nat", "-S", "KUBE-SERVICES")
			if err != nil {
				return err
			}
			if !strings.Contains(out, "-d "+nodeServiceIP+"/32") {
				return errors.New("no rule for it yet")
			}
			return nil
		}},
		{"CoreDNS ready", []string{corednsName}, func(ctx context.Context) error {
			return probe(ctx, http.DefaultClient, cfg.dnsReady)
		}},
		{"CoreDNS answering kubernetes.default.svc." + clusterDomain, []string{corednsName}, func(ctx context.Context) error {
			addrs, err := lookupAt(ctx, nodeIP, "kubernetes.default.svc."+clusterDomain)
			if err != nil {
				return err
			}
			if len(addrs) != 1 || addrs[0] != nodeServiceIP {
				return fmt.Errorf("answered %v, want [%s]", addrs, nodeServiceIP)
			}
			return nil
		}},
	}
	for _, c := range conds {
		var last error
		for {
			if err := nodeProcsAlive(o.dir); err != nil {
				return err
			}
			if last = c.check(ctx); last == nil {
				break
			}
			select {
			case <-ctx.Done():
				var tails []string
				for _, name := range c.logs {
					tails = append(tails, fmt.Sprintf("--- %s.log:\n%s", name, logTail(o.dir, name, 30)))
				}
				return fmt.Errorf("wait for %s: not within %s: %w\n%s", c.what, o.timeout, last, strings.Join(tails, "\n"))
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
	return nil
}

// nodeProcsAlive fails, with its log's tail, if one of the node's
// processes has exited.
func nodeProcsAlive(dir string) error {
	for _, name := range nodeProcNames {
		if _, ok, err := runningPid(dir, name); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%s exited\n%s", name, logTail(dir, name, 40))
		}
	}
	return nil
}

// lookupAt resolves name's A records at the DNS server on host:53 only.
func lookupAt(ctx context.Context, host, name string) ([]string, error) {
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, net.JoinHostPort(host, "53"))
	}}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	return r.LookupHost(ctx, name)
}

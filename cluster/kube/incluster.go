package kube

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// serviceAccountDir is where a pod's service account token mount puts
// its token, the API server's CA and the pod's namespace.
const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// ServiceAccountNamespaceFile is where a pod's service account token
// mount puts the pod's namespace.
const ServiceAccountNamespaceFile = serviceAccountDir + "/namespace"

// inClusterConfig is the API server of the pod's cluster as every pod
// sees it (env KUBERNETES_SERVICE_HOST and _PORT), with the service
// account's token, read again as the kubelet rotates it, and CA, both
// in dir.
func inClusterConfig(dir string, getenv func(string) string) (*clientConfig, error) {
	const what = "read in-cluster API config (not in a pod? give --kubeconfig)"
	host, port := getenv("KUBERNETES_SERVICE_HOST"), getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return nil, fmt.Errorf("%s: env KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is not set", what)
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	token := filepath.Join(dir, "token")
	if _, err := os.Stat(token); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return &clientConfig{server: "https://" + net.JoinHostPort(host, port), caPEM: ca, tokenFile: token}, nil
}

// DefaultNamespace is the pod's own namespace: the service account
// mount's file, else env POD_NAMESPACE (set from the downward API where
// the token is not mounted).
func DefaultNamespace() (string, error) {
	return defaultNamespace(ServiceAccountNamespaceFile, os.Getenv("POD_NAMESPACE"))
}

func defaultNamespace(file, env string) (string, error) {
	b, err := os.ReadFile(file)
	if err == nil {
		if ns := strings.TrimSpace(string(b)); ns != "" {
			return ns, nil
		}
		return "", fmt.Errorf("read the pod's namespace: %s is empty", file)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read the pod's namespace: %w", err)
	}
	if ns := strings.TrimSpace(env); ns != "" {
		return ns, nil
	}
	return "", fmt.Errorf("read the pod's namespace: no %s and no env POD_NAMESPACE", file)
}

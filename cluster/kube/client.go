package kube

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// userAgent names the server in the API server's audit log.
const userAgent = "sstable-flight"

// NewClient builds an API client from the kubeconfig at path, or, with
// path empty, from the pod's service account (in-cluster config).
func NewClient(path string) (kubernetes.Interface, error) {
	var cfg *rest.Config
	var err error
	if path == "" {
		cfg, err = rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("read in-cluster API config (not in a pod? give --kubeconfig): %w", err)
		}
	} else {
		cfg, err = clientcmd.BuildConfigFromFlags("", path)
		if err != nil {
			return nil, fmt.Errorf("read kubeconfig %s: %w", path, err)
		}
	}
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent = userAgent
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("make API client: %w", err)
	}
	return c, nil
}

// ServiceAccountNamespaceFile is where a pod's service account token
// mount puts the pod's namespace.
const ServiceAccountNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

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

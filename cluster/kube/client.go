package kube

import (
	"errors"
	"fmt"
	"os"
	"strings"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// userAgent names the server in the API server's audit log.
const userAgent = "sstable-flight"

// Client is an API client of the one resource discovery reads,
// discovery.k8s.io/v1 EndpointSlices: a REST client with a scheme of its
// own that holds that group alone, built when the client is. client-go's
// clientset (k8s.io/client-go/kubernetes) would link the client of every
// API group, and its scheme package registers all of them when the
// binary starts, discovery on or off; its generic typed client
// (k8s.io/client-go/gentype) links client-go's fakes and, through them,
// the OpenAPI and managed-fields packages. Together they were most of
// the server's idle RSS (issue #25).
type Client struct {
	rest rest.Interface
}

// NewClient builds an API client from the kubeconfig at path, or, with
// path empty, from the pod's service account (in-cluster config).
func NewClient(path string) (*Client, error) {
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
	return NewClientForConfig(cfg)
}

// NewClientForConfig builds an API client of the API server cfg names.
func NewClientForConfig(cfg *rest.Config) (*Client, error) {
	scheme := runtime.NewScheme()
	if err := discoveryv1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("make API client: register %s: %w", discoveryv1.SchemeGroupVersion, err)
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.UserAgent == "" {
		cfg.UserAgent = userAgent
	}
	// What client-go's generated discovery/v1 client sets, with this
	// scheme in place of the all-groups one, and its wire format:
	// protobuf, JSON accepted.
	gv := discoveryv1.SchemeGroupVersion
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	cfg.NegotiatedSerializer = rest.CodecFactoryForGeneratedClient(scheme, serializer.NewCodecFactory(scheme)).WithoutConversion()
	if cfg.ContentType == "" {
		cfg.ContentType = runtime.ContentTypeProtobuf
		cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	}
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("make API client: %w", err)
	}
	return &Client{rest: rc}, nil
}

// endpointSlices lists and watches the EndpointSlices of namespace that
// carry the label selector, through client-go's own ListWatch of a REST
// client.
func (c *Client) endpointSlices(namespace, selector string) *cache.ListWatch {
	return cache.NewFilteredListWatchFromClient(c.rest, "endpointslices", namespace, func(o *metav1.ListOptions) {
		o.LabelSelector = selector
	})
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

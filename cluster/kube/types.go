package kube

import "encoding/json"

// The parts of the discovery.k8s.io/v1 API the Source reads, decoded
// from the API server's JSON: the fields of k8s.io/api/discovery/v1 it
// uses, under the same names. Those types are not linked (k8s.io/api,
// apimachinery and client-go cost the server 5 MiB of idle RSS, a
// quarter of its target in docs/PERFORMANCE.md); mapping_test decodes
// the real types' JSON into these.

// endpointSlice is an EndpointSlice.
type endpointSlice struct {
	objectMeta  `json:"metadata"`
	AddressType string         `json:"addressType"`
	Endpoints   []endpoint     `json:"endpoints"`
	Ports       []endpointPort `json:"ports"`
}

// addressTypeFQDN is the address type whose addresses are names.
const addressTypeFQDN = "FQDN"

// labelServiceName is the label naming the Service a slice belongs to.
const labelServiceName = "kubernetes.io/service-name"

// objectMeta is an object's metadata.
type objectMeta struct {
	Name            string            `json:"name"`
	ResourceVersion string            `json:"resourceVersion"`
	Annotations     map[string]string `json:"annotations"`
}

// endpoint is one endpoint of a slice.
type endpoint struct {
	Addresses  []string           `json:"addresses"`
	Conditions endpointConditions `json:"conditions"`
}

// endpointConditions: Ready nil is "unknown".
type endpointConditions struct {
	Ready *bool `json:"ready"`
}

// endpointPort is one port of a slice.
type endpointPort struct {
	Name *string `json:"name"`
	Port *int32  `json:"port"`
}

// sliceList is a list response.
type sliceList struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Items []endpointSlice `json:"items"`
}

// watchEvent is one event of a watch stream; Object is an endpointSlice,
// or an apiStatus for an ERROR event.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// The watch event types.
const (
	eventAdded    = "ADDED"
	eventModified = "MODIFIED"
	eventDeleted  = "DELETED"
	eventBookmark = "BOOKMARK"
	eventError    = "ERROR"
)

// initialEventsEnd is the annotation of the bookmark that ends a
// watch-list's initial events (sendInitialEvents).
const initialEventsEnd = "k8s.io/initial-events-end"

// apiStatus is a failed call's body, or an ERROR event's object.
type apiStatus struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Reason  string `json:"reason"`
	Code    int    `json:"code"`
}

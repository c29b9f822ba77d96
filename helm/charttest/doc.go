// Package charttest checks the Helm chart helm/sstable-flight with the
// Helm Go SDK: it renders every mode over a matrix of values, decodes
// every object strictly into the Kubernetes API's Go types (an unknown or
// duplicated field is an error), and asserts what the chart promises
// (read-only mounts, non-root, probes, RBAC, labels, selectors, the
// schema's refusals, lint). In sidecar mode it merges each operator's
// snippet the way docs/kubernetes.md says and holds the result to that
// operator's own rules, written out from its source with citations
// (cass-operator's webhook, CRD and pod construction; K8ssandra's
// datacenter fields; Bitnami's values, pod and NetworkPolicy): their Go
// modules are not served by the module proxy. With SSTF_KUBECONFIG it
// also applies every mode to a real API server with server-side dry-run,
// runs the cass-operator patch against a CassandraDatacenter CRD there,
// checks each pod at the Pod Security level the docs give, and proves
// the chart's RBAC with SubjectAccessReviews.
//
// It is its own Go module so that Helm and client-go stay out of the
// server's module.
package charttest

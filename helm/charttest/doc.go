// Package charttest checks the Helm chart helm/sstable-flight with the
// Helm Go SDK: it renders every mode over a matrix of values, decodes
// every object strictly into the Kubernetes API's Go types (an unknown or
// duplicated field is an error), and asserts what the chart promises
// (read-only mounts, non-root, probes, RBAC, labels, selectors, the
// schema's refusals, lint). With SSTF_KUBECONFIG it also applies every
// mode to a real API server with server-side dry-run and proves the
// chart's RBAC with SubjectAccessReviews.
//
// It is its own Go module so that Helm and client-go stay out of the
// server's module.
package charttest

package kube

import authorizationv1 "k8s.io/api/authorization/v1"

// Access is every API call a Source makes, as the attributes a
// SubjectAccessReview asks about (Namespace left empty: it is the
// Source's namespace). The chart's RBAC test checks its Role grants
// exactly these, so a Role that lets the server run is one this list
// proves, not one guessed from the code. The informer lists and
// watches; with the WatchListClient feature it may only watch, but it
// falls back to list, so both are needed.
var Access = []authorizationv1.ResourceAttributes{
	{Verb: "list", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
	{Verb: "watch", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
}

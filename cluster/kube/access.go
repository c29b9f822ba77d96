package kube

import authorizationv1 "k8s.io/api/authorization/v1"

// Access is every API call a Source makes, as the attributes a
// SubjectAccessReview asks about (Namespace left empty: it is the
// Source's namespace). The chart's RBAC test checks its Role grants
// exactly these, so a Role that lets the server run is one this list
// proves, not one guessed from the code. The informer watches; it
// lists through the watch (WatchListClient: sendInitialEvents) where
// the API server serves that, as v1.37's does, and with a plain list
// where it does not, so list is needed for the fallback (the test shows
// both what watch alone does and that without watch it fails).
var Access = []authorizationv1.ResourceAttributes{
	{Verb: "list", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
	{Verb: "watch", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
}

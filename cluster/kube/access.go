package kube

// Call is one kind of API request, named as a SubjectAccessReview's
// resource attributes name it (Namespace left out: it is the Source's).
type Call struct {
	Verb, Group, Version, Resource string
}

// Access is every API call a Source makes. The chart's RBAC test checks
// its Role grants exactly these, so a Role that lets the server run is
// one this list proves, not one guessed from the code. The Source
// watches; it lists through the watch (a watch-list: sendInitialEvents)
// where the API server serves that, as v1.37's does, and with a plain
// list where it does not, so list is needed for the fallback (the test
// shows both what watch alone does and that without watch it fails).
var Access = []Call{
	{Verb: "list", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
	{Verb: "watch", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
}

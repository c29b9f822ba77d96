// Command coredns is CoreDNS (github.com/coredns/coredns) with only the
// plugins kube-harness's node needs: the cluster's DNS from the
// kubernetes plugin, nothing that could send a query off the machine.
//
// CoreDNS's own main compiles in every plugin of its plugin.cfg; an
// embedder may instead import the plugins it wants and set
// dnsserver.Directives to them, in the order CoreDNS's directive list
// gives (core/dnsserver/zdirectives.go), before coremain.Run. Leaving out
// forward, grpc, etcd and the cloud plugins keeps the build small (their
// SDKs are most of CoreDNS's dependencies) and makes forwarding out
// impossible, not just unconfigured.
//
// It is its own module: CoreDNS requires client-go of an older minor
// than the one tools/kube replaces k8s.io/client-go with.
package main

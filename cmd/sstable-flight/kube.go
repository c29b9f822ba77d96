package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/sstable-flight/sstable-flight/cluster/kube"
)

// kubeFlags are the flags of Kubernetes peer discovery (cluster/kube):
// the peers are the ready endpoints of a headless service.
type kubeFlags struct {
	service, namespace, portName, kubeconfig string
}

func registerKubeFlags(fs *flag.FlagSet) *kubeFlags {
	k := &kubeFlags{}
	fs.StringVar(&k.service, "kube-service", "", "plan over the cluster's ring, the peers the ready endpoints of this headless Kubernetes service (its EndpointSlices; needs --cassandra; not with --peers or --peer-port)")
	fs.StringVar(&k.namespace, "kube-namespace", "", "namespace of --kube-service (default: the pod's, from "+kube.ServiceAccountNamespaceFile+", else env POD_NAMESPACE)")
	fs.StringVar(&k.portName, "kube-port-name", kube.DefaultPortName, "name of --kube-service's port that Flight listens on")
	fs.StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig of the API server for --kube-service (default: the pod's service account)")
	return k
}

// readKube turns the kube flags into the discovery's Config, refusing
// what could not take effect: a kube flag without --kube-service, two
// ways of finding peers, no --cassandra to read the ring from, no
// namespace, an unreadable kubeconfig or no in-cluster config.
func (o *options) readKube(fs *flag.FlagSet, k *kubeFlags, otherPeers bool, tls bool) error {
	if k.service == "" {
		var set []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "kube-namespace", "kube-port-name", "kubeconfig":
				set = append(set, "--"+f.Name)
			}
		})
		if len(set) > 0 {
			return fmt.Errorf("%s: needs --kube-service, the service whose endpoints are the peers", set[0])
		}
		return nil
	}
	switch {
	case otherPeers:
		return errors.New("--kube-service and --peers or --peer-port: give one way to find the peers, not both")
	case o.cassandra == "":
		return errors.New("--kube-service: planning over the ring needs --cassandra, the node the ring is read from")
	}
	ns := k.namespace
	if ns == "" {
		var err error
		if ns, err = kube.DefaultNamespace(); err != nil {
			return fmt.Errorf("--kube-service: no --kube-namespace: %w", err)
		}
	}
	client, err := kube.NewClient(k.kubeconfig)
	if err != nil {
		return fmt.Errorf("--kube-service: %w", err)
	}
	scheme := "grpc"
	if tls {
		scheme = "grpc+tls"
	}
	o.kube = &kube.Config{Client: client, Namespace: ns, Service: k.service, PortName: k.portName, Scheme: scheme}
	return nil
}

package charttest

// K8ssandra's rules for the fields of a datacenter the chart's snippet
// sets, written out from its source: github.com/k8ssandra/k8ssandra-operator
// is not served by the Go module proxy (403). Each rule names its file at
// k8ssandraSource.

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// k8ssandraSource is where the rules below were read.
const k8ssandraSource = "github.com/k8ssandra/k8ssandra-operator@9e3d1b51d2171ea9ee84edf53d6dfa1c98fa8525 (release/1.32)"

// k8ssandraDatacenter is an entry of spec.cassandra.datacenters[] of a
// K8ssandraCluster (k8ssandra.io/v1alpha1), with the fields of
// DatacenterOptions the chart sets and the few the rules read
// (apis/k8ssandra/v1alpha1/k8ssandracluster_types.go,
// CassandraDatacenterTemplate and DatacenterOptions; the CRD,
// config/crd/bases/k8ssandra.io_k8ssandraclusters.yaml, has the same:
// containers and initContainers arrays of Container, extraVolumes an
// object of pvcs and volumes, serviceAccount a string, and no
// podTemplateSpec). Strict decoding into it refuses any other field.
type k8ssandraDatacenter struct {
	Metadata struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Size                   int32                        `json:"size"`
	ServerVersion          string                       `json:"serverVersion,omitempty"`
	Containers             []corev1.Container           `json:"containers,omitempty"`
	InitContainers         []corev1.Container           `json:"initContainers,omitempty"`
	ExtraVolumes           *k8ssandraVolumes            `json:"extraVolumes,omitempty"`
	ServiceAccount         string                       `json:"serviceAccount,omitempty"`
	PodSecurityContext     *corev1.PodSecurityContext   `json:"podSecurityContext,omitempty"`
	StorageConfig          map[string]any               `json:"storageConfig,omitempty"`
	Resources              *corev1.ResourceRequirements `json:"resources,omitempty"`
	DatacenterName         string                       `json:"datacenterName,omitempty"`
	ReadOnlyRootFilesystem *bool                        `json:"readOnlyRootFilesystem,omitempty"`
}

// k8ssandraVolumes is K8ssandraVolumes: volumes added to each pod as they
// are, and PVCs (cass-operator's AdditionalVolumes, not used here).
type k8ssandraVolumes struct {
	Volumes []corev1.Volume   `json:"volumes,omitempty"`
	PVCs    []json.RawMessage `json:"pvcs,omitempty"`
}

// k8ssandraSnippet is the chart's k8ssandra-datacenter.yaml: only fields
// of a datacenter entry.
type k8ssandraSnippet struct {
	Containers     []corev1.Container `json:"containers"`
	ExtraVolumes   k8ssandraVolumes   `json:"extraVolumes"`
	ServiceAccount string             `json:"serviceAccount,omitempty"`
}

// mergeK8ssandraSnippet is the merge docs/kubernetes.md asks for: the
// snippet's container and volumes appended to the datacenter's lists
// (the CRD declares no list type for them, so an apply replaces a list
// whole: it must keep the entries already there), and its account set
// where the datacenter names none. A datacenter that names another
// account is the user's to keep: install the chart with
// serviceAccount.create=false and that name.
func mergeK8ssandraSnippet(dc k8ssandraDatacenter, s k8ssandraSnippet) (k8ssandraDatacenter, error) {
	out := dc
	out.Containers = append(append([]corev1.Container{}, dc.Containers...), s.Containers...)
	ev := k8ssandraVolumes{}
	if dc.ExtraVolumes != nil {
		ev = *dc.ExtraVolumes
		ev.Volumes = append([]corev1.Volume{}, ev.Volumes...)
	}
	ev.Volumes = append(ev.Volumes, s.ExtraVolumes.Volumes...)
	out.ExtraVolumes = &ev
	if s.ServiceAccount != "" {
		if dc.ServiceAccount != "" && dc.ServiceAccount != s.ServiceAccount {
			return dc, fmt.Errorf("datacenter %s runs as %s: install with serviceAccount.create=false,serviceAccount.name=%s", dc.Metadata.Name, dc.ServiceAccount, dc.ServiceAccount)
		}
		out.ServiceAccount = s.ServiceAccount
	}
	return out, nil
}

// k8ssandraCassandraDatacenter is the CassandraDatacenter K8ssandra makes
// of a datacenter entry, as far as the chart depends on it
// (pkg/cassandra/datacenter.go, Coalesce and NewDatacenter): the
// containers (cluster-level ones merged by name, none here) and
// extraVolumes.volumes become spec.podTemplateSpec's lists in order, a
// "cassandra" container is added when absent (UpdateCassandraContainer),
// podSecurityContext becomes the template's pod securityContext,
// serviceAccount becomes spec.serviceAccountName, and the cluster's
// name spec.clusterName. With Medusa on, its container (pkg/medusa,
// port 50051) joins the template.
func k8ssandraCassandraDatacenter(cluster string, dc k8ssandraDatacenter, medusa bool) cassDC {
	var out cassDC
	out.APIVersion, out.Kind = "cassandra.datastax.com/v1beta1", "CassandraDatacenter"
	out.Metadata.Name = dc.Metadata.Name
	out.Spec.ClusterName = cluster
	out.Spec.ServerType = "cassandra"
	out.Spec.ServerVersion = dc.ServerVersion
	out.Spec.Size = dc.Size
	out.Spec.StorageConfig = dc.StorageConfig
	out.Spec.DatacenterName = dc.DatacenterName
	out.Spec.ServiceAccountName = dc.ServiceAccount
	out.Spec.ReadOnlyRootFilesystem = dc.ReadOnlyRootFilesystem
	t := &corev1.PodTemplateSpec{}
	t.Spec.SecurityContext = dc.PodSecurityContext
	t.Spec.Containers = append(t.Spec.Containers, dc.Containers...)
	t.Spec.InitContainers = append(t.Spec.InitContainers, dc.InitContainers...)
	if dc.ExtraVolumes != nil {
		t.Spec.Volumes = append(t.Spec.Volumes, dc.ExtraVolumes.Volumes...)
	}
	if slicesIndex(t.Spec.Containers, "cassandra") < 0 {
		t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "cassandra"})
	}
	if medusa {
		t.Spec.Containers = append(t.Spec.Containers, corev1.Container{
			Name: "medusa", Image: "k8ssandra/medusa",
			Ports:        []corev1.ContainerPort{{Name: "grpc", ContainerPort: medusaPort, Protocol: corev1.ProtocolTCP}},
			VolumeMounts: []corev1.VolumeMount{{Name: "server-data", MountPath: "/var/lib/cassandra"}},
		})
	}
	out.Spec.PodTemplateSpec = t
	return out
}

package charttest

// cass-operator's rules that decide whether the chart's patch is admitted
// and what pod it makes, written out from its source: its Go module
// (github.com/k8ssandra/cass-operator) is not served by the Go module
// proxy (403), and its webhook is an internal package, so neither can be
// imported. Each rule names its file at cassOperatorSource.

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// cassOperatorSource is where the rules below were read.
const cassOperatorSource = "github.com/k8ssandra/cass-operator@d56972905e8b67502578bdbd832a09e653fa8e16 (after v1.32.0)"

// cassDC is the part of a CassandraDatacenter (cassandra.datastax.com/v1beta1)
// these rules read: apis/cassandra/v1beta1/cassandradatacenter_types.go,
// CassandraDatacenterSpec. Strict decoding into it refuses a field the
// type does not have.
type cassDC struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace,omitempty"`
	} `json:"metadata"`
	Spec cassDCSpec `json:"spec"`
}

type cassDCSpec struct {
	ClusterName                 string         `json:"clusterName"`
	DatacenterName              string         `json:"datacenterName,omitempty"`
	ServerType                  string         `json:"serverType"`
	ServerVersion               string         `json:"serverVersion"`
	ServerImage                 string         `json:"serverImage,omitempty"`
	Size                        int32          `json:"size"`
	StorageConfig               map[string]any `json:"storageConfig"`
	SuperuserSecretName         string         `json:"superuserSecretName,omitempty"`
	AllowMultipleNodesPerWorker bool           `json:"allowMultipleNodesPerWorker,omitempty"`
	// Deprecated, json "serviceAccount"; serviceAccountName wins over it.
	DeprecatedServiceAccount string                  `json:"serviceAccount,omitempty"`
	ServiceAccountName       string                  `json:"serviceAccountName,omitempty"`
	PodTemplateSpec          *corev1.PodTemplateSpec `json:"podTemplateSpec,omitempty"`
	Racks                    []struct {
		Name string `json:"name"`
	} `json:"racks,omitempty"`
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty"`
}

// cassOperatorValidateUpdate is what the validating webhook refuses in an
// update: internal/webhooks/cassandra/v1beta1/cassandradatacenter_webhook.go,
// ValidateDatacenterFieldChanges (the storage rule made stricter: any
// change of storageConfig, where the webhook allows growing a claim with
// an annotation). The bypass annotation is not modelled.
func cassOperatorValidateUpdate(old, new cassDC) error {
	reject := func(what string) error {
		return fmt.Errorf("CassandraDatacenter write rejected, attempted to %s", what)
	}
	switch {
	case old.Spec.ClusterName != new.Spec.ClusterName:
		return reject("change clusterName")
	case old.Spec.DatacenterName != new.Spec.DatacenterName:
		return reject("change datacenterName")
	case old.Spec.AllowMultipleNodesPerWorker != new.Spec.AllowMultipleNodesPerWorker:
		return reject("change allowMultipleNodesPerWorker")
	case old.Spec.SuperuserSecretName != new.Spec.SuperuserSecretName:
		return reject("change superuserSecretName")
	case old.Spec.DeprecatedServiceAccount != new.Spec.DeprecatedServiceAccount:
		return reject("change serviceAccount")
	case !equality.Semantic.DeepEqual(old.Spec.StorageConfig, new.Spec.StorageConfig):
		return reject("change storageConfig")
	case len(new.Spec.Racks) < len(old.Spec.Racks):
		return reject("remove rack")
	}
	for i := range old.Spec.Racks {
		if old.Spec.Racks[i].Name != new.Spec.Racks[i].Name {
			return reject("change rack name")
		}
	}
	return nil
}

// cassOperatorListMaps are the lists of spec.podTemplateSpec.spec that the
// CRD declares x-kubernetes-list-type: map keyed by name
// (config/crd/bases/cassandra.datastax.com_cassandradatacenters.yaml): the
// API server refuses two entries of one name.
func cassOperatorListMaps(dc cassDC) error {
	if dc.Spec.PodTemplateSpec == nil {
		return nil
	}
	s := dc.Spec.PodTemplateSpec.Spec
	var errs []error
	for what, names := range map[string][]string{
		"containers":     namesOf(s.Containers, func(c corev1.Container) string { return c.Name }),
		"initContainers": namesOf(s.InitContainers, func(c corev1.Container) string { return c.Name }),
		"volumes":        namesOf(s.Volumes, func(v corev1.Volume) string { return v.Name }),
	} {
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				errs = append(errs, fmt.Errorf("spec.podTemplateSpec.spec.%s: Duplicate value: %q", what, n))
			}
			seen[n] = true
		}
	}
	return errors.Join(errs...)
}

func namesOf[T any](xs []T, name func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = name(x)
	}
	return out
}

// cleanLabelValue is cass-operator's CleanLabelValue
// (apis/cassandra/v1beta1/cassandradatacenter_types.go): spaces dropped,
// then the runs of a label's characters kept.
func cleanLabelValue(v string) string {
	re := regexp.MustCompile(`(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?`)
	return strings.Join(re.FindAllString(strings.ReplaceAll(v, " ", ""), -1), "")
}

// cassOperatorServiceSelector is the selector of the datacenter's own
// Services, the all-pods Service among them (GetDatacenterLabels;
// pkg/reconciliation/construct_service.go, makeGenericHeadlessService):
// what docs/kubernetes.md copies into sidecar.podSelector.
func cassOperatorServiceSelector(dc cassDC) map[string]string {
	return map[string]string{
		"cassandra.datastax.com/cluster":    cleanLabelValue(dc.Spec.ClusterName),
		"cassandra.datastax.com/datacenter": cleanLabelValue(dc.Metadata.Name),
	}
}

// cassOperatorPorts are the cassandra container's ports for Cassandra 4
// and later (GetContainerPorts; 3.11 and DSE add more).
func cassOperatorPorts() []corev1.ContainerPort {
	named := func(n string, p int32) corev1.ContainerPort { return corev1.ContainerPort{Name: n, ContainerPort: p} }
	return []corev1.ContainerPort{
		named("native", 9042), named("tls-native", 9142), named("internode", 7000),
		named("tls-internode", 7001), named("jmx", 7199), named("mgmt-api-http", 8080),
		named("prometheus", 9103), named("metrics", 9000),
	}
}

// medusaPort is K8ssandra's Medusa container's gRPC port
// (k8ssandra-operator pkg/medusa/reconcile.go, DefaultMedusaPort).
const medusaPort = 50051

// cassOperatorReadOnlyFs is ReadOnlyFs: Cassandra 4.1 and later from the
// operator's own image run with a read-only root filesystem.
func cassOperatorReadOnlyFs(dc cassDC) bool {
	if dc.Spec.ReadOnlyRootFilesystem != nil {
		return *dc.Spec.ReadOnlyRootFilesystem
	}
	return dc.Spec.ServerImage == "" && dc.Spec.ServerType == "cassandra" && versionAtLeast(dc.Spec.ServerVersion, 4, 1)
}

func versionAtLeast(v string, major, minor int) bool {
	var a, b int
	fmt.Sscanf(v, "%d.%d", &a, &b)
	return a > major || a == major && b >= minor
}

// cassOperatorPod is the pod cass-operator makes for a rack of the
// datacenter, as far as the chart depends on it
// (pkg/reconciliation/construct_podtemplatespec.go, buildPodTemplateSpec,
// addVolumes, buildContainers, buildInitContainers, securityContext;
// construct_statefulset.go for the data claim):
//   - spec.podTemplateSpec is the base; its containers keep their order
//     and cassandra and server-system-logger are appended when absent;
//   - its volumes come first, then the operator's that no template
//     volume of the same name overrides, and the claim server-data;
//   - the account: serviceAccountName, else the deprecated
//     serviceAccount, else the template's;
//   - without a pod securityContext in the template: uid, gid and fsGroup
//     999, runAsNonRoot, and no seccomp profile;
//   - the operator's containers get no securityContext but, with a
//     read-only root filesystem, readOnlyRootFilesystem and
//     allowPrivilegeEscalation false: no dropped capabilities, no seccomp;
//   - labels: the template's, then the cluster, datacenter and rack
//     labels and the operator's own.
func cassOperatorPod(dc cassDC, rack string) (map[string]string, corev1.PodSpec) {
	var t corev1.PodTemplateSpec
	if dc.Spec.PodTemplateSpec != nil {
		t = *dc.Spec.PodTemplateSpec.DeepCopy()
	}
	spec := t.Spec
	switch {
	case dc.Spec.ServiceAccountName != "":
		spec.ServiceAccountName = dc.Spec.ServiceAccountName
	case dc.Spec.DeprecatedServiceAccount != "":
		spec.ServiceAccountName = dc.Spec.DeprecatedServiceAccount
	}
	if spec.SecurityContext == nil {
		id := int64(999)
		spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &id, RunAsGroup: &id, FSGroup: &id, RunAsNonRoot: ptr(true)}
	}
	readOnly := cassOperatorReadOnlyFs(dc)
	operatorSC := func() *corev1.SecurityContext {
		sc := &corev1.SecurityContext{}
		if readOnly {
			sc.ReadOnlyRootFilesystem, sc.AllowPrivilegeEscalation = ptr(true), ptr(false)
		}
		return sc
	}
	emptyDir := func(n string) corev1.Volume {
		return corev1.Volume{Name: n, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	}
	defaults := []corev1.Volume{emptyDir("server-config"), emptyDir("server-logs"), emptyDir("tmp")}
	if readOnly {
		defaults = append(defaults, emptyDir("etc-cassandra"))
	}
	defaults = append(defaults, emptyDir("server-config-base"), emptyDir("vector-lib"))
	volumes := append([]corev1.Volume{}, spec.Volumes...)
	for _, d := range defaults {
		if !hasName(spec.Volumes, func(v corev1.Volume) string { return v.Name }, d.Name) {
			volumes = append(volumes, d)
		}
	}
	// The StatefulSet's claim template, a volume of every pod.
	spec.Volumes = append(volumes, corev1.Volume{Name: "server-data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "server-data"}}})
	for _, name := range []string{"server-config-init-base", "server-config-init"} {
		if !hasName(spec.InitContainers, func(c corev1.Container) string { return c.Name }, name) {
			spec.InitContainers = append(spec.InitContainers, corev1.Container{Name: name, Image: "operator/" + name})
		}
	}
	for i := range spec.InitContainers {
		if spec.InitContainers[i].SecurityContext == nil {
			spec.InitContainers[i].SecurityContext = operatorSC()
		}
	}
	cassandra := corev1.Container{
		Name: "cassandra", Image: "operator/cassandra", Ports: cassOperatorPorts(),
		VolumeMounts: []corev1.VolumeMount{
			{Name: "server-logs", MountPath: "/var/log/cassandra"}, {Name: "server-data", MountPath: "/var/lib/cassandra"},
			{Name: "server-config", MountPath: "/config"}, {Name: "tmp", MountPath: "/tmp"},
		},
		ReadinessProbe:  &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/api/v0/probes/readiness", Port: intstr.FromInt32(8080)}}},
		SecurityContext: operatorSC(),
	}
	logger := corev1.Container{
		Name: "server-system-logger", Image: "operator/system-logger",
		VolumeMounts:    []corev1.VolumeMount{{Name: "server-logs", MountPath: "/var/log/cassandra"}, {Name: "vector-lib", MountPath: "/var/lib/vector"}},
		SecurityContext: operatorSC(),
	}
	for _, c := range []corev1.Container{cassandra, logger} {
		i := slicesIndex(spec.Containers, c.Name)
		if i < 0 {
			spec.Containers = append(spec.Containers, c)
			continue
		}
		// A template entry of the operator's container name overrides
		// what it sets; the rest is the operator's.
		merged := c
		if o := spec.Containers[i]; !reflect.DeepEqual(o.Resources, corev1.ResourceRequirements{}) {
			merged.Resources = o.Resources
		}
		spec.Containers[i] = merged
	}
	if spec.TerminationGracePeriodSeconds == nil {
		spec.TerminationGracePeriodSeconds = ptr(int64(120))
	}
	labels := map[string]string{}
	for k, v := range t.Labels {
		labels[k] = v
	}
	for k, v := range cassOperatorServiceSelector(dc) {
		labels[k] = v
	}
	labels["cassandra.datastax.com/rack"] = cleanLabelValue(rack)
	labels["app.kubernetes.io/managed-by"] = "cass-operator"
	labels["app.kubernetes.io/name"] = "cassandra"
	labels["app.kubernetes.io/instance"] = "cassandra-" + cleanLabelValue(dc.Spec.ClusterName)
	labels["app.kubernetes.io/version"] = dc.Spec.ServerVersion
	labels["app.kubernetes.io/created-by"] = "cass-operator"
	labels["cassandra.datastax.com/node-state"] = "Ready-to-Start"
	return labels, spec
}

func hasName[T any](xs []T, name func(T) string, n string) bool {
	for _, x := range xs {
		if name(x) == n {
			return true
		}
	}
	return false
}

func slicesIndex(cs []corev1.Container, name string) int {
	for i, c := range cs {
		if c.Name == name {
			return i
		}
	}
	return -1
}

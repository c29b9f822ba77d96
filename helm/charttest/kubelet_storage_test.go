//go:build kubelet

package charttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The node has no storage provisioner: a StatefulSet's claims bind to
// static hostPath volumes the test makes, of a class of its own, as an
// admin of a cluster without dynamic provisioning does.

// hostPathVolumes creates count PersistentVolumes of class, 1Gi each,
// on directories under a temporary directory owned by uid:gid (fsGroup
// does not reach a hostPath), and deletes them at the end of the test.
func (n *node) hostPathVolumes(t *testing.T, class string, count, uid, gid int) {
	t.Helper()
	root := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range count {
		dir := filepath.Join(root, fmt.Sprintf("pv%d", i))
		if err := os.Mkdir(dir, 0o750); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatalf("chown %s to %d:%d: %v", dir, uid, gid, err)
		}
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", class, i)},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              class,
				PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
					Path: dir, Type: new(corev1.HostPathDirectory),
				}},
			},
		}
		if _, err := n.kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
			t.Fatalf("create PersistentVolume %s: %v", pv.Name, err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			n.kube.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{})
		})
	}
}

package charttest

import (
	"bytes"
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
)

// Namespace is the namespace charts are rendered for.
const Namespace = "sstf-chart"

// ChartDir is the chart's directory, found from this file so tests run
// from any working directory.
func ChartDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "sstable-flight")
}

// Object is one rendered manifest: its template, its YAML, and the typed
// object it decoded into.
type Object struct {
	Template string
	YAML     []byte
	Obj      k8sruntime.Object
}

// Rendering is a chart rendered with one set of values.
type Rendering struct {
	Objects []Object
	Notes   string
}

// decoder decodes strictly (unknown and duplicate fields are errors) into
// client-go's types and prometheus-operator's.
var decoder = func() *json.Serializer {
	s := k8sruntime.NewScheme()
	if err := scheme.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := monitoringv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return json.NewSerializerWithOptions(json.DefaultMetaFactory, s, s, json.SerializerOptions{Yaml: true, Strict: true})
}()

// DecodeStrict decodes one YAML document into its Go type.
func DecodeStrict(doc []byte) (k8sruntime.Object, error) {
	obj, _, err := decoder.Decode(doc, nil, nil)
	return obj, err
}

// Load loads the chart from its directory.
func Load() (*chart.Chart, error) {
	c, err := loader.Load(ChartDir())
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", ChartDir(), err)
	}
	return c, nil
}

// MonitoringAPIs are the API versions the Prometheus Operator's CRDs add
// to discovery, as Helm's Capabilities.APIVersions lists them.
var MonitoringAPIs = []string{
	"monitoring.coreos.com/v1",
	"monitoring.coreos.com/v1/PodMonitor",
	"monitoring.coreos.com/v1/ServiceMonitor",
}

// Options are what a rendering sees of its cluster.
type Options struct {
	Namespace string
	// Release is the release's name; empty: sstf.
	Release string
	// APIVersions are served besides Kubernetes' own (MonitoringAPIs for
	// a cluster with the Prometheus Operator).
	APIVersions []string
	// Lookup answers the chart's lookup calls; nil: no cluster, as with
	// helm template.
	Lookup engine.ClientProvider
}

// Render renders the chart with values as release "sstf" in Namespace,
// on a cluster serving the Prometheus Operator's CRDs, validating values
// against values.schema.json, and decodes every object.
func Render(c *chart.Chart, values map[string]any) (*Rendering, error) {
	return RenderIn(c, values, Namespace)
}

// RenderIn is Render for a release in namespace ns.
func RenderIn(c *chart.Chart, values map[string]any, ns string) (*Rendering, error) {
	return RenderWith(c, values, Options{Namespace: ns, APIVersions: MonitoringAPIs})
}

// RenderWith renders the chart against a cluster as opts describe.
func RenderWith(c *chart.Chart, values map[string]any, opts Options) (*Rendering, error) {
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1.34.0", Major: "1", Minor: "34"}
	// A new slice: the default set is Helm's global.
	caps.APIVersions = slices.Concat(caps.APIVersions, opts.APIVersions)
	vals, err := chartutil.ToRenderValues(c, values, chartutil.ReleaseOptions{
		Name: cmp.Or(opts.Release, "sstf"), Namespace: opts.Namespace, Revision: 1, IsInstall: true,
	}, caps)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	var files map[string]string
	if opts.Lookup != nil {
		// Helm's engine takes a client provider only here, without its
		// strict mode.
		files, err = engine.RenderWithClientProvider(c, vals, opts.Lookup)
	} else {
		files, err = engine.Engine{Strict: true}.Render(c, vals)
	}
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	r := &Rendering{}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		text := files[name]
		switch {
		case strings.HasSuffix(name, "NOTES.txt"):
			r.Notes = text
			continue
		case strings.HasPrefix(path.Base(name), "_"):
			continue
		}
		docs := releaseutil.SplitManifests(text)
		keys := make([]string, 0, len(docs))
		for k := range docs {
			keys = append(keys, k)
		}
		sort.Sort(releaseutil.BySplitManifestsOrder(keys))
		for _, k := range keys {
			doc := []byte(docs[k])
			if len(bytes.TrimSpace(stripComments(doc))) == 0 {
				continue
			}
			obj, err := DecodeStrict(doc)
			if err != nil {
				return nil, fmt.Errorf("decode %s: %w\n%s", name, err, doc)
			}
			r.Objects = append(r.Objects, Object{Template: name, YAML: doc, Obj: obj})
		}
	}
	return r, nil
}

// stripComments drops the comment lines of a YAML document, to tell an
// empty one.
func stripComments(doc []byte) []byte {
	var out []byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out = append(out, line...)
			out = append(out, '\n')
		}
	}
	return out
}

// DecodeYAMLStrict decodes a YAML fragment (the sidecar ConfigMap's) into
// v, refusing unknown fields.
func DecodeYAMLStrict(doc string, v any) error {
	return yaml.UnmarshalStrict([]byte(doc), v)
}

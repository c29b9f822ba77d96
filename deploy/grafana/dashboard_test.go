package grafana

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// dashboardFile is the dashboard; chartCopy the Helm chart's copy of it,
// which the chart reads with .Files.Get and so must stay identical.
const (
	dashboardFile = "sstable-flight.json"
	chartCopy     = "../../helm/sstable-flight/dashboards/sstable-flight.json"
)

// dashboard is the part of Grafana's dashboard model the tests check.
type dashboard struct {
	UID           string  `json:"uid"`
	Title         string  `json:"title"`
	SchemaVersion int     `json:"schemaVersion"`
	Panels        []panel `json:"panels"`
	Templating    struct {
		List []variable `json:"list"`
	} `json:"templating"`
}

type panel struct {
	ID         *int        `json:"id"`
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	GridPos    *gridPos    `json:"gridPos"`
	Datasource *datasource `json:"datasource"`
	Targets    []target    `json:"targets"`
}

type gridPos struct{ H, W, X, Y int }

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type target struct {
	RefID        string      `json:"refId"`
	Expr         string      `json:"expr"`
	LegendFormat string      `json:"legendFormat"`
	Datasource   *datasource `json:"datasource"`
}

type variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Definition string          `json:"definition"`
	AllValue   string          `json:"allValue"`
	IncludeAll bool            `json:"includeAll"`
	Datasource *datasource     `json:"datasource"`
}

// theDatasource is what every panel and query names: the dashboard's
// datasource variable, so an import picks the Prometheus.
var theDatasource = datasource{Type: "prometheus", UID: "${datasource}"}

// loadDashboard reads and strictly decodes the dashboard.
func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("decode %s: %v", dashboardFile, err)
	}
	return d
}

// queryTargets are every panel's queries, each with its panel's title.
func queryTargets(d dashboard) (titles []string, targets []target) {
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			titles, targets = append(titles, p.Title), append(targets, tg)
		}
	}
	return titles, targets
}

// rangeSelector matches a range selector's window, [<anything>].
var rangeSelector = regexp.MustCompile(`\[([^\]]*)\]`)

// TestDashboardShape: the JSON is a dashboard Grafana imports (schema
// version, uid, panels with unique ids and a grid position inside the
// 24 columns), every panel and query uses the datasource variable, the
// namespace and pod variables exist and every query selects by them,
// every rate is over $__rate_interval, every legend names the pod, and
// the Helm chart's copy is the same file.
func TestDashboardShape(t *testing.T) {
	d := loadDashboard(t)
	if d.UID == "" || d.Title == "" || d.SchemaVersion < 36 {
		t.Errorf("uid %q, title %q, schemaVersion %d: want both set and a schema version of Grafana 9 or later", d.UID, d.Title, d.SchemaVersion)
	}
	vars := map[string]variable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	if v := vars["datasource"]; v.Type != "datasource" || string(v.Query) != `"prometheus"` {
		t.Errorf("variable datasource: type %q query %s, want a datasource variable of type prometheus", v.Type, v.Query)
	}
	for _, name := range []string{"namespace", "pod"} {
		v := vars[name]
		if v.Type != "query" || !strings.HasPrefix(v.Definition, "label_values(") || v.Datasource == nil || *v.Datasource != theDatasource {
			t.Errorf("variable %s: %+v, want a label_values query on ${datasource}", name, v)
		}
		// The test substitutes .* for All: allValue makes Grafana do the same.
		if !v.IncludeAll || v.AllValue != ".*" {
			t.Errorf("variable %s: includeAll %v allValue %q, want All as .*", name, v.IncludeAll, v.AllValue)
		}
	}
	ids := map[int]string{}
	for _, p := range d.Panels {
		if p.ID == nil {
			t.Errorf("panel %q has no id", p.Title)
			continue
		}
		if other, dup := ids[*p.ID]; dup {
			t.Errorf("panels %q and %q share id %d", other, p.Title, *p.ID)
		}
		ids[*p.ID] = p.Title
		if g := p.GridPos; g == nil || g.W <= 0 || g.H <= 0 || g.X < 0 || g.Y < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v, want inside 24 columns", p.Title, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || *p.Datasource != theDatasource {
			t.Errorf("panel %q: datasource %+v, want %+v", p.Title, p.Datasource, theDatasource)
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no queries", p.Title)
		}
		for _, tg := range p.Targets {
			checkTarget(t, p.Title, tg)
		}
	}
	if len(ids) < 10 {
		t.Errorf("%d panels, want the issue's set", len(ids))
	}
	a, _ := os.ReadFile(dashboardFile)
	b, err := os.ReadFile(chartCopy)
	if err != nil {
		t.Fatalf("the chart's copy: %v", err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("%s differs from %s: copy it again", chartCopy, dashboardFile)
	}
}

// checkTarget checks one query of panel title.
func checkTarget(t *testing.T, title string, tg target) {
	t.Helper()
	if tg.RefID == "" || tg.Datasource == nil || *tg.Datasource != theDatasource {
		t.Errorf("panel %q query %q: refId %q datasource %+v, want a refId and %+v", title, tg.Expr, tg.RefID, tg.Datasource, theDatasource)
	}
	if !strings.Contains(tg.LegendFormat, "{{pod}}") {
		t.Errorf("panel %q query %q: legend %q does not name the pod", title, tg.Expr, tg.LegendFormat)
	}
	if !strings.Contains(tg.Expr, `namespace=~"$namespace"`) || !strings.Contains(tg.Expr, `pod=~"$pod"`) {
		t.Errorf("panel %q query %q: does not select by $namespace and $pod", title, tg.Expr)
	}
	if !strings.Contains(tg.Expr, "by (pod") {
		t.Errorf("panel %q query %q: not aggregated by pod", title, tg.Expr)
	}
	for _, m := range rangeSelector.FindAllStringSubmatch(tg.Expr, -1) {
		if m[1] != "$__rate_interval" {
			t.Errorf("panel %q query %q: window [%s], want [$__rate_interval]", title, tg.Expr, m[1])
		}
	}
	if len(metricNames(tg.Expr)) == 0 {
		t.Errorf("panel %q query %q names no metric", title, tg.Expr)
	}
}

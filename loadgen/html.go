package loadgen

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteHTML writes a run as one self-contained HTML page: latency and
// throughput charts over the ramp (inline SVG, no scripts, so it opens
// anywhere and can be attached to a ticket) and every step's figures.
func WriteHTML(w io.Writer, rep *Report, title string) error {
	page := htmlPage{Title: title}
	arms := []struct {
		name  string
		steps []Step
	}{{"flight", rep.Flight}, {"cql", rep.CQL}}
	var lat, thr []series
	for _, a := range arms {
		if len(a.steps) == 0 {
			continue
		}
		lat = append(lat,
			stepSeries(a.name+" p50", a.steps, func(s Step) float64 { return float64(s.P50US) / 1000 }),
			stepSeries(a.name+" p99", a.steps, func(s Step) float64 { return float64(s.P99US) / 1000 }),
			stepSeries(a.name+" p999", a.steps, func(s Step) float64 { return float64(s.P999US) / 1000 }))
		thr = append(thr, stepSeries(a.name+" ops/s", a.steps, func(s Step) float64 { return s.OpsPerSec }))
		page.Steps = append(page.Steps, a.steps...)
	}
	page.Latency = template.HTML(svgChart("latency (ms) by step", lat, true))
	page.Throughput = template.HTML(svgChart("ops/s by step", thr, false))
	return htmlTmpl.Execute(w, page)
}

type htmlPage struct {
	Title      string
	Latency    template.HTML
	Throughput template.HTML
	Steps      []Step
}

// series is one line of a chart: a value per step of the ramp.
type series struct {
	name   string
	labels []string // x axis: the step's concurrency or rate
	values []float64
}

func stepSeries(name string, steps []Step, f func(Step) float64) series {
	s := series{name: name}
	for _, st := range steps {
		label := "c=" + strconv.Itoa(st.Concurrency)
		if st.TargetRate > 0 {
			label = strconv.FormatFloat(st.TargetRate, 'f', -1, 64) + "/s"
		}
		s.labels = append(s.labels, label)
		s.values = append(s.values, f(st))
	}
	return s
}

// chartColors tell the series apart; dashes tell the arms apart.
var chartColors = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"}

// svgChart draws the series as lines over the ramp's steps. A log scale
// suits latencies, whose percentiles span decades.
func svgChart(title string, ss []series, logScale bool) string {
	const w, h, left, right, top, bottom = 720.0, 320.0, 70.0, 170.0, 30.0, 40.0
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" role="img" aria-label="%s">`, w, h, template.HTMLEscapeString(title))
	fmt.Fprintf(&sb, `<text x="%.0f" y="18" font-size="14">%s</text>`, left, template.HTMLEscapeString(title))
	n, lo, hi := 0, math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		n = max(n, len(s.values))
		for _, v := range s.values {
			if logScale && v <= 0 {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if n == 0 || math.IsInf(lo, 1) {
		sb.WriteString(`<text x="70" y="60">no data</text></svg>`)
		return sb.String()
	}
	scale := func(v float64) float64 { return v }
	if logScale {
		scale = math.Log10
		lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	} else {
		lo = 0
	}
	if hi <= lo {
		hi = lo + 1
	}
	pw, ph := w-left-right, h-top-bottom
	x := func(i int) float64 {
		if n == 1 {
			return left + pw/2
		}
		return left + pw*float64(i)/float64(n-1)
	}
	y := func(v float64) float64 { return top + ph*(1-(scale(v)-scale(lo))/(scale(hi)-scale(lo))) }
	fmt.Fprintf(&sb, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`, left, top, pw, ph)
	for _, v := range []float64{lo, hi} {
		fmt.Fprintf(&sb, `<text x="%.0f" y="%.1f" font-size="11" text-anchor="end">%s</text>`, left-6, y(v)+4, compact(v))
	}
	if len(ss) > 0 {
		for i, l := range ss[0].labels {
			fmt.Fprintf(&sb, `<text x="%.1f" y="%.0f" font-size="11" text-anchor="middle">%s</text>`, x(i), h-bottom+16, template.HTMLEscapeString(l))
		}
	}
	for k, s := range ss {
		color := chartColors[k%len(chartColors)]
		dash := ""
		if strings.HasPrefix(s.name, "cql") {
			dash = ` stroke-dasharray="6 4"`
		}
		var pts []string
		for i, v := range s.values {
			if logScale && v <= 0 {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
		}
		fmt.Fprintf(&sb, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`, color, dash, strings.Join(pts, " "))
		ly := top + 14*float64(k) + 10
		fmt.Fprintf(&sb, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="2"%s/>`, w-right+10, ly, w-right+34, ly, color, dash)
		fmt.Fprintf(&sb, `<text x="%.0f" y="%.0f" font-size="11">%s</text>`, w-right+40, ly+4, template.HTMLEscapeString(s.name))
	}
	sb.WriteString(`</svg>`)
	return sb.String()
}

// compact prints an axis value in few characters.
func compact(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"ms": FormatMS,
	"f0": func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) },
	"mib": func(b *int64) string {
		if b == nil {
			return ""
		}
		return strconv.FormatFloat(float64(*b)/(1<<20), 'f', 1, 64)
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}td:first-child,td:nth-child(2){text-align:left}</style>
</head><body>
<h1>{{.Title}}</h1>
<p>{{.Latency}}</p>
<p>{{.Throughput}}</p>
<table>
<tr><th>arm</th><th>shape</th><th>conc.</th><th>rate</th><th>ops/s</th><th>rows/s</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>p999 ms</th><th>max ms</th><th>errors</th><th>unavailable</th><th>server RSS MiB</th></tr>
{{range .Steps}}<tr><td>{{.Arm}}</td><td>{{.Shape}} {{.Keyspace}}.{{.Table}}</td><td>{{.Concurrency}}</td><td>{{f0 .TargetRate}}</td><td>{{f0 .OpsPerSec}}</td><td>{{f0 .RowsPerSec}}</td><td>{{ms .P50US}}</td><td>{{ms .P90US}}</td><td>{{ms .P99US}}</td><td>{{ms .P999US}}</td><td>{{ms .MaxUS}}</td><td>{{.Errors}}</td><td>{{.Unavailable}}</td><td>{{mib .ServerRSSBytes}}</td></tr>
{{end}}</table>
</body></html>
`))

package corpus

import (
	"fmt"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Expected is expected.json: the rows CQL returns for SELECT * FROM t at
// consistency ONE, in CQL's order (token, then clustering order).
type Expected struct {
	Keyspace    string   `json:"keyspace"`
	Table       string   `json:"table"`
	Query       string   `json:"query"`
	Consistency string   `json:"consistency"`
	ReadAt      int64    `json:"read_at"` // unix seconds when the rows were read: the "now" of TTL expiry
	Columns     []Column `json:"columns"`
	Rows        []Row    `json:"rows"`
}

// Column describes one column as system_schema.columns does.
type Column struct {
	Name            string `json:"name"`
	Type            string `json:"type"`
	Kind            string `json:"kind"` // partition_key, clustering, static, regular
	Position        int    `json:"position"`
	ClusteringOrder string `json:"clustering_order"` // asc, desc or none
}

// Row is one CQL row: the partition's token and the canonical values.
type Row struct {
	Token  string         `json:"token"`
	Values map[string]any `json:"values"`
}

func readColumns(s *gocql.Session, table string) ([]Column, error) {
	iter := s.Query("SELECT column_name, type, kind, position, clustering_order FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", Keyspace, table).Iter()
	var cols []Column
	var c Column
	for iter.Scan(&c.Name, &c.Type, &c.Kind, &c.Position, &c.ClusteringOrder) {
		cols = append(cols, c)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read columns of %s.%s: %w", Keyspace, table, err)
	}
	rank := map[string]int{"partition_key": 0, "clustering": 1, "static": 2, "regular": 3}
	sort.SliceStable(cols, func(i, j int) bool {
		a, b := cols[i], cols[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		if a.Position != b.Position && a.Kind != "static" && a.Kind != "regular" {
			return a.Position < b.Position
		}
		return a.Name < b.Name
	})
	return cols, nil
}

func readExpected(s *gocql.Session, table string) (*Expected, error) {
	cols, err := readColumns(s, table)
	if err != nil {
		return nil, err
	}
	var pk, sel, tuples []string
	for _, c := range cols {
		if c.Kind == "partition_key" {
			pk = append(pk, quoteIdent(c.Name))
		}
		sel = append(sel, quoteIdent(c.Name))
		if strings.HasPrefix(c.Type, "tuple<") || strings.HasPrefix(c.Type, "frozen<tuple<") {
			tuples = append(tuples, c.Name)
		}
	}
	// NB: gocql scans a top-level tuple column into one destination per
	// element, which cannot tell a null tuple from a tuple of nulls;
	// Cassandra's own toJson() of the column tells them apart.
	for _, t := range tuples {
		sel = append(sel, "toJson("+quoteIdent(t)+")")
	}
	exp := &Expected{
		Keyspace:    Keyspace,
		Table:       table,
		Consistency: "ONE",
		ReadAt:      time.Now().Unix(),
		Columns:     cols,
		Rows:        []Row{},
	}
	// The token rides along in the same query so rows and tokens cannot
	// come from two different reads. CQL does not allow token() next to *,
	// so every column is named: the same rows SELECT * returns.
	q := fmt.Sprintf("SELECT token(%s), %s FROM %s.%s", strings.Join(pk, ", "), strings.Join(sel, ", "), Keyspace, table)
	exp.Query = q
	iter := s.Query(q).Consistency(gocql.One).PageSize(1000).Iter()
	infos := iter.Columns()
	if len(infos) != 1+len(cols)+len(tuples) {
		return nil, fmt.Errorf("%s: got %d result columns", q, len(infos))
	}
	// slots[i] lists the raw values of result column i (several for a tuple).
	slots := make([][]rawValue, len(cols)+1)
	var dest []any
	for i, info := range infos[:len(cols)+1] {
		n := 1
		if tt, ok := info.TypeInfo.(gocql.TupleTypeInfo); ok {
			n = len(tt.Elems)
		}
		slots[i] = make([]rawValue, n)
		for j := range slots[i] {
			dest = append(dest, &slots[i][j])
		}
	}
	tupleJSON := make([]string, len(tuples))
	for i := range tupleJSON {
		dest = append(dest, &tupleJSON[i])
	}
	tupleNull := map[string]*string{}
	for i, t := range tuples {
		tupleNull[t] = &tupleJSON[i]
	}
	for iter.Scan(dest...) {
		var tok int64
		if err := gocql.Unmarshal(infos[0].TypeInfo, slots[0][0].data, &tok); err != nil {
			return nil, fmt.Errorf("read token of %s: %w", table, err)
		}
		row := Row{Token: fmt.Sprint(tok), Values: make(map[string]any, len(cols))}
		for i := 1; i <= len(cols); i++ {
			name := infos[i].Name
			v, err := canonicalSlot(infos[i].TypeInfo, slots[i], tupleNull[name])
			if err != nil {
				return nil, fmt.Errorf("read %s.%s column %s: %w", Keyspace, table, name, err)
			}
			row.Values[name] = v
		}
		exp.Rows = append(exp.Rows, row)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	return exp, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func canonicalSlot(info TypeInfo, raws []rawValue, tupleJSON *string) (any, error) {
	value := func(r rawValue) []byte {
		if r.null {
			return nil
		}
		return r.data
	}
	tt, ok := info.(gocql.TupleTypeInfo)
	if !ok {
		return Canonical(info, value(raws[0]))
	}
	if tupleJSON != nil && *tupleJSON == "null" {
		return nil, nil
	}
	out := make([]any, len(tt.Elems))
	for i, e := range tt.Elems {
		v, err := Canonical(e, value(raws[i]))
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

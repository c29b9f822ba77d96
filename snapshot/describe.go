package snapshot

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// Describe writes a readable listing of the tables and SSTables under a
// data directory: what the server will serve from it.
func Describe(w io.Writer, dataDir string) error {
	tables, err := Layout(dataDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: %d tables\n", dataDir, len(tables))
	for _, t := range tables {
		var bytes int64
		for _, st := range t.SSTables {
			bytes += st.Components["Data.db"]
		}
		fmt.Fprintf(w, "  %s.%s (id %s): %d SSTables, %d bytes of Data.db\n", t.Keyspace, t.Table, t.ID, len(t.SSTables), bytes)
		for _, st := range t.SSTables {
			comps := make([]string, 0, len(st.Components))
			for c := range st.Components {
				comps = append(comps, strings.TrimSuffix(strings.TrimSuffix(c, ".db"), ".txt"))
			}
			sort.Strings(comps)
			comps = slices.Compact(comps)
			fmt.Fprintf(w, "    %-12s %8d bytes  %s\n", st.Prefix, st.Components["Data.db"], strings.Join(comps, " "))
		}
	}
	return nil
}

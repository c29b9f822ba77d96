package cluster

import (
	"fmt"
	"reflect"
	"testing"
)

func TestParseReplication(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want Replication
	}{
		{map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "2"}, SimpleStrategy{RF: 2}},
		{map[string]string{"class": "SimpleStrategy", "replication_factor": "1"}, SimpleStrategy{RF: 1}},
		{map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3/0"}, SimpleStrategy{RF: 3}},
		{map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "2", "dc2": "1"},
			NetworkTopologyStrategy{DCs: map[string]int{"dc1": 2, "dc2": 1}}},
		{map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"}, LocalStrategy{}},
		{map[string]string{"class": "org.apache.cassandra.locator.EverywhereStrategy"}, EverywhereStrategy{}},
	} {
		t.Run(fmt.Sprint(c.opts), func(t *testing.T) {
			got, err := ParseReplication(c.opts)
			if err != nil {
				t.Errorf("%v: %v", c.opts, err)
				return
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%v: %v, want %v", c.opts, got, c.want)
			}
		})
	}
	for _, opts := range []map[string]string{
		{},
		{"class": "org.apache.cassandra.locator.SimpleStrategy"},
		{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "two"},
		{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "-1"},
		{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3/1"},
		{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "replication_factor": "3"},
		{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3/4"},
		{"class": "org.apache.cassandra.locator.MetaStrategy"},
	} {
		t.Run(fmt.Sprint(opts), func(t *testing.T) {
			if got, err := ParseReplication(opts); err == nil {
				t.Errorf("%v: %v, want an error", opts, got)
			}
		})
	}
}

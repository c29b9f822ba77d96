package catalog

import "strings"

// systemKeyspaces are Cassandra's own keyspaces (SchemaConstants): the
// local ones (system, system_schema), the replicated ones (system_auth,
// system_distributed, system_traces) and the virtual ones (system_views,
// system_virtual_schema) of 5.0, and those later versions add
// (system_cluster_metadata, system_accord, system_metrics), so that the
// data directory of a newer node is not served either.
var systemKeyspaces = [...]string{
	"system", "system_schema", "system_auth", "system_distributed", "system_traces",
	"system_views", "system_virtual_schema", "system_cluster_metadata", "system_accord", "system_metrics",
}

// IsSystemKeyspace reports whether name is one of Cassandra's system
// keyspaces by Cassandra's own rule (SchemaConstants.isSystemKeyspace):
// one of a fixed set of names, compared case-insensitively, since
// Cassandra refuses to create a keyspace whose lower-cased name is one of
// them. Their tables hold the node's secrets (system_auth.roles: password
// hashes) and internals, and are never served.
//
// NB: not every name that starts with "system": Cassandra lets a user
// create system_foo, and it is served like any other keyspace.
func IsSystemKeyspace(name string) bool {
	if len(name) < len("system") || name[0]|0x20 != 's' {
		return false // the common case, decided without a loop
	}
	for _, s := range systemKeyspaces {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	return false
}

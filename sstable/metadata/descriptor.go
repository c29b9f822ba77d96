package metadata

import (
	"fmt"
	"regexp"
)

// Descriptor identifies one SSTable component file by its name,
// <version>-<id>-<format>-<component>, e.g. "oa-3-big-Data.db" or
// "da-3gfh_0x2v_1s3a82g3v1bu1b6ogt-bti-Data.db" (a time-UUID id, used when
// uuid_sstable_identifiers_enabled is set).
type Descriptor struct {
	Version   string // two letters, one of Versions[Format]
	ID        string // sequential integer or base-36 time UUID, as written
	Format    string // big or bti
	Component string // Data.db, Index.db, TOC.txt, ...
}

// Prefix is the name shared by all components of one SSTable, e.g. "oa-3-big".
func (d Descriptor) Prefix() string { return d.Version + "-" + d.ID + "-" + d.Format }

// FileName is the component's file name.
func (d Descriptor) FileName() string { return d.Prefix() + "-" + d.Component }

var descriptorRE = regexp.MustCompile(`^([a-z]{2})-([0-9]+|[0-9a-z]{4}_[0-9a-z]{4}_[0-9a-z]{18})-(big|bti)-([A-Za-z0-9]+\.(?:db|txt|crc32))$`)

// ParseDescriptor parses a component file name (without directory).
func ParseDescriptor(name string) (Descriptor, error) {
	m := descriptorRE.FindStringSubmatch(name)
	if m == nil {
		return Descriptor{}, fmt.Errorf("parse sstable file name %q: not <version>-<id>-<big|bti>-<component>", name)
	}
	return Descriptor{Version: m[1], ID: m[2], Format: m[3], Component: m[4]}, nil
}

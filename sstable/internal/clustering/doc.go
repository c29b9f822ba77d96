// Package clustering decodes clustering prefixes the way every part of an
// SSTable writes them (db/ClusteringPrefix): the kind byte of a bound and
// the values with their empty/null header. Data.db's rows and markers
// (package sstable) and Statistics.db's covered clustering slice (package
// sstable/metadata) both read them here, so the encoding has one home;
// package sstable re-exports Kind as BoundKind.
package clustering

// Package lru is the project's one least-recently-used cache: a map
// whose entries are kept in order of use and bounded by their summed
// weight (Map), and a sharded, locked Cache built on it. It has no
// goroutines of its own; whatever an evicted value holds is released
// through a callback the owner gives, under the owner's lock. An Add
// that evicts reuses the evicted entry, so a full cache's steady state
// allocates nothing in it.
//
// Three caches are built on it:
//
//   - sstable.KeyCache, a Cache of partition positions for point reads;
//   - compress.ChunkCache, sharded by itself because each shard owns a
//     mapping of off-heap slots: a shard's Map orders and weighs its
//     chunks (in slots) and hands evicted chunks' slots back to the
//     shard's free list;
//   - sidecar's block cache, one Map under the lock that also guards
//     its in-flight fetches and purge generation, so a purge and an
//     insert cannot interleave.
//
// NB: a leaf utility in the module's internal/, not in sstable/internal,
// so snapshot/sidecar may import it too. It imports only the standard
// library and knows nothing of SSTables, files or the wire, so sstable,
// which imports none of the project's layered packages, may use it
// without breaking the one-way flow (sstable <- reconcile <- snapshot
// <- flightserver <- cmd).
//
// NB: written here rather than taken from a library: golang-lru bounds
// entries, not weight, and the entries' sizes differ (keys, chunks of
// each table's length, blocks); otter and ristretto weigh entries but
// run their upkeep on goroutines of their own, which a library package
// should not start.
package lru

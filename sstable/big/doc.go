// Package big reads the BIG-format index components of an SSTable:
// Summary.db (a sample of the partition index), Index.db (the partition
// index, with each large partition's promoted row index) and Filter.db
// (the partition-key bloom filter). Package sstable builds on it; it does
// not read Data.db.
//
// Every decode failure is a *base.CorruptionError naming the file, the
// component and the byte offset. No input makes a parser panic, and every
// loop and allocation is bounded by the input's size, so the parsers are
// safe on damaged or hostile files.
//
// Branch on feature flags, never on version names: the caller maps a
// version to IndexOptions.UIntDeletionTime (oa+) and to ParseFilter (na+)
// or ParseOldFilter (ma..me).
//
// # Summary.db (io/sstable/indexsummary/IndexSummary.IndexSummarySerializer)
//
//	int32 BE   minIndexInterval
//	int32 BE   count                entries in the summary
//	int64 BE   offHeapSize          = 4*count + len(entries region)
//	int32 BE   samplingLevel        1..128 (BASE_SAMPLING_LEVEL)
//	int32 BE   sizeAtFullSampling
//	count × int32 LE offset         from the start of the offsets array, so
//	                                offset[0] == 4*count
//	entries region, per entry:      key bytes, int64 LE Index.db position
//	                                (an entry ends where the next begins)
//	int32 BE len, bytes             first partition key of the SSTable
//	int32 BE len, bytes             last partition key
//
// The offsets and positions are in the writer's native byte order. 5.0
// writes little-endian and refuses big-endian files; this reader also
// accepts a big-endian file, detected by which reading of offset[0]
// equals 4*count.
//
// # Index.db (io/sstable/format/big/RowIndexEntry), entries back to back
//
//	u16 BE len, bytes   partition key
//	uvint               Data.db position of the partition
//	uvint               size of the promoted index, 0 if none
//	promoted index (size bytes):
//	    uvint           header length: partition header bytes in Data.db
//	    DeletionTime    partition deletion (see below)
//	    uvint           block count n
//	    n × IndexInfo   (io/sstable/IndexInfo.Serializer)
//	        prefix      first clustering in the block
//	        prefix      last clustering in the block
//	        uvint       offset of the block from the partition start
//	        vint        width - 65536 (WIDTH_BASE), zigzag-signed
//	        bool        has an open range-tombstone marker at the end
//	        [DeletionTime of that marker]
//	    n × int32 BE    offset of each IndexInfo from the first one
//	                    (written since 3.6; 3.0.x files may lack them,
//	                    which the size tells apart)
//
// # DeletionTime (db/DeletionTime)
//
//	before oa:  int32 BE localDeletionTime, int64 BE markedForDeleteAt
//	oa and on:  0x80 alone means live; otherwise int64 BE
//	            markedForDeleteAt (top bit clear), uint32 BE
//	            localDeletionTime
//
// # Clustering prefix (db/ClusteringPrefix.Serializer)
//
//	u8                  kind (ClusteringPrefix.Kind ordinal; 4 = CLUSTERING)
//	[u16 BE size]       bounds and boundaries only; a CLUSTERING has one
//	                    value per clustering column
//	per block of 32 values:
//	    uvint header    2 bits per value: bit 2j set = empty,
//	                    bit 2j+1 set = null (j = index mod 32)
//	    values          not null or empty: fixed-width types raw, the
//	                    others as uvint length + bytes
//
// # Filter.db (utils/BloomFilterSerializer, utils/obs/OffHeapBitSet)
//
//	int32 BE   hash count k
//	int32 BE   number of 64-bit words w
//	na and on: 8w bytes, the bit set's memory as is: bit i is
//	           byte i/8, mask 1<<(i%8)
//	ma..me:    w int64 BE words: bit i is bit i%64 of word i/64
//
// Bit indexes come from Cassandra's 128-bit murmur3 of the key
// (h1, h2): index j is |(h2 + j*h1) mod 64w| with Java's signed long
// arithmetic. The second half is the base and the first the increment
// since version ma (hasOldBfHashOrder is true only before ma).
package big

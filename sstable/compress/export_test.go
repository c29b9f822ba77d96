package compress

// CorpusHasMaxCompressedLength lets the external test compare the corpus tests'
// version rule with sstable.Version.
var CorpusHasMaxCompressedLength = hasMaxCompressedLength

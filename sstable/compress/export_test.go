package compress

// CorpusHasMaxCompressedLength lets the external test compare the corpus tests'
// version rule with metadata.Version.
var CorpusHasMaxCompressedLength = hasMaxCompressedLength

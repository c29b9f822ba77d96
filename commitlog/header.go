package commitlog

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
)

// The descriptor header, at offset 0 of every segment
// (CommitLogDescriptor.writeHeader / readHeader), all big-endian:
//
//	0   int32   version          6, 7 or 8
//	4   int64   id               the segment id, as in the file name
//	12  uint16  paramsLen
//	14  bytes   params           paramsLen bytes of JSON: {} or compression / encryption
//	14+paramsLen int32 headerCRC
//
// NB: the CRC (java.util.zip.CRC32, IEEE) is not over the bytes on disk:
// it covers version, the low then the high 32 bits of id, and paramsLen
// as a 4-byte int, each big-endian, then the JSON (headerCRC below).
const headerFixed = 14

// Commit log versions this package reads (CommitLogDescriptor.VERSION_*).
const (
	Version30 = 6 // Cassandra 3.0 and 3.11
	Version40 = 7 // 4.0, 4.1, and 5.0 in storage_compatibility_mode CASSANDRA_4
	Version50 = 8 // 5.0 in storage_compatibility_mode UPGRADING or NONE
)

// messagingVersions maps a commit log version to the messaging version its
// mutations are serialized with (CommitLogDescriptor.getMessagingVersion).
var messagingVersions = map[int]int{Version30: 10, Version40: 12, Version50: 13}

// Header is a segment's parsed descriptor header.
type Header struct {
	Version int
	ID      int64
	// Size is the header's length in bytes; the first sync marker is at
	// this offset.
	Size int64
	// Compression is the compressor's class name as the header gives it
	// (short, LZ4Compressor, or fully qualified); "" when uncompressed.
	Compression string
	// CompressionParameters are the compressor's options, if any.
	CompressionParameters map[string]string
}

// MessagingVersion is the version of Cassandra's messaging serialization
// the segment's mutations are written in: 10 for version 6, 12 for 7, 13
// for 8.
func (h Header) MessagingVersion() int { return messagingVersions[h.Version] }

// Compressed reports whether the segment's sections are compressed.
func (h Header) Compressed() bool { return h.Compression != "" }

// headerParams is the parameters JSON (CommitLogDescriptor.
// constructParametersString, EncryptionContext.toHeaderParameters).
type headerParams struct {
	CompressionClass      string            `json:"compressionClass"`
	CompressionParameters map[string]string `json:"compressionParameters"`
	EncCipher             *string           `json:"encCipher"`
	EncKeyAlias           *string           `json:"encKeyAlias"`
}

// headerCRC is the header's checksum as CommitLogDescriptor computes it.
func headerCRC(version int32, id int64, params []byte) uint32 {
	var b [16]byte
	binary.BigEndian.PutUint32(b[0:], uint32(version))
	binary.BigEndian.PutUint32(b[4:], uint32(id))
	binary.BigEndian.PutUint32(b[8:], uint32(id>>32))
	binary.BigEndian.PutUint32(b[12:], uint32(len(params)))
	return crc32.Update(crc32.ChecksumIEEE(b[:]), crc32.IEEETable, params)
}

// parseHeader decodes a header from the first bytes of a segment. It
// returns errTorn (wrapped in a CorruptionError) when the bytes are not a
// header yet — too short, all zero, or failing the CRC — which a live
// segment's caller tolerates: Cassandra writes the header of a new segment
// while it may already be listed. need is how many bytes a complete
// header takes, when b is shorter.
func parseHeader(b []byte, file string) (h Header, err error) {
	if len(b) < headerFixed {
		return h, tornf(file, compHeader, 0, "%d bytes, a header takes at least %d", len(b), headerFixed+4)
	}
	version := int32(binary.BigEndian.Uint32(b))
	id := int64(binary.BigEndian.Uint64(b[4:]))
	plen := int(binary.BigEndian.Uint16(b[12:]))
	if version == 0 && id == 0 && plen == 0 {
		return h, tornf(file, compHeader, 0, "the header is all zeros (not written yet)")
	}
	if _, ok := messagingVersions[int(version)]; !ok {
		hint := ""
		if version >= 1 && version < Version30 {
			hint = " (written by Cassandra 2.2 or older: replay it with that Cassandra)"
		}
		return h, fmt.Errorf("%s: %w %d%s; this reader takes 6, 7 and 8", file, ErrUnsupportedVersion, version, hint)
	}
	end := headerFixed + plen + 4
	if len(b) < end {
		return h, tornf(file, compHeader, 0, "%d bytes, the header takes %d", len(b), end)
	}
	params := b[headerFixed : headerFixed+plen]
	if stored, want := binary.BigEndian.Uint32(b[headerFixed+plen:]), headerCRC(version, id, params); stored != want {
		return h, tornf(file, compHeader, int64(headerFixed+plen), "header CRC %#08x, computed %#08x", stored, want)
	}
	var p headerParams
	if err := json.Unmarshal(params, &p); err != nil {
		return h, corruptf(file, compHeader, headerFixed, "parameters %q are not a JSON object: %v", params, err)
	}
	// EncryptionContext.createFromMap: encrypted only if both are set.
	if p.EncCipher != nil && p.EncKeyAlias != nil {
		return h, fmt.Errorf("%s: %w (cipher %q, key alias %q): transparent data encryption keeps its keys in Cassandra's keystore; this reader cannot decrypt it", file, ErrEncrypted, *p.EncCipher, *p.EncKeyAlias)
	}
	h = Header{Version: int(version), ID: id, Size: int64(end), Compression: p.CompressionClass, CompressionParameters: p.CompressionParameters}
	if h.Compressed() {
		if d, ok := newDecompressor(h.Compression, 0); !ok {
			return h, fmt.Errorf("%s: %w %q", file, ErrUnknownCompressor, h.Compression)
		} else {
			d.Close()
		}
	}
	return h, nil
}

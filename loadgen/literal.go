package loadgen

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"gopkg.in/inf.v0"
)

// errNullKey marks a key value that is null in Arrow: an empty value of a
// type with no empty form (docs/types.md). A JSON command cannot name it,
// so the sampler skips such partitions.
var errNullKey = errors.New("null key value")

// keyValue converts row i of a partition key column back to the JSON
// literal of docs/flight-api.md and to the Go value gocql binds for the
// same CQL type. The CQL type (field metadata), not the Arrow type, picks
// the form: text and inet are both Utf8 but bind differently in CQL.
func keyValue(cqlType string, arr arrow.Array, i int) (json.RawMessage, any, error) {
	if arr.IsNull(i) {
		return nil, nil, errNullKey
	}
	if ext, ok := arr.(array.ExtensionArray); ok {
		arr = ext.Storage() // arrow.uuid: FixedSizeBinary(16) underneath
	}
	bad := func() (json.RawMessage, any, error) {
		return nil, nil, fmt.Errorf("cql type %s in Arrow %s: not a key type this rig converts", cqlType, arr.DataType())
	}
	switch cqlType {
	case "text", "ascii", "varchar", "inet", "varint", "decimal":
		a, ok := arr.(*array.String)
		if !ok {
			return bad()
		}
		s := a.Value(i)
		lit, _ := json.Marshal(s)
		v, err := cqlText(cqlType, s)
		return lit, v, err
	case "bigint", "counter":
		a, ok := arr.(*array.Int64)
		if !ok {
			return bad()
		}
		// A string: a JSON number loses int64 precision beyond 2^53.
		v := a.Value(i)
		return json.RawMessage(`"` + strconv.FormatInt(v, 10) + `"`), v, nil
	case "int":
		a, ok := arr.(*array.Int32)
		if !ok {
			return bad()
		}
		return json.RawMessage(strconv.FormatInt(int64(a.Value(i)), 10)), a.Value(i), nil
	case "smallint":
		a, ok := arr.(*array.Int16)
		if !ok {
			return bad()
		}
		return json.RawMessage(strconv.FormatInt(int64(a.Value(i)), 10)), a.Value(i), nil
	case "tinyint":
		a, ok := arr.(*array.Int8)
		if !ok {
			return bad()
		}
		return json.RawMessage(strconv.FormatInt(int64(a.Value(i)), 10)), a.Value(i), nil
	case "boolean":
		a, ok := arr.(*array.Boolean)
		if !ok {
			return bad()
		}
		return json.RawMessage(strconv.FormatBool(a.Value(i))), a.Value(i), nil
	case "float":
		a, ok := arr.(*array.Float32)
		if !ok {
			return bad()
		}
		return floatLiteral(float64(a.Value(i)), 32), a.Value(i), nil
	case "double":
		a, ok := arr.(*array.Float64)
		if !ok {
			return bad()
		}
		return floatLiteral(a.Value(i), 64), a.Value(i), nil
	case "blob":
		a, ok := arr.(*array.Binary)
		if !ok {
			return bad()
		}
		b := a.Value(i)
		return json.RawMessage(`"0x` + hex.EncodeToString(b) + `"`), append([]byte{}, b...), nil
	case "timestamp":
		a, ok := arr.(*array.Timestamp)
		if !ok {
			return bad()
		}
		// Milliseconds as a string: exact for every int64, which RFC 3339
		// is not (years beyond 9999).
		ms := int64(a.Value(i))
		return json.RawMessage(`"` + strconv.FormatInt(ms, 10) + `"`), ms, nil
	case "date":
		a, ok := arr.(*array.Date32)
		if !ok {
			return bad()
		}
		days := int64(a.Value(i))
		// gocql binds a date from milliseconds; whole days divide exactly.
		return dateLiteral(days), days * 86_400_000, nil
	case "time":
		a, ok := arr.(*array.Time64)
		if !ok {
			return bad()
		}
		ns := int64(a.Value(i))
		return json.RawMessage(strconv.FormatInt(ns, 10)), time.Duration(ns), nil
	case "uuid", "timeuuid":
		a, ok := arr.(*array.FixedSizeBinary)
		if !ok || len(a.Value(i)) != 16 {
			return bad()
		}
		var u gocql.UUID
		copy(u[:], a.Value(i))
		return json.RawMessage(`"` + u.String() + `"`), u, nil
	}
	return bad()
}

// floatLiteral writes the shortest form that parses back to the same
// float of that width; NaN and infinities, which JSON has no number for,
// as strings the server's ParseFloat reads.
func floatLiteral(v float64, bits int) json.RawMessage {
	switch {
	case math.IsNaN(v):
		return json.RawMessage(`"NaN"`)
	case math.IsInf(v, 1):
		return json.RawMessage(`"+Inf"`)
	case math.IsInf(v, -1):
		return json.RawMessage(`"-Inf"`)
	}
	return json.RawMessage(strconv.FormatFloat(v, 'g', -1, bits))
}

// dateLiteral is "YYYY-MM-DD" where Go's date parser reads it back
// (years 1..9999), else the day number, which the server also takes.
func dateLiteral(days int64) json.RawMessage {
	t := time.Unix(days*86400, 0).UTC()
	if y := t.Year(); y >= 1 && y <= 9999 {
		return json.RawMessage(`"` + t.Format(time.DateOnly) + `"`)
	}
	return json.RawMessage(strconv.FormatInt(days, 10))
}

// cqlText is the gocql value of a key type the server sends as text.
func cqlText(cqlType, s string) (any, error) {
	switch cqlType {
	case "inet":
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("read inet %q: %w", s, err)
		}
		return rawCQL(a.AsSlice()), nil
	case "varint":
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("read varint %q: not an integer", s)
		}
		return v, nil
	case "decimal":
		return parseDecimal(s)
	}
	return s, nil
}

// parseDecimal reads the server's "<unscaled>e<-scale>" form.
func parseDecimal(s string) (*inf.Dec, error) {
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	scale := int64(0)
	if exp != "" {
		e, err := strconv.ParseInt(exp, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("read decimal %q: %w", s, err)
		}
		scale = -e
	}
	v, ok := new(big.Int).SetString(mant, 10)
	if !ok {
		return nil, fmt.Errorf("read decimal %q: not <unscaled>e<-scale>", s)
	}
	return inf.NewDecBig(v, inf.Scale(scale)), nil
}

// rawCQL binds bytes as they are: gocql turns an IPv4-mapped IPv6 inet
// into 4 bytes, which is another partition key.
type rawCQL []byte

// MarshalCQL implements gocql.Marshaler.
func (r rawCQL) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return r, nil }

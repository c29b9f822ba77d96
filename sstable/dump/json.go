package dump

import (
	"bytes"
	"encoding/json"
)

// object is a JSON object that keeps its keys in insertion order, as
// sstabledump's output does, so our dump reads like Cassandra's.
type object []field

type field struct {
	key   string
	value any
}

func (o *object) set(key string, value any) { *o = append(*o, field{key, value}) }

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

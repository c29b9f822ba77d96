package request

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// maxCommandDepth bounds how deep a command's JSON may nest: a command
// nests four levels (command, keys, key, value; or command, clustering,
// bound, values), and a deeper one must not cost a deep recursion.
const maxCommandDepth = 16

// checkMembersOnce refuses a JSON text in which an object names a member
// twice: encoding/json keeps the last, so {"table":"a","table":"b"}
// would read a table other than the one a person reading the command
// sees first. Names are compared after decoding escapes and, in the
// command's own objects, under Unicode simple case folding, as
// encoding/json matches a member to a struct field ("TABLE" fills the
// same field as "table"). The objects of the keys list map column names,
// which Cassandra keeps case-sensitive: there names are compared
// exactly. The caller has decoded b already; errors here are only about
// duplicates and depth.
func checkMembersOnce(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return membersOnce(dec, "", 0)
}

// membersOnce reads one value at path (its members' folded names joined
// by dots, "[]" for an array element) and everything inside it.
func membersOnce(dec *json.Decoder, path string, depth int) error {
	if depth > maxCommandDepth {
		return fmt.Errorf("nested deeper than %d", maxCommandDepth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			if err := membersOnce(dec, path+"[]", depth+1); err != nil {
				return err
			}
		}
	case json.Delim('{'):
		exact := path == foldName("keys")+"[]" // a key: column → value
		seen := map[string]bool{}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := tok.(string) // a member name is always a string
			key := name
			if !exact {
				key = foldName(name)
			}
			if seen[key] {
				return fmt.Errorf("member %q given twice in one object", name)
			}
			seen[key] = true
			if err := membersOnce(dec, joinPath(path, foldName(name)), depth+1); err != nil {
				return err
			}
		}
	default:
		return nil // a scalar
	}
	_, err = dec.Token() // the closing delimiter
	return err
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// foldName maps a name to one spelling of its case-folding class: each
// rune to the least rune of its simple folding orbit, so two names are
// equal under bytes.EqualFold (which encoding/json's field matching
// follows) exactly when their foldNames are equal.
func foldName(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

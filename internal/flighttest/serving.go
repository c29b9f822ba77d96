package flighttest

import (
	"bufio"
	"encoding/json"
	"strings"
)

// ServingAddr finds the Flight address a server process logged on its
// stderr (the JSON line "serving Flight" and its addr), or "" while it
// has not: how the tests that start the binary, from the repository or
// from the image, learn the port it took.
func ServingAddr(log string) string {
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		var rec struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "serving Flight" && rec.Addr != "" {
			return rec.Addr
		}
	}
	return ""
}

package request

// DoGet takes a ticket a plan issued or a command (docs/flight-api.md),
// told apart by their first bytes: a ticket starts with its magic
// (ticket.go), a command is a JSON object, whose first byte after JSON
// whitespace is '{'. No ticket is both: the magic is neither whitespace
// nor '{'. Names and values inside either are data: a keyspace, table or
// column named version changes nothing.

// IsTicket reports whether b starts as a ticket; open verifies the rest.
func IsTicket(b []byte) bool {
	return len(b) >= len(ticketMagic) && string(b[:len(ticketMagic)]) == ticketMagic
}

// IsCommand reports whether b starts as a JSON object; ParseCommand
// judges the rest.
func IsCommand(b []byte) bool {
	i := skipSpace(b, 0)
	return i < len(b) && b[i] == '{'
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

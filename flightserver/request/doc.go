// Package request reads what a Flight client sends the server to name
// its work: commands and tickets (docs/flight-api.md).
//
// A command (command.go) is the JSON object of a FlightDescriptor, or of
// a DoGet ticket sent directly: a table, columns, keys or a token range,
// a clustering slice, a limit. ParseCommand reads it with a fast parser
// for the shapes clients send most (commandfast.go) and encoding/json for
// the rest, each member at most once (jsononce.go); both accept alike.
//
// A ticket (ticket.go) is one endpoint's work as a plan issued it, sealed
// in an HMAC-SHA256 envelope under keys a cluster may share
// (ticketkey.go), so DoGet reads only what a plan issued. The two are
// told apart by their first bytes (ticketkind.go).
//
// Names and values are checked against the table elsewhere (at planning,
// and again at DoGet): this package checks only shape. It imports sstable
// (key and slice types) and snapshot (ConfigError), never flightserver.
package request

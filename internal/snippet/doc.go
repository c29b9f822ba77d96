// Package snippet renders bytes read from a file for an error message.
//
// Error messages reach clients, and the file may not be what its name
// says: a TOC.txt that is a hard link to a secret, a schema.cql that is
// gigabytes of anything. So a message shows at most a few bytes of what
// a file holds, quoted so that no control byte or invalid UTF-8 gets
// through, and says how long the whole was.
package snippet

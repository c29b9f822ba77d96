// Package iostall bounds how long a caller waits for storage that may
// never answer.
//
// A read(2) of a regular file on a hung NFS mount or a failing disk, an
// open(2) of a FIFO without a writer, a stat of a directory on a dead
// mount: each blocks its OS thread in the kernel, uninterruptibly, and
// nothing in Go can cancel it. A request that makes such a call never
// returns, and holds whatever it holds (an admission slot, a lease)
// for ever.
//
// A Guard runs each such operation on a goroutine of its own and waits
// for it, for the caller's context, for its timeout or for Close,
// whichever comes first. When it stops waiting, the caller gets an error
// matching ErrStalled that names the operation and the file, and goes on
// to free what it holds; the operation keeps its goroutine and its
// thread until the kernel returns, counted as stuck. Stuck operations
// are bounded: while one on a path is stuck, further operations on that
// path are refused at once (a hung file costs one thread, not one per
// request), and past Guard's limit every operation is refused, so a dead
// mount cannot exhaust the process' threads.
package iostall

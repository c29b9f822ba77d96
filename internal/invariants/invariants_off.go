//go:build !invariants

package invariants

// Enabled is true in builds with the invariants tag.
const Enabled = false

// Kept is state only invariants builds keep. In other builds it is an
// empty struct, so a field of this type costs no memory (placed anywhere
// but last in its struct, where Go pads a zero-size field) and P, which
// is only called under `if Enabled`, is never compiled in.
type Kept[T any] struct{}

// P is the kept state: nil without the invariants tag.
func (k *Kept[T]) P() *T { return nil }
